import Foundation
import PodiumClient
import PodiumMessages
import PodiumTesting
import Testing

/// Every leaderboard view through the gateway, with real sockets and SQLite.
@Suite("Leaderboard views")
struct LeaderboardViewTests {
    static func submit(_ client: TestClient, _ value: Int64, board: String = "dash.highscore") async throws
        -> ScoreReceipt
    {
        try await client.call(LeaderboardRequests.submit, ScoreSubmission(boardId: board, value: value), gameId: "dash")
    }

    /// A page of the query's board (`dash.highscore` when it names none).
    static func page(
        _ client: TestClient, _ definition: RequestDefinition<BoardQuery, LeaderboardPage> = LeaderboardRequests.top,
        _ query: BoardQuery = BoardQuery(boardId: "")
    ) async throws -> LeaderboardPage {
        var query = query
        if query.boardId.isEmpty { query.boardId = "dash.highscore" }
        return try await client.call(definition, query, gameId: "dash")
    }

    static func query(
        scope: String? = nil, limit: Int? = nil, cursor: String? = nil, radius: Int? = nil, friendsOnly: Bool? = nil
    ) -> BoardQuery {
        BoardQuery(
            boardId: "dash.highscore", scope: scope.map { .string($0) }, limit: limit, cursor: cursor, radius: radius,
            friendsOnly: friendsOnly)
    }

    @Test("today and this week roll over when the clock crosses midnight UTC and Monday; all time keeps everything")
    func timeScopes() async throws {
        let clock = OffsetClock()
        // Start at the next Sunday 12:00 UTC, so one day later is a new day and a new ISO week.
        let now = clock.nowMilliseconds
        let day: Int64 = 86_400_000
        let daysSinceEpoch = now / day
        let weekday = (daysSinceEpoch + 3) % 7  // Monday = 0
        let toSundayNoon = ((6 - weekday + 7) % 7) * day + (day / 2) - (now % day)
        clock.advance(by: .milliseconds(toSundayNoon > 0 ? toSundayNoon : toSundayNoon + 7 * day))
        // Sessions that outlive the days this test jumps over.
        var auth = PodiumTestStack.testAuthConfiguration
        auth.sessionLifetimeMilliseconds = 30 * day
        try await withPodiumStack(.init(clock: clock, auth: auth)) { stack in
            let (ann, _) = try await stack.player("ann")
            let (bob, _) = try await stack.player("bob")
            defer {
                Task {
                    await ann.close()
                    await bob.close()
                }
            }
            let first = try await Self.submit(ann, 500)
            #expect(Set(first.scopesBeaten) == ["today", "week", "allTime"])
            _ = try await Self.submit(bob, 300)
            for scope in ["today", "week", "allTime"] {
                #expect(try await Self.page(ann, LeaderboardRequests.top, Self.query(scope: scope)).entries.count == 2)
            }
            clock.advance(by: .seconds(86_400))  // Monday: a new day and a new week
            for scope in ["today", "week"] {
                #expect(
                    try await Self.page(ann, LeaderboardRequests.top, Self.query(scope: scope)).entries.isEmpty,
                    "\(scope) did not roll over")
            }
            #expect(try await Self.page(ann, LeaderboardRequests.top, Self.query(scope: "allTime")).entries.count == 2)
            let lower = try await Self.submit(bob, 100)
            #expect(Set(lower.scopesBeaten) == ["today", "week"], "a lower score still leads an empty day and week")
            #expect(!lower.improved)
            let today = try await Self.page(ann, LeaderboardRequests.top, Self.query(scope: "today"))
            #expect(today.entries.map(\.value) == [100])
            clock.advance(by: .seconds(86_400))  // Tuesday: new day, same week
            #expect(try await Self.page(ann, LeaderboardRequests.top, Self.query(scope: "today")).entries.isEmpty)
            #expect(
                try await Self.page(ann, LeaderboardRequests.top, Self.query(scope: "week")).entries.map(\.value) == [
                    100
                ])
            #expect(
                try await errorCode {
                    try await Self.page(ann, LeaderboardRequests.top, Self.query(scope: "fortnight"))
                } != nil)
        }
    }

    @Test("pages follow cursors without repeats, around-player windows, history, names, and bad cursors are refused")
    func pagingAroundHistory() async throws {
        try await withPodiumStack { stack in
            var players: [(TestClient, SessionGrant)] = []
            for index in 0..<12 { players.append(try await stack.player("runner\(index)")) }
            let everyone = players
            defer { Task { for (client, _) in everyone { await client.close() } } }
            for (index, (client, _)) in players.enumerated() {
                _ = try await Self.submit(client, Int64(100 + index * 10))
            }
            let (viewer, _) = players[0]
            let first = try await Self.page(viewer, LeaderboardRequests.top, Self.query(limit: 5))
            #expect(first.entries.map(\.rank) == [1, 2, 3, 4, 5])
            #expect(first.entries.map(\.value) == [210, 200, 190, 180, 170])
            #expect(first.entries.first?.displayName == "runner11")
            #expect(first.total == 12)
            let cursor = try #require(first.nextCursor)
            // A new leader arrives between pages: the next page still continues after the last row seen.
            let (late, _) = try await stack.player("latecomer")
            defer { Task { await late.close() } }
            _ = try await Self.submit(late, 999)
            let second = try await Self.page(viewer, LeaderboardRequests.top, Self.query(limit: 5, cursor: cursor))
            #expect(second.entries.map(\.value) == [160, 150, 140, 130, 120])
            let third = try await Self.page(
                viewer, LeaderboardRequests.top, Self.query(limit: 5, cursor: try #require(second.nextCursor)))
            #expect(third.entries.map(\.value) == [110, 100])
            #expect(third.nextCursor == nil)

            let around = try await Self.page(players[5].0, LeaderboardRequests.around, Self.query(radius: 2))
            #expect(around.entries.map(\.value) == [170, 160, 150, 140, 130])
            #expect(around.entries[2].playerId == players[5].1.playerId)

            for value in [40, 5, 90, 60] as [Int64] { _ = try await Self.submit(viewer, value, board: "dash.fastest") }
            let history = try await viewer.call(
                LeaderboardRequests.history, BoardQuery(boardId: "dash.fastest"), gameId: "dash")
            #expect(history.scores.map(\.value) == [5, 40, 60, 90], "lower is better on the fastest board")

            for cursor in ["garbage!", "bm90IGEgY3Vyc29y", try #require(first.nextCursor)] {
                let reply = try await viewer.exchange(
                    LeaderboardRequests.top, BoardQuery(boardId: "dash.fastest", cursor: cursor), gameId: "dash")
                #expect(reply.envelope.type == .error, "accepted cursor \(cursor)")
            }
            for limit in [0, -3, 201] {
                #expect(
                    try await viewer.exchange(LeaderboardRequests.top, Self.query(limit: limit), gameId: "dash")
                        .envelope.type == .error)
            }
        }
    }

    @Test("friends scope ranks the player among their friends only")
    func friendsScope() async throws {
        try await withPodiumStack { stack in
            let (ann, annGrant) = try await stack.player("ann")
            let (bob, bobGrant) = try await stack.player("bob")
            let (stranger, _) = try await stack.player("stranger")
            defer {
                Task {
                    await ann.close()
                    await bob.close()
                    await stranger.close()
                }
            }
            _ = try await ann.call(AuthRequests.friendRequest, FriendTarget(playerId: bobGrant.playerId))
            _ = try await bob.call(AuthRequests.friendAccept, FriendTarget(playerId: annGrant.playerId))
            _ = try await Self.submit(ann, 300)
            _ = try await Self.submit(bob, 400)
            _ = try await Self.submit(stranger, 900)
            let friends = try await Self.page(ann, LeaderboardRequests.top, Self.query(friendsOnly: true))
            #expect(friends.entries.map(\.playerId) == [bobGrant.playerId, annGrant.playerId])
            #expect(friends.entries.map(\.rank) == [1, 2])
            let everyone = try await Self.page(ann)
            #expect(everyone.entries.count == 3)
        }
    }

    @Test("a player pushed out of the top 10 is told")
    func leftTopNotification() async throws {
        try await withPodiumStack { stack in
            var players: [(TestClient, SessionGrant)] = []
            for index in 0..<11 { players.append(try await stack.player("climber\(index)")) }
            let everyone = players
            defer { Task { for (client, _) in everyone { await client.close() } } }
            let (tenth, tenthGrant) = players[0]
            let subscription = try await tenth.call(GatewayRequests.subscribe, gameId: "dash")
            let subscriber = try TestSubscriber(endpoint: stack.endpoints.notifications, topics: [subscription.topic])
            defer { Task { await subscriber.close() } }
            // Make sure the subscription is live before the decisive score.
            let ready = try await withDeadline(.seconds(15)) {
                while true {
                    _ = try await tenth.call(
                        ClientRequests.testNotification(of: "leaderboard"), TestNotice(), gameId: "dash")
                    if (try? await subscriber.next(timeout: .milliseconds(300))) != nil { return true }
                }
            }
            #expect(ready)
            _ = try await Self.submit(tenth, 10)
            for index in 1..<10 { _ = try await Self.submit(players[index].0, Int64(100 + index)) }
            #expect(try await Self.submit(players[10].0, 500).entry.rank == 1)
            var heard: PlayerNotification?
            while heard?.kind != "leaderboard.left-top" {
                heard = try await subscriber.next().envelope.decodePayload(as: PlayerNotification.self)
            }
            #expect(heard?.details["boardId"] == "dash.highscore")
            let entry = try await tenth.call(
                LeaderboardRequests.entry, BoardQuery(boardId: "dash.highscore"), gameId: "dash")
            #expect(entry.entry?.rank == 11)
            _ = tenthGrant
        }
    }

    @Test("a restart loses no accepted score and keeps the ranks")
    func restart() async throws {
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("podium-lb-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: data) }
        let options = PodiumTestStack.Options(dataDirectory: data)
        let (grants, before) = try await withPodiumStack(options) { stack in
            var grants: [SessionGrant] = []
            for index in 0..<5 {
                let (client, grant) = try await stack.player("keeper\(index)")
                _ = try await Self.submit(client, Int64(1000 - index * 7))
                _ = try await Self.submit(client, 3, board: "dash.coins")
                _ = try await Self.submit(client, 4, board: "dash.coins")
                grants.append(grant)
                await client.close()
            }
            let viewer = try TestClient(endpoint: stack.endpoints.requests)
            viewer.use(.token(grants[0].sessionToken))
            defer { Task { await viewer.close() } }
            return (grants, try await Self.page(viewer))
        }
        try await withPodiumStack(options) { stack in
            let viewer = try TestClient(endpoint: stack.endpoints.requests)
            viewer.use(.token(grants[0].sessionToken))
            defer { Task { await viewer.close() } }
            let after = try await Self.page(viewer)
            #expect(after.entries.map(\.playerId) == before.entries.map(\.playerId))
            #expect(after.entries.map(\.value) == before.entries.map(\.value))
            let coins = try await Self.page(viewer, LeaderboardRequests.top, BoardQuery(boardId: "dash.coins"))
            #expect(coins.entries.allSatisfy { $0.value == 7 })
            #expect(coins.total == 5)
        }
    }
}
