import Foundation
import PodiumClient
import PodiumMessages
import PodiumTesting
import Testing

/// Challenge definitions operators add and remove (`challenge.admin.define|remove`), and game
/// events as runs (`runEvent`), through the gateway over real sockets.
@Suite("Operator challenge definitions and runs by event")
struct OperatorDefinitionTests {
    static let admin = String(repeating: "a", count: 40)

    /// A lap challenge on the fastest board whose runs are `lap.done` events measuring `ms`.
    static let lap = ChallengeDefinition(
        id: "dash.lap", title: "Fastest Lap", details: "Your best lap of three.", leaderboardId: "dash.fastest",
        durations: [600_000],
        attempts: .limited(3), repeatable: true, runEvent: .init(name: "lap.done", measureAttribute: "ms"))

    static func operatorClient(_ stack: PodiumTestStack) throws -> TestClient {
        let client = try TestClient(endpoint: stack.endpoints.requests)
        client.use(.adminKey(admin))
        return client
    }

    static func definitions(_ client: TestClient) async throws -> [String] {
        try await client.call(ChallengeRequests.definitions, gameId: "dash").definitions.map(\.id)
    }

    static func with(_ change: (inout ChallengeDefinition) -> Void) -> ChallengeDefinition {
        var definition = lap
        change(&definition)
        return definition
    }

    static func define(_ client: TestClient, _ definition: ChallengeDefinition) async throws -> PodiumReply<
        ChallengeDefinitionChange
    > {
        try await client.exchange(
            ChallengeRequests.define, ChallengeDefinitionChange(definition: definition), gameId: "dash")
    }

    @Test(
        "an operator's definition is checked like a game file's, refused whole when broken, kept across a restart, and removable"
    )
    func defineAndRemove() async throws {
        let data = FileManager.default.temporaryDirectory.appendingPathComponent(
            "podium-definitions-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: data) }
        let options = PodiumTestStack.Options(
            adminKey: Self.admin, auth: PodiumTestStack.testAuthConfiguration, dataDirectory: data)
        try await withPodiumStack(options) { stack in
            let operatorClient = try Self.operatorClient(stack)
            let (player, _) = try await stack.player("looker")
            defer {
                Task {
                    await operatorClient.close()
                    await player.close()
                }
            }
            let before = try await Self.definitions(player)

            // Each broken rule is refused with the field it concerns, and changes nothing.
            let broken: [(ChallengeDefinition, String)] = [
                (Self.with { $0.leaderboardId = "dash.nope" }, "payload.definition.leaderboardId"),
                (Self.with { $0.attempts = .limited(2) }, "payload.definition"),
                (Self.with { $0.durations = [] }, "payload.definition"),
                (Self.with { $0.durations = [1000] }, "payload.definition"),
                (Self.with { $0.id = "bad id!" }, "payload.definition"),
                (Self.with { $0.title = "" }, "payload.definition"),
                (Self.with { $0.image = "ftp://example.com/x.png" }, "payload.definition"),
                (Self.with { $0.runEvent = .init(name: "Lap Done") }, "payload.definition"),
                (Self.with { $0.runEvent = .init(name: "lap.done", measureAttribute: "") }, "payload.definition"),
            ]
            for (definition, field) in broken {
                let reply = try await Self.define(operatorClient, definition)
                #expect(reply.errorCode == .invalidField, "\(definition)")
                #expect(reply.error?.errorReply?.field == field, "\(definition)")
            }
            // A definition without a title: no typed definition can say that.
            guard case .object(var untitled) = try WireCodec.jsonValue(Self.lap) else {
                Issue.record("not an object")
                return
            }
            untitled["title"] = nil
            let missing = try await operatorClient.request(
                ChallengeRequests.define.type, gameId: "dash", payload: .object(["definition": .object(untitled)]))
            #expect(missing.type == .error, "a definition without a title")
            #expect(try await Self.definitions(player) == before)
            #expect(try await Self.define(player, Self.lap).envelope.type == .error, "players may not define")

            let defined = try await Self.define(operatorClient, Self.lap)
            #expect(defined.isSuccess, "\(defined.text)")
            let kept = try defined.value().definition
            #expect(
                kept.runEvent == .init(name: "lap.done", measureAttribute: "ms") && kept.attempts == .limited(3)
                    && kept.releaseState == .released)
            #expect(try await Self.definitions(player) == before + ["dash.lap"])
            // Replacing a game file's definition keeps its place; removing one of them is kept too.
            let retitled = try await Self.define(
                operatorClient,
                ChallengeDefinition(
                    id: "dash.once", title: "Just Once", details: "One run.", leaderboardId: "dash.highscore",
                    durations: [600_000]))
            #expect(retitled.isSuccess)
            func remove(_ id: String) async throws -> PodiumReply<ChallengeDefinitionRemoval> {
                try await operatorClient.exchange(
                    ChallengeRequests.remove, ChallengeDefinitionTarget(definitionId: id), gameId: "dash")
            }
            #expect(try await remove("dash.sprint").value() == .init(definitionId: "dash.sprint", removed: true))
            #expect(
                try await remove("dash.sprint").value() == .init(definitionId: "dash.sprint", removed: false),
                "removed already: nothing changes, and a resend is answered")
            let unknown = try await remove("dash.never")
            #expect(unknown.errorCode == .unknownChallenge)
            #expect(unknown.error?.errorReply?.field == "payload.definitionId")
            let gone = try await player.exchange(
                ChallengeRequests.start,
                TimedChallengeStart(
                    boardId: nil, definitionId: "dash.sprint", durationMilliseconds: 600_000, receivers: []),
                gameId: "dash")
            #expect(gone.errorCode == .invalidField)
        }
        // After a restart, the operators' changes are still on top of the game files.
        try await withPodiumStack(options) { stack in
            let operatorClient = try Self.operatorClient(stack)
            defer { Task { await operatorClient.close() } }
            let list = try await operatorClient.call(ChallengeRequests.definitions, gameId: "dash")
            #expect(list.definitions.map(\.id) == ["dash.secret", "dash.once", "dash.lap"])
            #expect(list.definitions.first { $0.id == "dash.once" }?.title == "Just Once")
        }
    }

    @Test(
        "game events a definition names are its runs: measured, best of the attempts, only the named challenge, only while it runs"
    )
    func runsByEvent() async throws {
        try await withPodiumStack(.init(adminKey: Self.admin)) { stack in
            let operatorClient = try Self.operatorClient(stack)
            let a = try await ChallengeFlowTests.player(stack, "lapper")
            let b = try await ChallengeFlowTests.player(stack, "chaser")
            defer {
                ChallengeFlowTests.close([a, b])
                Task { await operatorClient.close() }
            }
            try await ChallengeFlowTests.befriend(a, b)
            #expect(try await Self.define(operatorClient, Self.lap).isSuccess)
            func start(_ by: ChallengeFlowTests.Player, _ other: ChallengeFlowTests.Player) async throws
                -> ChallengeDetail
            {
                try await by.client.call(
                    ChallengeRequests.start,
                    TimedChallengeStart(
                        boardId: nil, definitionId: "dash.lap", durationMilliseconds: 600_000, receivers: [other.id]),
                    gameId: "dash")
            }
            // Events before the challenge started are no runs.
            #expect(
                try await a.client.exchange(
                    GatewayRequests.publish, GameEvent(name: "lap.done", attributes: ["ms": 1]), gameId: "dash"
                ).isSuccess)
            let first = try await start(a, b)
            let second = try await start(b, a)
            #expect(first.boardId == "dash.fastest" && first.attemptsAllowed == 3)
            #expect(
                first.receivers.map(\.playerId) == [a.id, b.id].sorted(), "sorted by player id, as in every view (12.1)"
            )
            func lap(_ player: ChallengeFlowTests.Player, _ attributes: [String: JSONValue], value: Int64? = nil)
                async throws
            {
                let event = GameEvent(name: "lap.done", value: value, attributes: attributes)
                #expect(try await player.client.exchange(GatewayRequests.publish, event, gameId: "dash").isSuccess)
            }
            try await lap(a, ["ms": 900, "challengeId": .string(first.challengeId)])
            try await lap(a, ["lap": 2], value: 5)  // no `ms`: not a run (the value is not what is measured)
            try await lap(a, ["ms": 700, "challengeId": .string(first.challengeId)])
            try await lap(a, ["ms": 800, "challengeId": .string(first.challengeId)])
            try await lap(a, ["ms": 100, "challengeId": .string(first.challengeId)])  // past the three attempts
            try await lap(b, ["ms": 750])  // counts for both challenges b takes part in
            try await lap(a, ["ms": 650, "challengeId": .string(second.challengeId)])  // only the second
            func standings(_ id: String) async throws -> ChallengeStandingsReply {
                try await a.client.call(ChallengeRequests.standings, ChallengeTarget(challengeId: id), gameId: "dash")
            }
            var firstOrder = try await standings(first.challengeId)
            var secondOrder = try await standings(second.challengeId)
            for _ in 0..<200 {
                if firstOrder.standings.compactMap(\.attempts).reduce(0, +) == 4
                    && secondOrder.standings.compactMap(\.attempts).reduce(0, +) == 2
                {
                    break
                }
                try await Task.sleep(for: .milliseconds(50))
                firstOrder = try await standings(first.challengeId)
                secondOrder = try await standings(second.challengeId)
            }
            #expect(firstOrder.standings.map(\.playerId) == [a.id, b.id], "lower is better on the fastest board")
            #expect(firstOrder.standings.map(\.value) == [700, 750] && firstOrder.standings.map(\.attempts) == [3, 1])
            #expect(secondOrder.standings.map(\.playerId) == [a.id, b.id])
            #expect(
                secondOrder.standings.map(\.value) == [650, 750] && secondOrder.standings.map(\.attempts) == [1, 1])
            // Runs by event are not leaderboard submissions.
            let entry = try await a.client.call(
                LeaderboardRequests.entry, BoardQuery(boardId: "dash.fastest"), gameId: "dash")
            #expect(entry.entry == nil)
            // The participants heard the order change.
            let heard = try await ChallengeFlowTests.next(b, kind: "challenge.standings")
            #expect([first.challengeId, second.challengeId].contains(heard.details["challengeId"]?.stringValue ?? ""))
        }
    }
}
