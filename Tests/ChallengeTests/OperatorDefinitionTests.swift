import Foundation
import PodiumMessages
import PodiumTesting
import Testing

/// Challenge definitions operators add and remove (`challenge.admin.define|remove`), and game
/// events as runs (`runEvent`), through the gateway over real sockets.
@Suite("Operator challenge definitions and runs by event")
struct OperatorDefinitionTests {
    static let admin = String(repeating: "a", count: 40)

    /// A lap challenge on the fastest board whose runs are `lap.done` events measuring `ms`.
    static let lap: JSONValue = [
        "id": "dash.lap", "title": "Fastest Lap", "details": "Your best lap of three.", "leaderboardId": "dash.fastest",
        "durations": [600_000], "attempts": 3, "repeatable": true, "runEvent": ["name": "lap.done", "measureAttribute": "ms"],
    ]

    static func operatorClient(_ stack: PodiumTestStack) throws -> TestClient {
        let client = try TestClient(endpoint: stack.endpoints.requests)
        client.use(.adminKey(admin))
        return client
    }

    static func definitions(_ client: TestClient) async throws -> [String] {
        try await client.request("challenge.definitions", gameId: "dash").decodePayload(as: ChallengeDefinitionList.self).definitions.map(\.id)
    }

    static func with(_ definition: JSONValue, _ key: String, _ value: JSONValue?) -> JSONValue {
        guard case .object(var members) = definition else { return definition }
        members[key] = value
        return .object(members)
    }

    @Test("an operator's definition is checked like a game file's, refused whole when broken, kept across a restart, and removable")
    func defineAndRemove() async throws {
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("podium-definitions-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: data) }
        let options = PodiumTestStack.Options(adminKey: Self.admin, auth: PodiumTestStack.testAuthConfiguration, dataDirectory: data)
        try await withPodiumStack(options) { stack in
            let operatorClient = try Self.operatorClient(stack)
            let (player, _) = try await stack.player("looker")
            defer { Task { await operatorClient.close(); await player.close() } }
            let before = try await Self.definitions(player)

            // Each broken rule is refused with the field it concerns, and changes nothing.
            let broken: [(JSONValue, String)] = [
                (Self.with(Self.lap, "leaderboardId", "dash.nope"), "payload.definition.leaderboardId"),
                (Self.with(Self.lap, "attempts", 2), "payload.definition"),
                (Self.with(Self.lap, "durations", []), "payload.definition"),
                (Self.with(Self.lap, "durations", [1000]), "payload.definition"),
                (Self.with(Self.lap, "id", "bad id!"), "payload.definition"),
                (Self.with(Self.lap, "title", ""), "payload.definition"),
                (Self.with(Self.lap, "image", "ftp://example.com/x.png"), "payload.definition"),
                (Self.with(Self.lap, "runEvent", ["name": "Lap Done"]), "payload.definition"),
                (Self.with(Self.lap, "runEvent", ["name": "lap.done", "measureAttribute": ""]), "payload.definition"),
            ]
            for (definition, field) in broken {
                let reply = try await operatorClient.request("challenge.admin.define", gameId: "dash", payload: ["definition": definition])
                #expect(reply.errorCode == .invalidField, "\(definition)")
                #expect(try reply.decodePayload(as: ErrorReply.self).field == field, "\(definition)")
            }
            let missing = try await operatorClient.request(
                "challenge.admin.define", gameId: "dash", payload: ["definition": Self.with(Self.lap, "title", nil)])
            #expect(missing.type == .error, "a definition without a title")
            #expect(try await Self.definitions(player) == before)
            #expect(try await player.request("challenge.admin.define", gameId: "dash", payload: ["definition": Self.lap]).type == .error,
                    "players may not define")

            let defined = try await operatorClient.request("challenge.admin.define", gameId: "dash", payload: ["definition": Self.lap])
            #expect(defined.type == .reply, "\(defined.payload)")
            let kept = try defined.decodePayload(as: ChallengeDefinitionChange.self).definition
            #expect(kept.runEvent == .init(name: "lap.done", measureAttribute: "ms") && kept.attempts == .limited(3) && kept.releaseState == .released)
            #expect(try await Self.definitions(player) == before + ["dash.lap"])
            // Replacing a game file's definition keeps its place; removing one of them is kept too.
            let retitled = try await operatorClient.request(
                "challenge.admin.define", gameId: "dash",
                payload: ["definition": ["id": "dash.once", "title": "Just Once", "details": "One run.", "leaderboardId": "dash.highscore", "durations": [600_000]]])
            #expect(retitled.type == .reply)
            let removed = try await operatorClient.request("challenge.admin.remove", gameId: "dash", payload: ["definitionId": "dash.sprint"])
            #expect(try removed.decodePayload(as: ChallengeDefinitionRemoval.self) == .init(definitionId: "dash.sprint", removed: true))
            let again = try await operatorClient.request("challenge.admin.remove", gameId: "dash", payload: ["definitionId": "dash.sprint"])
            #expect(try again.decodePayload(as: ChallengeDefinitionRemoval.self) == .init(definitionId: "dash.sprint", removed: false),
                    "removed already: nothing changes, and a resend is answered")
            let unknown = try await operatorClient.request("challenge.admin.remove", gameId: "dash", payload: ["definitionId": "dash.never"])
            #expect(unknown.errorCode == .unknownChallenge)
            #expect(try unknown.decodePayload(as: ErrorReply.self).field == "payload.definitionId")
            let gone = try await player.request(
                "challenge.start", gameId: "dash", payload: ["definitionId": "dash.sprint", "durationMilliseconds": 600_000, "receivers": []])
            #expect(gone.errorCode == .invalidField)
        }
        // After a restart, the operators' changes are still on top of the game files.
        try await withPodiumStack(options) { stack in
            let operatorClient = try Self.operatorClient(stack)
            defer { Task { await operatorClient.close() } }
            let list = try await operatorClient.request("challenge.definitions", gameId: "dash").decodePayload(as: ChallengeDefinitionList.self)
            #expect(list.definitions.map(\.id) == ["dash.secret", "dash.once", "dash.lap"])
            #expect(list.definitions.first { $0.id == "dash.once" }?.title == "Just Once")
        }
    }

    @Test("game events a definition names are its runs: measured, best of the attempts, only the named challenge, only while it runs")
    func runsByEvent() async throws {
        try await withPodiumStack(.init(adminKey: Self.admin)) { stack in
            let operatorClient = try Self.operatorClient(stack)
            let a = try await ChallengeFlowTests.player(stack, "lapper")
            let b = try await ChallengeFlowTests.player(stack, "chaser")
            defer { ChallengeFlowTests.close([a, b]); Task { await operatorClient.close() } }
            try await ChallengeFlowTests.befriend(a, b)
            #expect(try await operatorClient.request("challenge.admin.define", gameId: "dash", payload: ["definition": Self.lap]).type == .reply)
            func start(_ by: ChallengeFlowTests.Player, _ other: ChallengeFlowTests.Player) async throws -> ChallengeDetail {
                try await by.client.request(
                    "challenge.start", gameId: "dash",
                    payload: ["definitionId": "dash.lap", "durationMilliseconds": 600_000, "receivers": [.string(other.id)]]
                ).decodePayload(as: ChallengeDetail.self)
            }
            // Events before the challenge started are no runs.
            #expect(try await a.client.request(.eventPublish, gameId: "dash", payload: ["name": "lap.done", "attributes": ["ms": 1]]).type == .reply)
            let first = try await start(a, b)
            let second = try await start(b, a)
            #expect(first.boardId == "dash.fastest" && first.attemptsAllowed == 3)
            #expect(first.receivers.map(\.playerId) == [a.id, b.id].sorted(), "sorted by player id, as in every view (12.1)")
            func lap(_ player: ChallengeFlowTests.Player, _ attributes: JSONValue, value: Int64? = nil) async throws {
                var payload: [String: JSONValue] = ["name": "lap.done", "attributes": attributes]
                if let value { payload["value"] = .integer(value) }
                #expect(try await player.client.request(.eventPublish, gameId: "dash", payload: .object(payload)).type == .reply)
            }
            try await lap(a, ["ms": 900, "challengeId": .string(first.challengeId)])
            try await lap(a, ["lap": 2], value: 5)  // no `ms`: not a run (the value is not what is measured)
            try await lap(a, ["ms": 700, "challengeId": .string(first.challengeId)])
            try await lap(a, ["ms": 800, "challengeId": .string(first.challengeId)])
            try await lap(a, ["ms": 100, "challengeId": .string(first.challengeId)])  // past the three attempts
            try await lap(b, ["ms": 750])  // counts for both challenges b takes part in
            try await lap(a, ["ms": 650, "challengeId": .string(second.challengeId)])  // only the second
            func standings(_ id: String) async throws -> ChallengeStandingsReply {
                try await a.client.request("challenge.standings", gameId: "dash", payload: ["challengeId": .string(id)])
                    .decodePayload(as: ChallengeStandingsReply.self)
            }
            var firstOrder = try await standings(first.challengeId)
            var secondOrder = try await standings(second.challengeId)
            for _ in 0..<200 {
                if firstOrder.standings.compactMap(\.attempts).reduce(0, +) == 4 && secondOrder.standings.compactMap(\.attempts).reduce(0, +) == 2 { break }
                try await Task.sleep(for: .milliseconds(50))
                firstOrder = try await standings(first.challengeId)
                secondOrder = try await standings(second.challengeId)
            }
            #expect(firstOrder.standings.map(\.playerId) == [a.id, b.id], "lower is better on the fastest board")
            #expect(firstOrder.standings.map(\.value) == [700, 750] && firstOrder.standings.map(\.attempts) == [3, 1])
            #expect(secondOrder.standings.map(\.playerId) == [a.id, b.id])
            #expect(secondOrder.standings.map(\.value) == [650, 750] && secondOrder.standings.map(\.attempts) == [1, 1])
            // Runs by event are not leaderboard submissions.
            let entry = try await a.client.request("leaderboard.entry", gameId: "dash", payload: ["boardId": "dash.fastest"])
                .decodePayload(as: EntryReply.self)
            #expect(entry.entry == nil)
            // The participants heard the order change.
            let heard = try await ChallengeFlowTests.next(b, kind: "challenge.standings")
            #expect([first.challengeId, second.challengeId].contains(heard.details["challengeId"]?.stringValue ?? ""))
        }
    }
}
