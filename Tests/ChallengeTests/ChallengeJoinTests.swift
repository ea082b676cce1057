import Foundation
import PodiumClient
import PodiumMessages
import PodiumTesting
import Testing

/// Joining a time-boxed challenge with an invite code, through the gateway over real sockets.
@Suite("Joining by code")
struct ChallengeJoinTests {
    @Test(
        "a stranger joins a running challenge by code, the sharer is told, and wrong, friend, ended and other-game codes are refused"
    )
    func joinByCode() async throws {
        let admin = String(repeating: "a", count: 40)
        try await withPodiumStack(.init(adminKey: admin)) { stack in
            let host = try await ChallengeFlowTests.player(stack, "host")
            let friend = try await ChallengeFlowTests.player(stack, "pal")
            let stranger = try await ChallengeFlowTests.player(stack, "stranger")
            let operatorClient = try TestClient(endpoint: stack.endpoints.requests)
            operatorClient.use(.adminKey(admin))
            defer {
                ChallengeFlowTests.close([host, friend, stranger])
                Task { await operatorClient.close() }
            }
            try await ChallengeFlowTests.befriend(host, friend)
            let started = try await host.client.call(
                ChallengeRequests.start,
                TimedChallengeStart(boardId: "dash.highscore", durationMilliseconds: 600_000, receivers: [friend.id]),
                gameId: "dash")
            let inviteRequest = ChallengeInviteRequest(challengeId: started.challengeId)
            #expect(
                try await stranger.client.exchange(ChallengeRequests.invite, inviteRequest, gameId: "dash").errorCode
                    == .unknownChallenge,
                "only participants make codes")
            let invite = try await host.client.call(ChallengeRequests.invite, inviteRequest, gameId: "dash")
            #expect(invite.purpose == .challenge && invite.challengeId == started.challengeId)

            // A code of this challenge does nothing in another game, and a friend code joins nothing.
            let code = InviteEntry(code: invite.code)
            #expect(
                try await stranger.client.exchange(ChallengeRequests.join, code, gameId: "blackjack").errorCode
                    == .unknownInvite)
            let friendCode = try await host.client.call(AuthRequests.createInvite, InviteRequest())
            #expect(
                try await stranger.client.exchange(
                    ChallengeRequests.join, InviteEntry(code: friendCode.code), gameId: "dash"
                ).errorCode
                    == .unknownInvite)
            #expect(try await stranger.client.exchange(AuthRequests.redeemInvite, code).errorCode == .conflict)

            let joined = try await stranger.client.exchange(
                ChallengeRequests.join, code, gameId: "dash", id: "join-by-code")
            #expect(joined.isSuccess, "\(joined.text)")
            #expect(Set(try joined.value().receivers.map(\.playerId)) == [host.id, friend.id, stranger.id])
            let told = try await ChallengeFlowTests.next(host, kind: "challenge.joined")
            #expect(
                told.details["playerId"]?.stringValue == stranger.id
                    && told.details["challengeId"]?.stringValue == started.challengeId)
            // A resend of that request (the same id: after a timeout, say) is the same entry of the
            // code and counts no second use; joining again with a new request changes nothing
            // but the count.
            func uses() async throws -> Int? {
                try await host.client.call(AuthRequests.listInvites).invites.first { $0.code == invite.code }?.uses
            }
            let counted = try #require(try await uses())
            let resent = try await stranger.client.call(
                ChallengeRequests.join, code, gameId: "dash", id: "join-by-code")
            #expect(resent.receivers.count == 3)
            #expect(try await uses() == counted, "a resend is the same entry")
            let again = try await stranger.client.call(ChallengeRequests.join, code, gameId: "dash")
            #expect(again.receivers.count == 3)
            #expect(try await uses() == counted + 1, "a new request is a new entry")
            // The stranger's score counts in the window.
            #expect(
                try await stranger.client.exchange(
                    LeaderboardRequests.submit, ScoreSubmission(boardId: "dash.highscore", value: 77), gameId: "dash"
                )
                .isSuccess)

            // Once the challenge has ended, the code joins nothing.
            _ = try await operatorClient.exchange(
                ChallengeRequests.end, ChallengeTarget(challengeId: started.challengeId), gameId: "dash")
            let ended = try await ChallengeFlowTests.next(stranger, kind: "challenge.ended")
            #expect(ended.details["standings"] == [["playerId": .string(stranger.id), "rank": 1, "value": 77]])
            let (late, _) = try await stack.player("latecomer")
            defer { Task { await late.close() } }
            #expect(try await late.exchange(ChallengeRequests.join, code, gameId: "dash").errorCode == .conflict)
        }
    }
}
