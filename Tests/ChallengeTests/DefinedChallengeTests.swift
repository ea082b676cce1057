import Foundation
import PodiumClient
import PodiumMessages
import PodiumTesting
import Testing

/// Challenges started from a studio's definition, through the gateway over real sockets.
@Suite("Defined challenges")
struct DefinedChallengeTests {
    @Test("a defined challenge counts only runs tagged with it, the best of the allowed attempts")
    func attempts() async throws {
        try await withPodiumStack { stack in
            let a = try await ChallengeFlowTests.player(stack, "runner")
            let b = try await ChallengeFlowTests.player(stack, "rival")
            defer { ChallengeFlowTests.close([a, b]) }
            try await ChallengeFlowTests.befriend(a, b)
            let listed = try await a.client.call(ChallengeRequests.definitions, gameId: "dash")
            #expect(listed.definitions.map(\.id) == ["dash.sprint", "dash.once"], "a player sees the released ones")
            func start(_ definition: String, _ duration: Int64) async throws -> PodiumReply<ChallengeDetail> {
                try await a.client.exchange(
                    ChallengeRequests.start,
                    TimedChallengeStart(
                        boardId: nil, definitionId: definition, durationMilliseconds: duration, receivers: [b.id]),
                    gameId: "dash")
            }
            #expect(try await start("dash.sprint", 120_000).errorCode == .invalidField, "not one of its durations")
            #expect(try await start("dash.nope", 600_000).errorCode == .invalidField)
            #expect(try await start("dash.secret", 600_000).errorCode == .invalidField, "prerelease: not for players")
            let started = try await start("dash.sprint", 600_000).value()
            #expect(
                started.definitionId == "dash.sprint" && started.attemptsAllowed == 3
                    && started.boardId == "dash.highscore")
            #expect(started.receivers.allSatisfy { $0.attempts == 0 })

            func submit(_ player: ChallengeFlowTests.Player, _ value: Int64, tagged: Bool = true) async throws {
                let submission = ScoreSubmission(
                    boardId: "dash.highscore", value: value, challengeId: tagged ? started.challengeId : nil)
                #expect(
                    try await player.client.exchange(LeaderboardRequests.submit, submission, gameId: "dash").isSuccess)
            }
            for value in [10, 30, 20, 50] as [Int64] { try await submit(a, value) }  // the fourth run is past the three
            try await submit(b, 100, tagged: false)  // not a run of this challenge
            try await submit(b, 40)
            var detail = started
            for _ in 0..<100 {
                detail = try await a.client.call(
                    ChallengeRequests.detail, ChallengeTarget(challengeId: started.challengeId), gameId: "dash")
                if detail.receivers.map({ $0.attempts ?? 0 }).reduce(0, +) == 4 { break }
                try await Task.sleep(for: .milliseconds(50))
            }
            let runner = try #require(detail.receivers.first { $0.playerId == a.id })
            let rival = try #require(detail.receivers.first { $0.playerId == b.id })
            #expect(runner.attempts == 3 && runner.value == 30, "\(runner)")
            #expect(rival.attempts == 1 && rival.value == 40, "\(rival)")
            #expect(
                try await a.client.exchange(
                    LeaderboardRequests.submit,
                    ScoreSubmission(boardId: "dash.highscore", value: 1, challengeId: "not an id"), gameId: "dash"
                ).errorCode == .invalidField)
            let live = try await b.client.call(
                ChallengeRequests.standings, ChallengeTarget(challengeId: started.challengeId), gameId: "dash")
            #expect(live.state == .running)
            #expect(live.standings.map(\.playerId) == [b.id, a.id] && live.standings.map(\.value) == [40, 30])
            #expect(live.standings.map(\.rank) == [1, 2] && live.standings.map(\.attempts) == [1, 3])
            // The participants heard the order change, live: the last word has the rival first.
            var heard: PlayerNotification?
            while heard?.details["standings"]?.arrayValueFirstPlayer != b.id {
                heard = try await ChallengeFlowTests.next(a, kind: "challenge.standings")
            }
            #expect(heard?.details["challengeId"]?.stringValue == started.challengeId)
            let (outsider, _) = try await stack.player("outsider")
            defer { Task { await outsider.close() } }
            #expect(
                try await outsider.exchange(
                    ChallengeRequests.standings, ChallengeTarget(challengeId: started.challengeId), gameId: "dash"
                )
                .errorCode == .unknownChallenge)
        }
    }
}

extension DefinedChallengeTests {
    @Test("a rematch of a challenge an operator ended early runs for the duration asked, on the same definition")
    func rematchAfterEarlyEnd() async throws {
        let admin = String(repeating: "a", count: 40)
        try await withPodiumStack(.init(adminKey: admin)) { stack in
            let a = try await ChallengeFlowTests.player(stack, "host")
            let b = try await ChallengeFlowTests.player(stack, "guest")
            let operatorClient = try TestClient(endpoint: stack.endpoints.requests)
            operatorClient.use(.adminKey(admin))
            defer {
                ChallengeFlowTests.close([a, b])
                Task { await operatorClient.close() }
            }
            try await ChallengeFlowTests.befriend(a, b)
            let started = try await a.client.call(
                ChallengeRequests.start,
                TimedChallengeStart(
                    boardId: nil, definitionId: "dash.sprint", durationMilliseconds: 3_600_000, receivers: [b.id]),
                gameId: "dash")
            #expect(started.durationMilliseconds == 3_600_000)
            _ = try await operatorClient.exchange(
                ChallengeRequests.end, ChallengeTarget(challengeId: started.challengeId), gameId: "dash")
            _ = try await ChallengeFlowTests.next(a, kind: "challenge.ended")
            let again = try await b.client.exchange(
                ChallengeRequests.rematch, ChallengeTarget(challengeId: started.challengeId), gameId: "dash")
            #expect(again.isSuccess, "\(again.text)")
            let rematch = try again.value()
            #expect(
                rematch.definitionId == "dash.sprint" && rematch.durationMilliseconds == 3_600_000
                    && rematch.rematchOf == started.challengeId)

            // A definition that is not repeatable is taken on once, by anyone in it.
            let once = TimedChallengeStart(
                boardId: nil, definitionId: "dash.once", durationMilliseconds: 600_000, receivers: [b.id])
            let first = try await a.client.exchange(ChallengeRequests.start, once, gameId: "dash")
            #expect(first.isSuccess)
            #expect(try first.value().attemptsAllowed == 1)
            let second = try await a.client.exchange(ChallengeRequests.start, once, gameId: "dash")
            #expect(second.errorCode == .conflict)
            #expect(second.error?.errorReply?.field == "payload.definitionId")
            let byGuest = try await b.client.exchange(
                ChallengeRequests.start,
                TimedChallengeStart(
                    boardId: nil, definitionId: "dash.once", durationMilliseconds: 600_000, receivers: [a.id]),
                gameId: "dash")
            #expect(byGuest.errorCode == .conflict)
        }
    }
}

extension JSONValue {
    /// The `playerId` of an array's first object, if any.
    fileprivate var arrayValueFirstPlayer: String? {
        guard case .array(let items) = self else { return nil }
        return items.first?["playerId"]?.stringValue
    }
}
