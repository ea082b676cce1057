import Foundation
import GRDB
import LeaderboardSQLite
import PodiumMessages
import PodiumTesting
import PostgresNIO
import Testing

@testable import Leaderboard
@testable import LeaderboardPostgres

/// Durable writes that append (docs/ARCHITECTURE.md, "Durable writes that append"): a
/// submission's history row carries the entry it left, the indexed `entry` table follows in
/// folds, and a store opened after a crash folds what was left before anything reads it.
@Suite("Entry folds")
struct EntryFoldTests {
    typealias Key = UnfoldedEntries.Key

    @Test("unfolded entries: each entry's last state, submissions counted, key order for the fold, cleared by it")
    func rules() {
        var unfolded = UnfoldedEntries(foldAfter: 3)
        #expect(unfolded.isEmpty && !unfolded.needsFold)
        let ann = Key(gameId: "dash", boardId: "b", playerId: "ann")
        let bob = Key(gameId: "dash", boardId: "b", playerId: "bob")
        let other = Key(gameId: "dash", boardId: "c", playerId: "ann")
        unfolded.record(
            [
                (bob, StoredEntry(value: 2, context: nil, metadata: nil, submittedAt: 1)),
                (ann, StoredEntry(value: 1, context: 7, metadata: "{}", submittedAt: 1)),
            ], scores: 2)
        #expect(!unfolded.needsFold)
        unfolded.record([(ann, StoredEntry(value: 5, context: nil, metadata: nil, submittedAt: 2))], scores: 1)
        unfolded.record([(other, StoredEntry(value: 9, context: nil, metadata: nil, submittedAt: 2))], scores: 0)
        #expect(unfolded.needsFold && unfolded.scoresSinceFold == 3 && unfolded.count == 3)
        #expect(unfolded.entry(ann)?.value == 5)
        #expect(
            unfolded.entries(gameId: "dash", boardId: "b", playerIds: ["ann", "bob", "cyd"]).mapValues(\.value)
                == ["ann": 5, "bob": 2])
        #expect(
            unfolded.sortedForFold().map { "\($0.key.boardId)/\($0.key.playerId)=\($0.entry.value)" }
                == ["b/ann=5", "b/bob=2", "c/ann=9"])
        unfolded.folded()
        #expect(unfolded.isEmpty && unfolded.entry(ann) == nil && !unfolded.needsFold)
    }

    static func pending(_ player: String, _ value: Int64, id: String) -> PendingSubmission {
        SubmissionBatchTests.pending(player, value, id: id)
    }

    /// The `entry` table as stored, read beside the store.
    static func table(_ path: URL) throws -> [String: Int64] {
        let queue = try DatabaseQueue(path: path.path)
        return try queue.read { db in
            Dictionary(
                uniqueKeysWithValues: try Row.fetchAll(
                    db, sql: "SELECT board_id || '/' || player_id AS k, value FROM entry"
                ).map { ($0["k"] as String, $0["value"] as Int64) })
        }
    }

    @Test(
        "a submission is an append: acknowledged entries are read before their fold, folded after foldAfter submissions, and folded from the history on open after a crash"
    )
    func appendThenFold() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "podium-fold-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("leaderboard-scores.sqlite")

        let first = try SQLiteLeaderboardStore(path: path, foldAfter: 5)
        let outcomes = try await first.submit([
            Self.pending("ann", 10, id: "a1"), Self.pending("bob", 20, id: "b1"), Self.pending("ann", 15, id: "a2"),
            Self.pending("bob", 5, id: "b2"),
        ])
        #expect(
            SubmissionBatchTests.summary(outcomes) == [
                "applied -1->10 v1", "applied -1->20 v2", "applied 10->15 v3",
                "applied 20->20 v4",
            ])
        // Acknowledged, not yet in the table: reads come from the unfolded entries.
        #expect(try Self.table(path).isEmpty)
        #expect(
            try await first.entries(gameId: "dash", boardId: "board", playerIds: ["ann", "bob"]).mapValues(\.value)
                == ["ann": 15, "bob": 20])
        // Reads of other boards (an ended period's page, say) fold nothing.
        #expect(try await first.entryKeys(gameId: "dash", boardId: "board#1").isEmpty)
        #expect(try await first.entryCount(gameId: "dash", boardId: "other", includingPeriods: true) == 0)
        #expect(try Self.table(path).isEmpty)

        // A crash: the first store never folds nor closes. The next one folds the history first.
        let second = try SQLiteLeaderboardStore(path: path, foldAfter: 5)
        #expect(try Self.table(path) == ["board/ann": 15, "board/bob": 20])
        #expect(try await second.entryKeys(gameId: "dash", boardId: "board").count == 2)
        // The receipts were appended with the scores: a resend replays.
        #expect(
            SubmissionBatchTests.summary(try await second.submit([Self.pending("ann", 15, id: "a2")]))
                == ["replayed 10"])

        // The fifth submission since the fold writes the table.
        _ = try await second.submit([
            Self.pending("cyd", 1, id: "c1"), Self.pending("cyd", 2, id: "c2"), Self.pending("dan", 3, id: "d1"),
            Self.pending("eve", 4, id: "e1"),
        ])
        #expect(try Self.table(path)["board/cyd"] == nil)
        _ = try await second.submit([Self.pending("ann", 30, id: "a3")])
        #expect(
            try Self.table(path) == ["board/ann": 30, "board/bob": 20, "board/cyd": 2, "board/dan": 3, "board/eve": 4])

        // Changes other than submissions fold first, so nothing unfolded comes back over them.
        _ = try await second.submit([Self.pending("fay", 6, id: "f1"), Self.pending("gus", 7, id: "g1")])
        #expect(try await second.removeEntry(gameId: "dash", boardId: "board", playerId: "fay"))
        _ = try await second.archive(gameId: "dash", boardId: "board", storageID: "board", resetAt: 99)
        _ = try await second.submit([Self.pending("hal", 8, id: "h1")])
        let third = try SQLiteLeaderboardStore(path: path, foldAfter: 5)
        let table = try Self.table(path)
        #expect(table["board/hal"] == 8 && table["board/fay"] == nil && table["board/gus"] == nil)
        #expect(table["board@archive-1/gus"] == 7 && table["board@archive-1/fay"] == nil)
        #expect(try await third.entryKeys(gameId: "dash", boardId: "board").map(\.playerId) == ["hal"])
        await third.close()
    }

    @Test(
        "PostgreSQL folds history rows that came with their entry (a SQLite deployment's unfolded ones, imported) when it opens, once",
        .enabled(if: PodiumTestStack.storageKind == "postgresql", "needs PODIUM_TEST_DATABASE_URL"))
    func postgresFoldsImportedRows() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "podium-pgfold-\(UUID().uuidString)")
        let settings = try #require(try PodiumTestStack.testDatabase(service: "leaderboard", dataDirectory: directory))
        let first = try await PostgresLeaderboardStore.open(settings)
        // What an import of a crashed SQLite deployment leaves: history rows carrying the entries
        // they left, and no `entry` rows yet (one row kept the entry before it: no entry columns).
        let logger = first.database.logger
        try await first.database.transaction(fenced: false) { connection in
            for (player, value, entry) in [("ann", 10, 10), ("bob", 20, 20), ("ann", 15, 15), ("bob", 5, nil)]
                as [(String, Int64, Int64?)]
            {
                try await connection.query(
                    """
                    INSERT INTO score (game_id, board_id, player_id, value, submitted_at, entry_value, entry_submitted_at)
                    VALUES ('dash', 'board', \(player), \(value), 1, \(entry), \(entry.map { _ in Int64(1) }))
                    """, logger: logger)
            }
        }
        await first.close()
        let second = try await PostgresLeaderboardStore.open(settings)
        #expect(
            try await second.entries(gameId: "dash", boardId: "board", playerIds: ["ann", "bob"]).mapValues(\.value)
                == ["ann": 15, "bob": 20])
        // Folded once: after a reset moves the entries to the archive (their history rows stay),
        // the next open does not bring them back onto the board.
        _ = try await second.archive(gameId: "dash", boardId: "board", storageID: "board", resetAt: 2)
        await second.close()
        let third = try await PostgresLeaderboardStore.open(settings)
        #expect(try await third.entries(gameId: "dash", boardId: "board", playerIds: ["ann", "bob"]).isEmpty)
        #expect(
            try await third.entries(gameId: "dash", boardId: "board@archive-1", playerIds: ["ann", "bob"])
                .mapValues(\.value) == ["ann": 15, "bob": 20])
        await third.close()
    }
}
