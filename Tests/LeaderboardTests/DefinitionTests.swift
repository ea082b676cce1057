import Foundation
import PodiumClient
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
            defer {
                Task {
                    await ann.close()
                    await bob.close()
                }
            }
            func submit(_ client: TestClient, _ value: Int64) async throws -> PodiumReply<ScoreReceipt> {
                try await client.exchange(
                    LeaderboardRequests.submit, ScoreSubmission(boardId: "dash.hourly", value: value), gameId: "dash")
            }
            func top(_ board: String, period: Int64? = nil) async throws -> PodiumReply<LeaderboardPage> {
                try await ann.exchange(
                    LeaderboardRequests.top, BoardQuery(boardId: board, period: period), gameId: "dash")
            }
            let period = clock.nowMilliseconds / 3_600_000
            #expect(try await submit(ann, 70).isSuccess)
            #expect(try await submit(bob, 50).isSuccess)
            clock.advance(by: .seconds(3600))  // the period ends
            let fresh = try await top("dash.hourly").value()
            #expect(fresh.entries.isEmpty, "a new period starts empty")
            #expect(try await submit(bob, 10).isSuccess)
            let archived = try await top("dash.hourly", period: period).value()
            #expect(archived.entries.map(\.value) == [70, 50])
            #expect(archived.entries.first?.playerId == annGrant.playerId)
            #expect(archived.scope == "period:\(period)")
            let current = try await top("dash.hourly", period: period + 1)
            #expect(current.envelope.type == .error, "the running period is not archived yet")
            let notRecurring = try await top("dash.highscore", period: 0)
            #expect(notRecurring.envelope.type == .error)
        }
    }

    @Test("operators add and change boards; a board with scores cannot change its sort order; players cannot define")
    func adminDefinitions() async throws {
        try await withPodiumStack(.init(adminKey: Self.admin)) { stack in
            let (player, _) = try await stack.player("tinkerer")
            let operatorClient = try TestClient(endpoint: stack.endpoints.requests)
            operatorClient.use(.adminKey(Self.admin))
            defer {
                Task {
                    await player.close()
                    await operatorClient.close()
                }
            }
            func define(_ client: TestClient, _ board: LeaderboardDefinition) async throws -> PodiumReply<
                LeaderboardDefinitionChange
            > {
                try await client.exchange(
                    LeaderboardRequests.define, LeaderboardDefinitionChange(definition: board), gameId: "dash")
            }
            func submit(_ board: String, _ value: Int64) async throws -> PodiumReply<ScoreReceipt> {
                try await player.exchange(
                    LeaderboardRequests.submit, ScoreSubmission(boardId: board, value: value), gameId: "dash")
            }
            let board = LeaderboardDefinition(id: "dash.new", title: "New board", sortOrder: .lowerIsBetter)
            #expect(try await define(player, board).envelope.type == .error)
            #expect(try await define(operatorClient, board).isSuccess)
            #expect(try await submit("dash.new", 30).isSuccess)
            let flipped = LeaderboardDefinition(id: "dash.new", title: "New board", sortOrder: .higherIsBetter)
            #expect(try await define(operatorClient, flipped).errorCode == .conflict)
            let renamed = LeaderboardDefinition(id: "dash.new", title: "Renamed", sortOrder: .lowerIsBetter)
            #expect(try await define(operatorClient, renamed).isSuccess)
            let boards = try await player.call(LeaderboardRequests.boards, gameId: "dash")
            #expect(boards.leaderboards.contains { $0.id == "dash.new" && $0.title == "Renamed" })
            // The games to choose from: a game first named by an operator's board is one of them,
            // with its count of boards; players may not ask.
            try await operatorClient.call(
                LeaderboardRequests.define,
                LeaderboardDefinitionChange(definition: LeaderboardDefinition(id: "fresh.only", title: "Only")),
                gameId: "fresh-game")
            let games = try await operatorClient.call(LeaderboardRequests.games)
            #expect(games.games.map(\.gameId) == games.games.map(\.gameId).sorted())
            #expect(games.games.first { $0.gameId == "fresh-game" }?.leaderboards == 1)
            let dash = try #require(games.games.first { $0.gameId == "dash" })
            #expect(dash.leaderboards == boards.leaderboards.count)
            #expect(try await player.exchange(LeaderboardRequests.games, EmptyPayload()).errorCode == .forbidden)
            // The sets decode as a list (not a scalar).
            _ = try await player.call(LeaderboardRequests.sets, gameId: "dash")
            let badBoard = LeaderboardDefinition(id: "has space", title: "x")
            #expect(try await define(operatorClient, badBoard).envelope.type == .error)
            #expect(
                try await operatorClient.exchange(
                    LeaderboardRequests.remove, BoardRemoval(boardId: "dash.new"), gameId: "dash"
                ).isSuccess)
            #expect(try await submit("dash.new", 1).errorCode == .unknownBoard)
        }
    }
}
