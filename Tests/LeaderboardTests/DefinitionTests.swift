import Foundation
import PodiumMessages
import PodiumTesting
import Testing

@Suite("Leaderboard definitions and periods")
struct DefinitionTests {
    static let admin = String(repeating: "a", count: 40)

    @Test("a recurring board starts each period empty and keeps every ended period's final standings")
    func recurringArchive() async throws {
        let clock = OffsetClock()
        var auth = PodiumTestStack.testAuthConfiguration
        auth.sessionLifetimeMilliseconds = 86_400_000
        try await withPodiumStack(.init(clock: clock, auth: auth)) { stack in
            let (ann, annGrant) = try await stack.player("ann")
            let (bob, _) = try await stack.player("bob")
            defer { Task { await ann.close(); await bob.close() } }
            func submit(_ client: TestClient, _ value: Int64) async throws -> RawEnvelope {
                try await client.request("leaderboard.submit", gameId: "dash", payload: ["boardId": "dash.hourly", "value": .integer(value)])
            }
            let period = clock.nowMilliseconds / 3_600_000
            #expect(try await submit(ann, 70).type == .reply)
            #expect(try await submit(bob, 50).type == .reply)
            clock.advance(by: .seconds(3600))  // the period ends
            let fresh = try await ann.request("leaderboard.top", gameId: "dash", payload: ["boardId": "dash.hourly"])
                .decodePayload(as: LeaderboardPage.self)
            #expect(fresh.entries.isEmpty, "a new period starts empty")
            #expect(try await submit(bob, 10).type == .reply)
            let archived = try await ann.request(
                "leaderboard.top", gameId: "dash", payload: ["boardId": "dash.hourly", "period": .integer(period)]
            ).decodePayload(as: LeaderboardPage.self)
            #expect(archived.entries.map(\.value) == [70, 50])
            #expect(archived.entries.first?.playerId == annGrant.playerId)
            #expect(archived.scope == "period:\(period)")
            let current = try await ann.request(
                "leaderboard.top", gameId: "dash", payload: ["boardId": "dash.hourly", "period": .integer(period + 1)])
            #expect(current.type == .error, "the running period is not archived yet")
            let notRecurring = try await ann.request(
                "leaderboard.top", gameId: "dash", payload: ["boardId": "dash.highscore", "period": 0])
            #expect(notRecurring.type == .error)
        }
    }

    @Test("operators add and change boards; a board with scores cannot change its sort order; players cannot define")
    func adminDefinitions() async throws {
        try await withPodiumStack(.init(adminKey: Self.admin)) { stack in
            let (player, _) = try await stack.player("tinkerer")
            let operatorClient = try TestClient(endpoint: stack.endpoints.requests)
            operatorClient.use(.adminKey(Self.admin))
            defer { Task { await player.close(); await operatorClient.close() } }
            let board: JSONValue = ["id": "dash.new", "title": "New board", "sortOrder": "lowerIsBetter"]
            #expect(try await player.request("leaderboard.admin.define", gameId: "dash", payload: ["definition": board]).type == .error)
            #expect(try await operatorClient.request("leaderboard.admin.define", gameId: "dash", payload: ["definition": board]).type == .reply)
            #expect(try await player.request("leaderboard.submit", gameId: "dash", payload: ["boardId": "dash.new", "value": 30]).type == .reply)
            let flipped: JSONValue = ["id": "dash.new", "title": "New board", "sortOrder": "higherIsBetter"]
            let refused = try await operatorClient.request("leaderboard.admin.define", gameId: "dash", payload: ["definition": flipped])
            #expect(try refused.decodePayload(as: ErrorReply.self).code == .conflict)
            let renamed: JSONValue = ["id": "dash.new", "title": "Renamed", "sortOrder": "lowerIsBetter"]
            #expect(try await operatorClient.request("leaderboard.admin.define", gameId: "dash", payload: ["definition": renamed]).type == .reply)
            let boards = try await player.request("leaderboard.boards", gameId: "dash")
            guard case .array(let list)? = boards.payload["leaderboards"] else { Issue.record("no list"); return }
            #expect(list.contains { $0["id"] == "dash.new" && $0["title"] == "Renamed" })
            let sets = try await player.request("leaderboard.sets", gameId: "dash")
            #expect(sets.payload["leaderboardSets"]?.isScalar == false)
            let badBoard: JSONValue = ["id": "has space", "title": "x"]
            #expect(try await operatorClient.request("leaderboard.admin.define", gameId: "dash", payload: ["definition": badBoard]).type == .error)
            #expect(try await operatorClient.request("leaderboard.admin.remove", gameId: "dash", payload: ["boardId": "dash.new"]).type == .reply)
            let gone = try await player.request("leaderboard.submit", gameId: "dash", payload: ["boardId": "dash.new", "value": 1])
            #expect(try gone.decodePayload(as: ErrorReply.self).code == .unknownBoard)
        }
    }
}
