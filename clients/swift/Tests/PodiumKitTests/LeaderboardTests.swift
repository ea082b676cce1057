import Foundation
import PodiumKit
import Testing

/// Reading boards: a range of ranks, around the player, friends only, time scopes, recurring
/// boards' occurrences and archives. The players of a test submit consecutive values of their own,
/// so that they are next to each other whatever else is on the board.
@Suite(.stack, .timeLimit(.minutes(2))) struct LeaderboardTests {
    @Test func aroundTheLocalPlayerAndFriendsOnly() async throws {
        let (pia, quinn) = try await TestStack.friends("pia", "quinn")
        let rex = try await TestStack.player("rex")
        // The fastest run wins (lowerIsBetter): rex, then quinn, then pia.
        let base = Int64.random(in: 1_000_000...9_000_000)
        let boards = try await PodiumLeaderboard.loadLeaderboards(IDs: ["com.example.dash.fastest"], for: pia)
        let fastest = try #require(boards.first)
        #expect(fastest.sortOrder == .lowerIsBetter)
        #expect(fastest.format == .timeMilliseconds)
        #expect(fastest.minimum == 1)
        #expect(fastest.formattedScore(61234) == "1:01.234")
        #expect(fastest.formattedScore(9005) == "9.005")
        try await fastest.submitScore(base + 2)
        try await PodiumLeaderboard(id: fastest.id, for: quinn).submitScore(base + 1)
        try await PodiumLeaderboard(id: fastest.id, for: rex).submitScore(base)

        let quinnsBoard = PodiumLeaderboard(id: fastest.id, for: quinn)
        // docs:begin around
        let around = try await quinnsBoard.loadEntriesAroundLocalPlayer(timeScope: .allTime, radius: 1)
        for entry in around.entries {
            print("#\(entry.rank) \(entry.player.displayName ?? entry.player.playerId): \(entry.score)")
        }
        // docs:end around
        #expect(around.scope == "allTime")
        #expect(around.entries.map(\.player.playerId) == [rex.playerId, quinn.playerId, pia.playerId])
        #expect(around.entries.map(\.score) == [base, base + 1, base + 2])
        let ranks = around.entries.map(\.rank)
        #expect(ranks == [ranks[0], ranks[0] + 1, ranks[0] + 2])
        #expect(around.entries.map(\.player.displayName) == ["Rex", "Quinn", "Pia"])
        #expect(around.total >= 3)

        // docs:begin friends-scope
        let (local, entries, total) = try await fastest.loadEntries(for: .friendsOnly, timeScope: .week, range: 1...10)
        // docs:end friends-scope
        #expect(entries.map(\.player.playerId) == [quinn.playerId, pia.playerId])
        #expect(entries.map(\.rank) == [1, 2])
        #expect(total == 2)
        #expect(local?.player.playerId == pia.playerId)
        #expect(local?.rank == 2)
        #expect(local?.score == base + 2)

        // Everyone, all time (other suites may be writing to the stack meanwhile: nothing here
        // compares two reads).
        let global = try await fastest.loadEntries(for: .global, timeScope: .allTime, range: 1...200)
        #expect(global.localPlayerEntry?.score == base + 2)
        #expect(global.localPlayerEntry?.player.playerId == pia.playerId)
        #expect(global.entries.map(\.rank) == Array(1...global.entries.count))
        #expect(global.entries.contains { $0.player.playerId == pia.playerId && $0.score == base + 2 })
        #expect(global.totalPlayerCount >= 3)
        let today = try await fastest.loadLocalPlayerEntry(timeScope: .today)
        #expect(today?.score == base + 2)

        // A page at a time, with the cursor.
        let first = try await fastest.loadPage(timeScope: .allTime, limit: 1)
        #expect(first.entries.count == 1)
        #expect(first.entries.first?.rank == 1)
        let cursor: String = try #require(first.nextCursor)
        let second = try await fastest.loadPage(timeScope: .allTime, limit: 1, cursor: cursor)
        #expect(second.entries.first?.rank == 2)
    }

    @Test func setsRecurringOccurrencesAndArchives() async throws {
        let sam = try await TestStack.player("sam")
        let sets = try await PodiumLeaderboard.loadLeaderboardSets(for: sam)
        #expect(
            sets.first { $0.id == "com.example.dash.main" }?.leaderboardIds
                == ["com.example.dash.highscore", "com.example.dash.fastest"])
        let all = try await PodiumLeaderboard.loadLeaderboards(for: sam)
        #expect(
            all.map(\.id).prefix(5) == [
                "com.example.dash.highscore", "com.example.dash.fastest", "com.example.dash.coins",
                "com.example.dash.ranked", "com.example.dash.weekly",
            ])

        // Weekly Cup: one period a week from 2026-01-05.
        let weekly = try #require(all.first { $0.id == "com.example.dash.weekly" })
        #expect(weekly.type == .recurring)
        #expect(weekly.duration == 604_800)
        let start = try #require(weekly.startDate)
        #expect(start <= Date() && Date() < weekly.nextStartDate!)
        // docs:begin occurrences
        if let lastWeek = try await weekly.loadPreviousOccurrence() {
            let (_, entries, total) = try await lastWeek.loadEntries(for: .global, timeScope: .allTime, range: 1...10)
            print("\(weekly.title) of \(lastWeek.startDate!): \(total) players, winner \(entries.first?.score ?? 0)")
        }
        // docs:end occurrences
        let lastWeek = try #require(try await weekly.loadPreviousOccurrence())
        let period = try #require(weekly.recurrence?.period(at: Date()))
        #expect(lastWeek.standings == .occurrence(period - 1))
        #expect(lastWeek.nextStartDate == start)
        let page = try await lastWeek.loadEntries(for: .global, timeScope: .allTime, range: 1...5)
        #expect(page.totalPlayerCount == 0)
        let refused = await #expect(throws: PodiumError.self) {
            try await weekly.occurrence(period).loadEntries(for: .global, timeScope: .allTime, range: 1...5)
        }
        #expect(refused?.code == .invalidField)
        #expect(refused?.field == "payload.period")

        // An operator's reset archives the standings, and the archive keeps them. On a board of a
        // game of this test's own (defined by the operator), so that no other suite's board is reset.
        let game = "swiftkit-\(UUID().uuidString.prefix(8).lowercased())"
        _ = try await TestStack.admin(
            post: "v1/call/leaderboard.admin.define",
            body: [
                "gameId": .string(game),
                "payload": ["definition": ["id": "swiftkit.points", "title": "Points", "submitOperator": "increment"]],
            ])
        let tess = try await TestStack.player("tess", game: game)
        let points = try #require(
            try await PodiumLeaderboard.loadLeaderboards(IDs: ["swiftkit.points"], for: tess).first)
        #expect(points.submitOperator == .increment)
        #expect(try await points.loadArchives().isEmpty)
        try await points.submitScore(5)
        let total = try await points.submitScore(7)
        #expect(total.entry.score == 12)  // an increment board adds up
        let reset = try await TestStack.admin(post: "v1/admin/games/\(game)/leaderboards/swiftkit.points/reset")
        #expect(reset["archive"] == 1)
        #expect(reset["entries"] == 1)
        // docs:begin archives
        let archives = try await points.loadArchives()
        if let newest = archives.first {
            let (mine, _, _) = try await points.archive(newest.number).loadEntries(
                for: .global, timeScope: .allTime, range: 1...100)
            print("archive \(newest.number) of \(newest.resetDate): my score was \(mine?.score ?? 0)")
        }
        // docs:end archives
        #expect(archives.map(\.number) == [1])
        #expect(archives.first?.entryCount == 1)
        let archived = try await points.archive(1).loadEntries(for: .global, timeScope: .allTime, range: 1...100)
        #expect(archived.entries.map(\.score) == [12])
        #expect(archived.localPlayerEntry?.player.playerId == tess.playerId)
        #expect(archived.totalPlayerCount == 1)
        #expect(try await points.loadLocalPlayerEntry() == nil)  // the live board starts empty
        let missing = await #expect(throws: PodiumError.self) {
            try await points.archive(2).loadEntries(for: .global, timeScope: .allTime, range: 1...10)
        }
        #expect(missing?.field == "payload.archive")
    }
}
