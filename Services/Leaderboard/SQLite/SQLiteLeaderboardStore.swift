import Foundation
import GRDB
import Leaderboard
import PodiumMessages
import PodiumRuntime
import PodiumSQLite

/// The SQLite (GRDB) ``LeaderboardStore``: `leaderboard-scores.sqlite`, WAL mode.
///
/// A submission's durable form is an append: its history row (`score`, carrying the entry it
/// left), receipt and outbox message. The indexed `entry` table is brought up to date in folds
/// (``UnfoldedEntries``): after `foldAfter` submissions, before any other write of entries,
/// before a whole-board read when an unfolded entry is on that board, on close, and on open for
/// whatever a crash left unfolded (`entry_fold` holds the last history row folded, in the same
/// transaction as the fold).
public final class SQLiteLeaderboardStore: LeaderboardStore {
    let database: DatabasePool
    public let location: String
    /// Acknowledged entries not yet in `entry`; changed only on the database's writer.
    private let unfolded: Locked<UnfoldedEntries>
    /// Submissions appended between folds: a fold of 10,000 entries into a board of 1,000,000
    /// takes about a third of a second (the writer's other work waits behind it), about 35 µs
    /// an entry where a write per submission cost about 180 µs (docs/BENCHMARKS.md).
    public static let defaultFoldAfter = 10_000
    public var durable: any DurableTablesAccess { SQLiteDurableReader(database) }

    /// Opens `<data>/<service>-scores.sqlite`.
    public static let opener: LeaderboardStoreOpener = { settings in
        try SQLiteLeaderboardStore(
            path: StorageLocation.database(for: "\(settings.service)-scores", in: settings.dataDirectory))
    }

    public init(path: URL, foldAfter: Int = SQLiteLeaderboardStore.defaultFoldAfter) throws {
        database = try DurableDatabase.open(at: path)
        unfolded = Locked(UnfoldedEntries(foldAfter: foldAfter))
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
            try db.create(
                index: "entry_rank", on: "entry",
                columns: ["game_id", "board_id", "value", "submitted_at", "player_id"])
            try db.create(table: "score") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("game_id", .text).notNull()
                t.column("board_id", .text).notNull()
                t.column("player_id", .text).notNull()
                t.column("value", .integer).notNull()
                t.column("submitted_at", .integer).notNull()
            }
            try db.create(index: "score_player", on: "score", columns: ["game_id", "board_id", "player_id", "value"])
            try db.create(index: "score_time", on: "score", columns: ["game_id", "board_id", "submitted_at"])
        }
        migrator.registerMigration("v2-definitions") { db in
            try db.create(table: "definition") { t in
                t.column("game_id", .text).notNull()
                t.column("board_id", .text).notNull()
                t.column("json", .text).notNull()
                t.column("removed", .boolean).notNull().defaults(to: false)
                t.primaryKey(["game_id", "board_id"])
            }
        }
        migrator.registerMigration("v3-archives") { db in
            try db.create(table: "archive") { t in
                t.column("game_id", .text).notNull()
                t.column("board_id", .text).notNull()
                t.column("archive", .integer).notNull()
                t.column("storage_id", .text).notNull()
                t.column("source_id", .text).notNull()
                t.column("reset_at", .integer).notNull()
                t.column("entries", .integer).notNull()
                t.primaryKey(["game_id", "board_id", "archive"])
            }
        }
        migrator.registerMigration("v4-entry-fold") { db in
            // The entry each history row left (NULL: it kept the one before), and how far the
            // history is folded into `entry`.
            try db.alter(table: "score") { t in
                t.add(column: "entry_value", .integer)
                t.add(column: "entry_context", .integer)
                t.add(column: "entry_metadata", .text)
                t.add(column: "entry_submitted_at", .integer)
            }
            // No row until the first fold (older history rows carry no entry: nothing to fold).
            try db.create(table: "entry_fold") { t in
                t.primaryKey("id", .integer).check { $0 == 1 }
                t.column("score_id", .integer).notNull()
            }
        }
        DurableTables.register(in: &migrator)
        try migrator.migrate(database)
        location = "sqlite:\(path.path)"
        // What a crash left unfolded is folded before anything reads the entries.
        try database.write { db in try Self.foldHistory(db) }
    }

    /// Folds the history rows past `entry_fold` into `entry`, in their order (the last state of
    /// each entry wins), inside the caller's transaction.
    static func foldHistory(_ db: Database) throws {
        try db.execute(
            sql: """
                INSERT INTO entry (game_id, board_id, player_id, value, context, metadata, submitted_at)
                SELECT game_id, board_id, player_id, entry_value, entry_context, entry_metadata, entry_submitted_at
                FROM score WHERE id > (SELECT COALESCE(MAX(score_id), 0) FROM entry_fold)
                    AND entry_submitted_at IS NOT NULL ORDER BY id
                ON CONFLICT (game_id, board_id, player_id) DO UPDATE SET value = excluded.value,
                    context = excluded.context, metadata = excluded.metadata, submitted_at = excluded.submitted_at
                """)
        try markFolded(db)
    }

    /// Records every history row as folded.
    static func markFolded(_ db: Database) throws {
        try db.execute(
            sql: """
                INSERT INTO entry_fold (id, score_id)
                SELECT 1, last FROM (SELECT MAX(id) AS last FROM score) WHERE last IS NOT NULL
                    AND last > (SELECT COALESCE(MAX(score_id), 0) FROM entry_fold)
                ON CONFLICT (id) DO UPDATE SET score_id = excluded.score_id
                """)
    }

    /// Writes the unfolded entries into `entry` in one transaction, in key order; on the writer.
    private func fold(_ db: Database) throws {
        let pending = unfolded.value
        guard !pending.isEmpty else { return }
        try db.inTransaction {
            let upsert = try db.cachedStatement(
                sql: """
                    INSERT INTO entry (game_id, board_id, player_id, value, context, metadata, submitted_at) VALUES (?, ?, ?, ?, ?, ?, ?)
                    ON CONFLICT(game_id, board_id, player_id) DO UPDATE SET value = excluded.value, context = excluded.context,
                        metadata = excluded.metadata, submitted_at = excluded.submitted_at
                    """)
            for (key, entry) in pending.sortedForFold() {
                try upsert.execute(arguments: [
                    key.gameId, key.boardId, key.playerId, entry.value, entry.context, entry.metadata,
                    entry.submittedAt,
                ])
            }
            // Every committed history row's entry is in `pending` or was folded before.
            try Self.markFolded(db)
            return .commit
        }
        unfolded.withLock { $0.folded() }
    }

    /// Folds now (before a write that changes entries otherwise, or a read of whole boards);
    /// with `matching`, only if an unfolded entry matches it.
    public func foldEntries(matching: ((UnfoldedEntries.Key) -> Bool)? = nil) async throws {
        let pending = unfolded.value
        guard !pending.isEmpty else { return }
        if let matching, !pending.contains(where: matching) { return }
        try await database.writeWithoutTransaction { db in try self.fold(db) }
    }

    /// An unfolded entry on this board (its storage id), or with `includingPeriods` on any of its periods.
    private static func onBoard(_ gameId: String, _ boardId: String, includingPeriods: Bool = false)
        -> (UnfoldedEntries.Key) -> Bool
    {
        { key in
            key.gameId == gameId
                && (key.boardId == boardId || (includingPeriods && key.boardId.hasPrefix(boardId + "#")))
        }
    }

    /// A write after a fold, on the writer: nothing unfolded can come back over it.
    private func writeFolded<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await database.writeWithoutTransaction { db in
            try self.fold(db)
            var result: T?
            try db.inTransaction {
                result = try body(db)
                return .commit
            }
            return result!
        }
    }

    public func close() async {
        do { try await foldEntries() } catch {}
    }

    /// Writes many entries in one transaction (for loading test and benchmark data).
    public func importEntries(
        gameId: String, boardId: String, _ rows: [(playerId: String, value: Int64, submittedAt: Int64)]
    ) async throws {
        try await database.write { db in
            let statement = try db.makeStatement(
                sql:
                    "INSERT OR REPLACE INTO entry (game_id, board_id, player_id, value, submitted_at) VALUES (?, ?, ?, ?, ?)"
            )
            for row in rows {
                try statement.execute(arguments: [gameId, boardId, row.playerId, row.value, row.submittedAt])
            }
        }
    }

    public func ranked(gameId: String, boardId: String, descending: Bool, offset: Int, limit: Int) async throws
        -> [(playerId: String, entry: StoredEntry)]
    {
        try await foldEntries(matching: Self.onBoard(gameId, boardId))
        return try await database.read { db in
            try Row.fetchAll(
                try db.cachedStatement(
                    sql: """
                        SELECT player_id, value, context, metadata, submitted_at FROM entry WHERE game_id = ? AND board_id = ?
                        ORDER BY value \(descending ? "DESC" : "ASC"), submitted_at ASC, player_id ASC LIMIT ? OFFSET ?
                        """),
                arguments: [gameId, boardId, limit, offset]
            ).map { ($0["player_id"], Self.entry($0)) }
        }
    }

    public func entryCount(gameId: String, boardId: String, includingPeriods: Bool) async throws -> Int {
        try await foldEntries(matching: Self.onBoard(gameId, boardId, includingPeriods: includingPeriods))
        return try await database.read { db in
            if includingPeriods {
                return try Int.fetchOne(
                    try db.cachedStatement(
                        sql:
                            "SELECT COUNT(*) FROM entry WHERE game_id = ? AND (board_id = ? OR board_id LIKE ? ESCAPE '\\')"
                    ),
                    arguments: [
                        gameId, boardId,
                        boardId.replacingOccurrences(of: "_", with: "\\_").replacingOccurrences(of: "%", with: "\\%")
                            + "#%",
                    ]) ?? 0
            }
            return try Int.fetchOne(
                try db.cachedStatement(sql: "SELECT COUNT(*) FROM entry WHERE game_id = ? AND board_id = ?"),
                arguments: [gameId, boardId]) ?? 0
        }
    }

    public func savedDefinitions() async throws -> [(gameId: String, definition: LeaderboardDefinition)] {
        try await database.read { db in
            try Row.fetchAll(
                try db.cachedStatement(
                    sql: "SELECT game_id, json FROM definition WHERE NOT removed ORDER BY game_id, board_id")
            ).compactMap { row in
                let json: String = row["json"]
                guard let definition = try? WireCodec.decode(LeaderboardDefinition.self, from: Data(json.utf8)) else {
                    return nil
                }
                return (row["game_id"], definition)
            }
        }
    }

    /// Definitions operators removed (so that the configuration file's version stays removed).
    public func removedDefinitions() async throws -> [(gameId: String, boardId: String)] {
        try await database.read { db in
            try Row.fetchAll(try db.cachedStatement(sql: "SELECT game_id, board_id FROM definition WHERE removed")).map
            { ($0["game_id"], $0["board_id"]) }
        }
    }

    public func saveDefinition(_ definition: LeaderboardDefinition, gameId: String) async throws {
        let json = String(decoding: try WireCodec.encode(definition), as: UTF8.self)
        try await database.write { db in
            try db.cachedStatement(
                sql: """
                    INSERT INTO definition (game_id, board_id, json, removed) VALUES (?, ?, ?, 0)
                    ON CONFLICT(game_id, board_id) DO UPDATE SET json = excluded.json, removed = 0
                    """
            ).execute(arguments: [gameId, definition.id, json])
        }
    }

    public func deleteDefinition(boardId: String, gameId: String) async throws {
        try await database.write { db in
            try db.cachedStatement(
                sql: """
                    INSERT INTO definition (game_id, board_id, json, removed) VALUES (?, ?, '{}', 1)
                    ON CONFLICT(game_id, board_id) DO UPDATE SET removed = 1
                    """
            ).execute(arguments: [gameId, boardId])
        }
    }

    /// The batch decided in memory (``SubmissionBatch``, the entries as acknowledged), then
    /// appended: history rows, receipts, outbox messages. The entries follow in the next fold.
    public func submit(_ batch: [PendingSubmission]) async throws -> [Result<SubmissionOutcome, ErrorReply>] {
        try await database.writeWithoutTransaction { db in
            var plan: SubmissionBatch?
            var versions: [Int64] = []
            try db.inTransaction {
                var stored: [Int: (fingerprint: String, reply: JSONValue)] = [:]
                for (index, request) in SubmissionBatch.requests(of: batch) {
                    if let receipt = try SQLiteDurable.storedReceipt(db, request) { stored[index] = receipt }
                }
                let pending = self.unfolded.value
                var current: [SubmissionBatch.EntryKey: StoredEntry] = [:]
                let read = try db.cachedStatement(
                    sql:
                        "SELECT value, context, metadata, submitted_at FROM entry WHERE game_id = ? AND board_id = ? AND player_id = ?"
                )
                for key in SubmissionBatch.keys(of: batch) {
                    if let entry = pending.entry(key) {
                        current[key] = entry
                    } else if let row = try Row.fetchOne(read, arguments: [key.gameId, key.boardId, key.playerId]) {
                        current[key] = Self.entry(row)
                    }
                }
                let decided = try SubmissionBatch(batch, storedReceipts: stored, current: current)
                let append = try db.cachedStatement(
                    sql: """
                        INSERT INTO score (game_id, board_id, player_id, value, submitted_at,
                            entry_value, entry_context, entry_metadata, entry_submitted_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                        """)
                versions.reserveCapacity(decided.scores.count)
                for row in decided.scores {
                    try append.execute(arguments: [
                        row.key.gameId, row.key.boardId, row.key.playerId, row.value, row.submittedAt,
                        row.entry?.value, row.entry?.context, row.entry?.metadata, row.entry?.submittedAt,
                    ])
                    versions.append(db.lastInsertedRowID)
                }
                try SQLiteDurable.commit(decided.writes, in: db)
                plan = decided
                return .commit
            }
            guard let plan else { return [] }
            let needsFold = self.unfolded.withLock {
                $0.record(plan.entries, scores: plan.scores.count)
                return $0.needsFold
            }
            // The batch is committed whatever the fold does: a fold that fails leaves its entries
            // unfolded (still read from memory, still in the history) for the next one to write.
            if needsFold { try? self.fold(db) }
            return plan.outcomes(versions: versions)
        }
    }

    public func entryKeys(gameId: String, boardId: String) async throws -> [StoredScore] {
        try await foldEntries(matching: Self.onBoard(gameId, boardId))
        return try await database.read { db in
            // Counted first (same snapshot) so that the array is allocated once; read through a
            // cursor, without a row object per entry.
            let count =
                try Int.fetchOne(
                    db, sql: "SELECT COUNT(*) FROM entry WHERE game_id = ? AND board_id = ?",
                    arguments: [gameId, boardId]) ?? 0
            var keys: [StoredScore] = []
            keys.reserveCapacity(count)
            let rows = try Row.fetchCursor(
                db, sql: "SELECT player_id, value, submitted_at FROM entry WHERE game_id = ? AND board_id = ?",
                arguments: [gameId, boardId])
            while let row = try rows.next() {
                keys.append(StoredScore(playerId: row[0], value: row[1], submittedAt: row[2]))
            }
            return keys
        }
    }

    public func entries(gameId: String, boardId: String, playerIds: [String]) async throws -> [String: StoredEntry] {
        guard !playerIds.isEmpty else { return [:] }
        // Taken before the read begins: a fold that clears these committed its rows first.
        let overlay = unfolded.value.entries(gameId: gameId, boardId: boardId, playerIds: playerIds)
        return try await database.read { db in
            var result: [String: StoredEntry] = [:]
            for chunk in stride(from: 0, to: playerIds.count, by: 500).map({
                Array(playerIds[$0..<min($0 + 500, playerIds.count)])
            }) {
                let marks = Array(repeating: "?", count: chunk.count).joined(separator: ",")
                for row in try Row.fetchAll(
                    try db.cachedStatement(
                        sql:
                            "SELECT player_id, value, context, metadata, submitted_at FROM entry WHERE game_id = ? AND board_id = ? AND player_id IN (\(marks))"
                    ),
                    arguments: StatementArguments([gameId, boardId] + chunk))
                {
                    result[row["player_id"]] = Self.entry(row)
                }
            }
            result.merge(overlay) { _, unfolded in unfolded }
            return result
        }
    }

    public func scores(gameId: String, boardId: String, since: Int64) async throws -> [StoredScore] {
        try await database.read { db in
            var scores: [StoredScore] = []
            let rows = try Row.fetchCursor(
                db,
                sql:
                    "SELECT player_id, value, submitted_at FROM score WHERE game_id = ? AND board_id = ? AND submitted_at >= ? ORDER BY id",
                arguments: [gameId, boardId, since])
            while let row = try rows.next() {
                scores.append(StoredScore(playerId: row[0], value: row[1], submittedAt: row[2]))
            }
            return scores
        }
    }

    public func history(gameId: String, boardId: String, playerId: String, descending: Bool, limit: Int) async throws
        -> [StoredScore]
    {
        try await database.read { db in
            try Row.fetchAll(
                try db.cachedStatement(
                    sql: """
                        SELECT player_id, value, submitted_at FROM score WHERE game_id = ? AND board_id = ? AND player_id = ?
                        ORDER BY value \(descending ? "DESC" : "ASC"), submitted_at ASC LIMIT ?
                        """),
                arguments: [gameId, boardId, playerId, limit]
            ).map { StoredScore(playerId: $0["player_id"], value: $0["value"], submittedAt: $0["submitted_at"]) }
        }
    }

    private static func entry(_ row: Row) -> StoredEntry {
        StoredEntry(
            value: row["value"], context: row["context"], metadata: row["metadata"], submittedAt: row["submitted_at"])
    }

    // MARK: Operators

    public func position(of stream: String) async throws -> UInt64 {
        try await database.read { db in try SQLiteDurable.position(db, stream: stream) }
    }

    public func boards(ofPlayer playerId: String) async throws -> [(gameId: String, boardId: String)] {
        try await foldEntries(matching: { $0.playerId == playerId })
        return try await database.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT DISTINCT game_id, board_id FROM entry WHERE player_id = ?1
                    UNION SELECT DISTINCT game_id, board_id FROM score WHERE player_id = ?1
                    """, arguments: [playerId]
            ).map { (gameId: $0["game_id"] as String, boardId: $0["board_id"] as String) }
        }
    }

    public func erase(
        _ erasure: AccountErasure?, boards: [(gameId: String, boardId: String)], durable: DurableWrites
    ) async throws {
        try await writeFolded { db in
            if let erasure {
                for board in boards {
                    for table in ["entry", "score"] {
                        try db.execute(
                            sql: "DELETE FROM \(table) WHERE game_id = ? AND board_id = ? AND player_id = ?",
                            arguments: [board.gameId, board.boardId, erasure.playerId])
                    }
                }
                try SQLiteDurable.erase(erasure, in: db)
            }
            try SQLiteDurable.commit(durable, in: db)
        }
    }

    public func erasedPlayers() async throws -> [String] {
        try await database.read { db in try SQLiteDurable.erasedPlayers(db) }
    }

    public func export(playerId: String, limit: Int) async throws -> (
        entries: [LeaderboardExport.Entry], scores: [LeaderboardExport.Score]
    ) {
        try await foldEntries(matching: { $0.playerId == playerId })
        return try await database.read { db in
            let entries = try Row.fetchAll(
                db,
                sql: """
                    SELECT game_id, board_id, value, context, metadata, submitted_at FROM entry WHERE player_id = ?
                    ORDER BY game_id, board_id
                    """, arguments: [playerId]
            ).map { row in
                let metadata: String? = row["metadata"]
                return LeaderboardExport.Entry(
                    gameId: row["game_id"], boardId: row["board_id"], value: row["value"], context: row["context"],
                    metadata: metadata.flatMap { try? WireCodec.decode(JSONValue.self, from: Data($0.utf8)) },
                    submittedAt: row["submitted_at"])
            }
            let scores = try Row.fetchAll(
                db,
                sql: """
                    SELECT game_id, board_id, value, submitted_at FROM score WHERE player_id = ?
                    ORDER BY submitted_at DESC, id DESC LIMIT ?
                    """, arguments: [playerId, limit]
            ).map {
                LeaderboardExport.Score(
                    gameId: $0["game_id"], boardId: $0["board_id"], value: $0["value"], submittedAt: $0["submitted_at"])
            }
            return (entries, scores)
        }
    }

    public func removeEntry(gameId: String, boardId: String, playerId: String) async throws -> Bool {
        try await writeFolded { db in
            try db.cachedStatement(sql: "DELETE FROM entry WHERE game_id = ? AND board_id = ? AND player_id = ?")
                .execute(arguments: [gameId, boardId, playerId])
            let removed = db.changesCount > 0
            try db.cachedStatement(sql: "DELETE FROM score WHERE game_id = ? AND board_id = ? AND player_id = ?")
                .execute(arguments: [gameId, boardId, playerId])
            return removed
        }
    }

    public func archive(gameId: String, boardId: String, storageID: String, resetAt: Int64) async throws
        -> LeaderboardArchive
    {
        try await writeFolded { db in
            let number =
                (try Int64.fetchOne(
                    try db.cachedStatement(sql: "SELECT MAX(archive) FROM archive WHERE game_id = ? AND board_id = ?"),
                    arguments: [gameId, boardId]) ?? 0) + 1
            let archiveID = "\(storageID)@archive-\(number)"
            try db.cachedStatement(sql: "UPDATE entry SET board_id = ? WHERE game_id = ? AND board_id = ?")
                .execute(arguments: [archiveID, gameId, storageID])
            let entries = db.changesCount
            try db.cachedStatement(
                sql:
                    "INSERT INTO archive (game_id, board_id, archive, storage_id, source_id, reset_at, entries) VALUES (?, ?, ?, ?, ?, ?, ?)"
            ).execute(arguments: [gameId, boardId, number, archiveID, storageID, resetAt, entries])
            return LeaderboardArchive(boardId: boardId, archive: number, resetAt: resetAt, entries: entries)
        }
    }

    public func archives(gameId: String, boardId: String) async throws -> [(
        archive: LeaderboardArchive, storageID: String
    )] {
        try await database.read { db in
            try Row.fetchAll(
                try db.cachedStatement(
                    sql:
                        "SELECT archive, storage_id, reset_at, entries FROM archive WHERE game_id = ? AND board_id = ? ORDER BY archive DESC"
                ),
                arguments: [gameId, boardId]
            ).map { row in
                (
                    LeaderboardArchive(
                        boardId: boardId, archive: row["archive"], resetAt: row["reset_at"], entries: row["entries"]),
                    row["storage_id"]
                )
            }
        }
    }

    public func lastReset(gameId: String, storageID: String) async throws -> Int64? {
        try await database.read { db in
            try Int64.fetchOne(
                try db.cachedStatement(sql: "SELECT MAX(reset_at) FROM archive WHERE game_id = ? AND source_id = ?"),
                arguments: [gameId, storageID])
        }
    }
}
