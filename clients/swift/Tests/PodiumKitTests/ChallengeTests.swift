import Foundation
import PodiumKit
import Testing

/// Challenges beyond the walkthrough's: declining, candidates, the studio's definitions, and a
/// time-boxed challenge with its standings, an invite code, its end and a rematch.
@Suite(.stack, .timeLimit(.minutes(2))) struct ChallengeTests {
    @Test func declineAndCandidates() async throws {
        let (wes, xia) = try await TestStack.friends("wes", "xia")
        let board = PodiumLeaderboard(id: "com.example.dash.highscore", for: wes)
        try await board.submitScore(300)
        #expect(try await PodiumChallenge.loadCandidates(boardId: board.id, score: 300, for: wes) == [xia.playerId!])
        let challenge = try await PodiumChallenge.issue(
            .score(boardId: board.id), to: [xia.playerId!], expiresIn: .seconds(3600), for: wes)
        let expected = challenge.createdDate.addingTimeInterval(3600)
        #expect(abs((challenge.expirationDate ?? .distantPast).timeIntervalSince(expected)) < 0.01)

        // docs:begin decline
        let pending = try await PodiumChallenge.loadReceivedChallenges(state: .pending, for: xia)
        for challenge in pending where challenge.issuerValue ?? 0 > 10_000 {
            try await challenge.decline(for: xia)
        }
        // docs:end decline
        #expect(pending.map(\.challengeId) == [challenge.challengeId])
        let declined = try await PodiumChallenge.load(id: challenge.challengeId, for: xia).decline(for: xia)
        #expect(declined.receiver(xia.playerId!)?.state == .declined)
        let again = await #expect(throws: PodiumError.self) { try await declined.decline(for: xia) }
        #expect(again?.code == .conflict)
        #expect(again?.field == "payload.challengeId")
        #expect(try await PodiumChallenge.loadReceivedChallenges(state: .declined, for: xia).count == 1)
    }

    @Test func definitionsTimedStandingsInviteEndAndRematch() async throws {
        let (yan, zoe) = try await TestStack.friends("yan", "zoe")
        let outsider = try await TestStack.player("ola")

        // docs:begin definitions
        let definitions = try await PodiumChallengeDefinition.loadDefinitions(for: yan)
        let sprint = definitions.first { $0.id == "com.example.dash.sprint" }!
        let race = try await sprint.start(duration: sprint.durations[0], with: [zoe.playerId!], for: yan)
        // docs:end definitions
        #expect(definitions.map(\.id) == ["com.example.dash.sprint", "com.example.dash.trial"])
        #expect(sprint.title == "Sprint")
        #expect(sprint.leaderboardId == "com.example.dash.highscore")
        #expect(sprint.durations == [.seconds(600), .seconds(3600), .seconds(86400)])
        #expect(sprint.attempts == 3)
        #expect(sprint.repeatable)
        #expect(race.kind == .timed)
        #expect(race.state == .running)
        #expect(race.definitionId == sprint.id)
        #expect(race.attemptsAllowed == 3)
        #expect(race.duration == .seconds(600))
        #expect(race.receivers.map(\.attempts) == [0, 0])
        #expect(Set(race.receivers.map(\.playerId)) == [yan.playerId!, zoe.playerId!])

        // A plain time-boxed challenge on the high-score board, joined with a code by a stranger.
        // docs:begin timed
        let highScore = PodiumLeaderboard(id: "com.example.dash.highscore", for: yan)
        let timed = try await PodiumChallenge.start(
            on: highScore.id, duration: .seconds(60), with: [zoe.playerId!], message: "quick race", for: yan)
        let invite = try await timed.makeInvite(for: yan)
        print("share \(invite.code) to let others join")
        // docs:end timed
        #expect(timed.endDate == timed.createdDate.addingTimeInterval(60))
        #expect(invite.purpose == "challenge")
        #expect(invite.challengeId == timed.challengeId)
        #expect(invite.code.count == 11)
        let joined = try await PodiumChallenge.join(code: invite.code.lowercased(), for: outsider)
        #expect(joined.receivers.contains { $0.playerId == outsider.playerId })

        try await PodiumLeaderboard(id: highScore.id, for: zoe).submitScore(6000)
        try await highScore.submitScore(5000)
        // Standings follow the scores as the challenge service reads them: wait for both.
        let standings = try await within(.seconds(15), "both scores in the standings") {
            while true {
                let standings = try await timed.loadStandings(for: yan)
                if standings.standings.count == 2 { return standings }
                try await Task.sleep(for: .milliseconds(100))
            }
        }
        #expect(standings.state == .running)
        #expect(standings.standings.map(\.playerId) == [zoe.playerId!, yan.playerId!])
        #expect(standings.standings.map(\.value) == [6000, 5000])
        #expect(standings.standings.map(\.rank) == [1, 2])

        // Still running: no rematch yet. An operator ends it; then Zoe starts the rematch.
        let early = await #expect(throws: PodiumError.self) { try await timed.rematch(for: zoe) }
        #expect(early?.code == .conflict)
        _ = try await TestStack.admin(post: "v1/admin/games/dash/challenges/\(timed.challengeId)/end")
        let ended = try await within(.seconds(15), "the end of the challenge") {
            while true {
                let detail = try await PodiumChallenge.load(id: timed.challengeId, for: zoe)
                if detail.state == .ended { return detail }
                try await Task.sleep(for: .milliseconds(100))
            }
        }
        #expect(ended.receivers.allSatisfy { $0.state == .completed })
        #expect(ended.receiver(zoe.playerId!)?.value == 6000)
        // The outsider is not Zoe's friend: her rematch with everyone is refused.
        let notFriends = await #expect(throws: PodiumError.self) { try await ended.rematch(for: zoe) }
        #expect(notFriends?.code == .forbidden)
        try await zoe.sendFriendRequest(to: outsider.playerId!)
        try await outsider.acceptFriendRequest(from: zoe.playerId!)
        let rematch = try await ended.rematch(for: zoe)
        #expect(rematch.rematchOf == timed.challengeId)
        #expect(rematch.issuerId == zoe.playerId)
        #expect(rematch.duration == .seconds(60))
        #expect(rematch.message == "quick race")
        #expect(rematch.state == .running)
    }
}
