import Foundation
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
            let listed = try await a.client.request("challenge.definitions", gameId: "dash").decodePayload(as: ChallengeDefinitionList.self)
            #expect(listed.definitions.map(\.id) == ["dash.sprint", "dash.once"], "a player sees the released ones")
            func start(_ payload: JSONValue) async throws -> RawEnvelope {
                try await a.client.request("challenge.start", gameId: "dash", payload: payload)
            }
            #expect(try await start(["definitionId": "dash.sprint", "durationMilliseconds": 120_000, "receivers": [.string(b.id)]])
                .errorCode == .invalidField, "not one of its durations")
            #expect(try await start(["definitionId": "dash.nope", "durationMilliseconds": 600_000, "receivers": [.string(b.id)]])
                .errorCode == .invalidField)
            #expect(try await start(["definitionId": "dash.secret", "durationMilliseconds": 600_000, "receivers": [.string(b.id)]])
                .errorCode == .invalidField, "prerelease: not for players")
            let started = try await start(["definitionId": "dash.sprint", "durationMilliseconds": 600_000, "receivers": [.string(b.id)]])
                .decodePayload(as: ChallengeDetail.self)
            #expect(started.definitionId == "dash.sprint" && started.attemptsAllowed == 3 && started.boardId == "dash.highscore")
            #expect(started.receivers.allSatisfy { $0.attempts == 0 })

            func submit(_ player: ChallengeFlowTests.Player, _ value: Int64, tagged: Bool = true) async throws {
                var payload: [String: JSONValue] = ["boardId": "dash.highscore", "value": .integer(value)]
                if tagged { payload["challengeId"] = .string(started.challengeId) }
                #expect(try await player.client.request("leaderboard.submit", gameId: "dash", payload: .object(payload)).type == .reply)
            }
            for value in [10, 30, 20, 50] as [Int64] { try await submit(a, value) }  // the fourth run is past the three
            try await submit(b, 100, tagged: false)  // not a run of this challenge
            try await submit(b, 40)
            var detail = started
            for _ in 0..<100 {
                detail = try await a.client.request("challenge.detail", gameId: "dash", payload: ["challengeId": .string(started.challengeId)])
                    .decodePayload(as: ChallengeDetail.self)
                if detail.receivers.map({ $0.attempts ?? 0 }).reduce(0, +) == 4 { break }
                try await Task.sleep(for: .milliseconds(50))
            }
            let runner = try #require(detail.receivers.first { $0.playerId == a.id })
            let rival = try #require(detail.receivers.first { $0.playerId == b.id })
            #expect(runner.attempts == 3 && runner.value == 30, "\(runner)")
            #expect(rival.attempts == 1 && rival.value == 40, "\(rival)")
            #expect(try await a.client.request(
                "leaderboard.submit", gameId: "dash", payload: ["boardId": "dash.highscore", "value": 1, "challengeId": "not an id"]
            ).errorCode == .invalidField)
            let live = try await b.client.request("challenge.standings", gameId: "dash", payload: ["challengeId": .string(started.challengeId)])
                .decodePayload(as: ChallengeStandingsReply.self)
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
            #expect(try await outsider.request("challenge.standings", gameId: "dash", payload: ["challengeId": .string(started.challengeId)])
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
            defer { ChallengeFlowTests.close([a, b]); Task { await operatorClient.close() } }
            try await ChallengeFlowTests.befriend(a, b)
            let started = try await a.client.request(
                "challenge.start", gameId: "dash",
                payload: ["definitionId": "dash.sprint", "durationMilliseconds": 3_600_000, "receivers": [.string(b.id)]]
            ).decodePayload(as: ChallengeDetail.self)
            #expect(started.durationMilliseconds == 3_600_000)
            _ = try await operatorClient.request("challenge.admin.end", gameId: "dash", payload: ["challengeId": .string(started.challengeId)])
            _ = try await ChallengeFlowTests.next(a, kind: "challenge.ended")
            let again = try await b.client.request("challenge.rematch", gameId: "dash", payload: ["challengeId": .string(started.challengeId)])
            #expect(again.type == .reply, "\(again.payload)")
            let rematch = try again.decodePayload(as: ChallengeDetail.self)
            #expect(rematch.definitionId == "dash.sprint" && rematch.durationMilliseconds == 3_600_000 && rematch.rematchOf == started.challengeId)

            // A definition that is not repeatable is taken on once, by anyone in it.
            let once: JSONValue = ["definitionId": "dash.once", "durationMilliseconds": 600_000, "receivers": [.string(b.id)]]
            let first = try await a.client.request("challenge.start", gameId: "dash", payload: once)
            #expect(first.type == .reply)
            #expect(try first.decodePayload(as: ChallengeDetail.self).attemptsAllowed == 1)
            let second = try await a.client.request("challenge.start", gameId: "dash", payload: once)
            #expect(second.errorCode == .conflict)
            #expect(try second.decodePayload(as: ErrorReply.self).field == "payload.definitionId")
            let byGuest = try await b.client.request(
                "challenge.start", gameId: "dash", payload: ["definitionId": "dash.once", "durationMilliseconds": 600_000, "receivers": [.string(a.id)]])
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
