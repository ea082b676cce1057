import Foundation
import GRDB
import PodiumMessages

/// The SQLite (GRDB) ``LeaderboardStore``: `leaderboard-scores.sqlite`, WAL mode.
public final class SQLiteLeaderboardStore: LeaderboardStore {
    private let database: DatabasePool

    public init(path: URL) throws {
        try FileManager.default.createDirectory(at: path.deletingLastPathComponent(), withIntermediateDirectories: true)
        database = try DatabasePool(path: path.path)
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1-entries") { db in
            try db.create(table: "entry") { t in
                t.column("game_id", .text).notNull()
                t.column("board_id", .text).notNull()
                t.column("player_id", .text).notNull()
                t.column("value", .integer).notNull()
                t.column("context", .integer)
                t.column("metadata", .text)
                t.column("submitted_at", .integer).notNull()
                t.primaryKey(["game_id", "board_id", "player_id"])
            }
            try db.create(index: "entry_rank", on: "entry", columns: ["game_id", "board_id", "value", "submitted_at", "player_id"])
            try db.create(table: "score") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("game_id", .text).notNull()
                t.column("board_id", .text).notNull()
                t.column("player_id", .text).notNull()
                t.column("value", .integer).notNull()
                t.column("submitted_at", .integer).notNull()
            }
            try db.create(index: "score_player", on: "score", columns: ["game_id", "board_id", "player_id", "value"])
        }
        try migrator.migrate(database)
    }

    public func submit(
        gameId: String, boardId: String, playerId: String, value: Int64, submittedAt: Int64,
        decide: @Sendable (StoredEntry?) throws -> StoredEntry?
    ) async throws -> (previous: StoredEntry?, current: StoredEntry?) {
        try await database.write { db in
            let previous = try Row.fetchOne(
                db, sql: "SELECT value, context, metadata, submitted_at FROM entry WHERE game_id = ? AND board_id = ? AND player_id = ?",
                arguments: [gameId, boardId, playerId]
            ).map { StoredEntry(value: $0["value"], context: $0["context"], metadata: $0["metadata"], submittedAt: $0["submitted_at"]) }
            let decided = try decide(previous)
            if let decided {
                try db.execute(
                    sql: """
                        INSERT INTO entry (game_id, board_id, player_id, value, context, metadata, submitted_at) VALUES (?, ?, ?, ?, ?, ?, ?)
                        ON CONFLICT(game_id, board_id, player_id) DO UPDATE SET value = excluded.value, context = excluded.context,
                            metadata = excluded.metadata, submitted_at = excluded.submitted_at
                        """,
                    arguments: [gameId, boardId, playerId, decided.value, decided.context, decided.metadata, decided.submittedAt])
            }
            try db.execute(
                sql: "INSERT INTO score (game_id, board_id, player_id, value, submitted_at) VALUES (?, ?, ?, ?, ?)",
                arguments: [gameId, boardId, playerId, value, submittedAt])
            return (previous, decided ?? previous)
        }
    }

    public func rank(gameId: String, boardId: String, playerId: String, sortOrder: LeaderboardDefinition.SortOrder) async throws -> Int? {
        try await database.read { db in
            guard let row = try Row.fetchOne(
                db, sql: "SELECT value, submitted_at FROM entry WHERE game_id = ? AND board_id = ? AND player_id = ?",
                arguments: [gameId, boardId, playerId])
            else { return nil }
            let value: Int64 = row["value"]
            let submittedAt: Int64 = row["submitted_at"]
            let better = sortOrder == .higherIsBetter ? ">" : "<"
            let ahead = try Int.fetchOne(
                db,
                sql: """
                    SELECT COUNT(*) FROM entry WHERE game_id = ? AND board_id = ? AND (
                        value \(better) ? OR (value = ? AND (submitted_at < ? OR (submitted_at = ? AND player_id < ?))))
                    """,
                arguments: [gameId, boardId, value, value, submittedAt, submittedAt, playerId]) ?? 0
            return ahead + 1
        }
    }

    public func top(gameId: String, boardId: String, sortOrder: LeaderboardDefinition.SortOrder, offset: Int, limit: Int) async throws
        -> [(playerId: String, entry: StoredEntry)]
    {
        try await database.read { db in
            let direction = sortOrder == .higherIsBetter ? "DESC" : "ASC"
            return try Row.fetchAll(
                db,
                sql: """
                    SELECT player_id, value, context, metadata, submitted_at FROM entry WHERE game_id = ? AND board_id = ?
                    ORDER BY value \(direction), submitted_at ASC, player_id ASC LIMIT ? OFFSET ?
                    """,
                arguments: [gameId, boardId, limit, offset]
            ).map {
                ($0["player_id"], StoredEntry(value: $0["value"], context: $0["context"], metadata: $0["metadata"], submittedAt: $0["submitted_at"]))
            }
        }
    }
}
