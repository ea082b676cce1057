import Foundation
import PodiumMessages
import PodiumTesting
import Testing

/// Joining a time-boxed challenge with an invite code, through the gateway over real sockets.
@Suite("Joining by code")
struct ChallengeJoinTests {
    @Test("a stranger joins a running challenge by code, the sharer is told, and wrong, friend, ended and other-game codes are refused")
    func joinByCode() async throws {
        let admin = String(repeating: "a", count: 40)
        try await withPodiumStack(.init(adminKey: admin)) { stack in
            let host = try await ChallengeFlowTests.player(stack, "host")
            let friend = try await ChallengeFlowTests.player(stack, "pal")
            let stranger = try await ChallengeFlowTests.player(stack, "stranger")
            let operatorClient = try TestClient(endpoint: stack.endpoints.requests)
            operatorClient.use(.adminKey(admin))
            defer { ChallengeFlowTests.close([host, friend, stranger]); Task { await operatorClient.close() } }
            try await ChallengeFlowTests.befriend(host, friend)
            let started = try await host.client.request(
                "challenge.start", gameId: "dash",
                payload: ["boardId": "dash.highscore", "durationMilliseconds": 600_000, "receivers": [.string(friend.id)]]
            ).decodePayload(as: ChallengeDetail.self)
            #expect(try await stranger.client.request(
                "challenge.invite", gameId: "dash", payload: ["challengeId": .string(started.challengeId)]).errorCode == .unknownChallenge,
                "only participants make codes")
            let invite = try await host.client.request(
                "challenge.invite", gameId: "dash", payload: ["challengeId": .string(started.challengeId)]
            ).decodePayload(as: Invite.self)
            #expect(invite.purpose == .challenge && invite.challengeId == started.challengeId)

            // A code of this challenge does nothing in another game, and a friend code joins nothing.
            #expect(try await stranger.client.request("challenge.join", gameId: "blackjack", payload: ["code": .string(invite.code)])
                .errorCode == .unknownInvite)
            let friendCode = try await host.client.request("auth.invites.create").decodePayload(as: Invite.self)
            #expect(try await stranger.client.request("challenge.join", gameId: "dash", payload: ["code": .string(friendCode.code)])
                .errorCode == .unknownInvite)
            #expect(try await stranger.client.request("auth.invites.redeem", payload: ["code": .string(invite.code)]).errorCode == .conflict)

            let joined = try await stranger.client.request("challenge.join", gameId: "dash", payload: ["code": .string(invite.code)])
            #expect(joined.type == .reply, "\(joined.payload)")
            #expect(Set(try joined.decodePayload(as: ChallengeDetail.self).receivers.map(\.playerId)) == [host.id, friend.id, stranger.id])
            let told = try await ChallengeFlowTests.next(host, kind: "challenge.joined")
            #expect(told.details["playerId"]?.stringValue == stranger.id && told.details["challengeId"]?.stringValue == started.challengeId)
            // Joining again changes nothing.
            let again = try await stranger.client.request("challenge.join", gameId: "dash", payload: ["code": .string(invite.code)])
                .decodePayload(as: ChallengeDetail.self)
            #expect(again.receivers.count == 3)
            // The stranger's score counts in the window.
            #expect(try await stranger.client.request("leaderboard.submit", gameId: "dash", payload: ["boardId": "dash.highscore", "value": 77]).type == .reply)

            // Once the challenge has ended, the code joins nothing.
            _ = try await operatorClient.request("challenge.admin.end", gameId: "dash", payload: ["challengeId": .string(started.challengeId)])
            let ended = try await ChallengeFlowTests.next(stranger, kind: "challenge.ended")
            #expect(ended.details["standings"] == [["playerId": .string(stranger.id), "rank": 1, "value": 77]])
            let (late, _) = try await stack.player("latecomer")
            defer { Task { await late.close() } }
            #expect(try await late.request("challenge.join", gameId: "dash", payload: ["code": .string(invite.code)]).errorCode == .conflict)
        }
    }
}
