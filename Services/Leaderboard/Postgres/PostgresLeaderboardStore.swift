import Foundation
import Leaderboard
import Logging
import PodiumMessages
import PodiumPostgres
import PodiumRuntime
import PostgresNIO

/// The leaderboard's storage in PostgreSQL (tables `entry`, `score`, `definition`, `archive` in
/// the service's schema).
public final class PostgresLeaderboardStore: LeaderboardStore, StorageSize {
    let database: PostgresStorage
    public var location: String { database.settings.location }
    /// Instances of the service share this database and take turns owning it (``PostgresLeases``).
    public var leases: (any LeaseStore)? { PostgresLeases(database: database, service: "leaderboard") }
    public var durable: any DurableTablesAccess { PostgresDurableReader(database) }
    private var logger: Logger { database.logger }

    static let migrations = [
        PostgresMigration(
            "v1-entries",
            [
                """
                CREATE TABLE entry (game_id text NOT NULL, board_id text NOT NULL, player_id text NOT NULL, value bigint NOT NULL,
                    context bigint, metadata text, submitted_at bigint NOT NULL, PRIMARY KEY (game_id, board_id, player_id))
                """,
                "CREATE INDEX entry_rank ON entry (game_id, board_id, value, submitted_at, player_id)",
                """
                CREATE TABLE score (id bigserial PRIMARY KEY, game_id text NOT NULL, board_id text NOT NULL, player_id text NOT NULL,
                    value bigint NOT NULL, submitted_at bigint NOT NULL)
                """,
                "CREATE INDEX score_player ON score (game_id, board_id, player_id, value)",
                "CREATE INDEX score_time ON score (game_id, board_id, submitted_at)",
                """
                CREATE TABLE definition (game_id text NOT NULL, board_id text NOT NULL, json text NOT NULL,
                    removed boolean NOT NULL DEFAULT false, PRIMARY KEY (game_id, board_id))
                """,
                """
                CREATE TABLE archive (game_id text NOT NULL, board_id text NOT NULL, archive bigint NOT NULL, storage_id text NOT NULL,
                    source_id text NOT NULL, reset_at bigint NOT NULL, entries bigint NOT NULL, PRIMARY KEY (game_id, board_id, archive))
                """,
            ]),
        // The SQLite store's columns and table for entries folded later (``UnfoldedEntries``), so
        // that its files import here as they are. This store writes each entry with its score
        // (the columns stay NULL); rows that came with an entry are folded when it opens.
        PostgresMigration(
            "v2-entry-fold",
            [
                """
                ALTER TABLE score ADD COLUMN entry_value bigint, ADD COLUMN entry_context bigint, ADD COLUMN entry_metadata text,
                    ADD COLUMN entry_submitted_at bigint
                """,
                "CREATE INDEX score_unfolded ON score (id) WHERE entry_submitted_at IS NOT NULL",
                "CREATE TABLE entry_fold (id integer PRIMARY KEY CHECK (id = 1), score_id bigint NOT NULL)",
            ]),
    ]

    /// With the data split into partitions (several instances serving at once): how boards map
    /// to them, so that each write is fenced by the leases of the boards it touches only.
    private let partitioning = Locked<PartitionMap?>(nil)

    public init(database: PostgresStorage) { self.database = database }

    public func partition(by map: PartitionMap) { partitioning.withLock { $0 = map } }

    /// The partitions of the boards a write touches (a storage id `<board>#<period>` or
    /// `…@archive-n` belongs to its board); nil: fence with every lease held.
    private func partitions(_ boards: [(gameId: String, boardId: String)]) -> Set<Int>? {
        guard let map = partitioning.value else { return nil }
        return Set(
            boards.map { board in
                let base = board.boardId.prefix { $0 != "#" && $0 != "@" }
                return map.partition(of: PartitionKey.board(gameId: board.gameId, boardId: String(base)))
            })
    }

    public func close() async { database.close() }
    public var storageName: String { database.settings.schema }
    public func storageBytes() async throws -> Int { try await database.schemaBytes() }

    /// Opens the service's schema in `PODIUM_DATABASE_URL`'s database.
    /// Opens the service's schema and folds imported history rows (``foldImportedHistory()``);
    /// `foldingImported: false` only creates and migrates it (`podium-data import`, which must
    /// leave the tables as the dump has them, and change nothing when it refuses).
    public static func open(_ settings: DatabaseSettings, foldingImported: Bool = true) async throws
        -> PostgresLeaderboardStore
    {
        let store = PostgresLeaderboardStore(
            database: try await PostgresStorage.open(
                settings, migrations: migrations, logger: Logger(label: "podium.leaderboard")))
        if foldingImported { try await store.foldImportedHistory() }
        return store
    }

    /// Brings `entry` up to date with history rows that carry the entry they left and are past
    /// `entry_fold` (imported from a SQLite store that had not folded them): the last row of
    /// each entry wins.
    func foldImportedHistory() async throws {
        let logger = logger
        try await database.transaction(fenced: false) { connection in
            try await connection.query(
                """
                INSERT INTO entry (game_id, board_id, player_id, value, context, metadata, submitted_at)
                SELECT DISTINCT ON (game_id, board_id, player_id) game_id, board_id, player_id, entry_value, entry_context,
                    entry_metadata, entry_submitted_at
                FROM score WHERE id > (SELECT COALESCE(MAX(score_id), 0) FROM entry_fold) AND entry_submitted_at IS NOT NULL
                ORDER BY game_id, board_id, player_id, id DESC
                ON CONFLICT (game_id, board_id, player_id) DO UPDATE SET value = excluded.value, context = excluded.context,
                    metadata = excluded.metadata, submitted_at = excluded.submitted_at
                """, logger: logger)
            try await connection.query(
                """
                INSERT INTO entry_fold (id, score_id)
                SELECT 1, last FROM (SELECT MAX(id) AS last FROM score WHERE entry_submitted_at IS NOT NULL) folded
                WHERE last IS NOT NULL AND last > (SELECT COALESCE(MAX(score_id), 0) FROM entry_fold)
                ON CONFLICT (id) DO UPDATE SET score_id = excluded.score_id
                """, logger: logger)
        }
    }

    /// Opens the store in the database `settings` name (the executable chooses the backend:
    /// ``StorageBackend``).
    public static let opener: @Sendable (DatabaseSettings) async throws -> any LeaderboardStore = { try await open($0) }

    /// The connection pool, watched as one of the service's loops.
    public var runner: (any StorageRunner)? { database }

    /// A batch in a fixed number of statements, whatever its size: the receipts looked up in
    /// one, the current entries read in one, the batch decided in memory (``SubmissionBatch``),
    /// then one upsert of the entries, one insert of the history rows, and the receipts and
    /// outbox messages (``PostgresDurable/commit(_:on:logger:)``), all in one transaction.
    public func submit(_ batch: [PendingSubmission]) async throws -> [Result<SubmissionOutcome, ErrorReply>] {
        let logger = logger
        let touched = partitions(batch.map { ($0.gameId, $0.boardId) })
        return try await database.transaction(partitions: touched) { connection in
            let requests = SubmissionBatch.requests(of: batch)
            let found = try await PostgresDurable.storedReceipts(requests.map(\.key), on: connection, logger: logger)
            var stored: [Int: (fingerprint: String, reply: JSONValue)] = [:]
            for (position, request) in requests.enumerated() {
                if let receipt = found[position] { stored[request.index] = receipt }
            }
            let current = try await Self.entries(SubmissionBatch.keys(of: batch), connection, logger)
            let plan = try SubmissionBatch(batch, storedReceipts: stored, current: current)
            try await Self.upsert(plan.entries, connection, logger)
            let versions = try await Self.insert(plan.scores, connection, logger)
            try await PostgresDurable.commit(plan.writes, on: connection, logger: logger)
            return plan.outcomes(versions: versions)
        }
    }

    /// The stored entries of `keys`, in one statement: a primary-key look-up per key (`LATERAL`).
    private static func entries(
        _ keys: [SubmissionBatch.EntryKey], _ connection: PostgresConnection, _ logger: Logger
    ) async throws -> [SubmissionBatch.EntryKey: StoredEntry] {
        guard !keys.isEmpty else { return [:] }
        let games = keys.map(\.gameId)
        let boards = keys.map(\.boardId)
        let players = keys.map(\.playerId)
        let rows = try await connection.query(
            """
            SELECT k.game_id, k.board_id, k.player_id, e.value, e.context, e.metadata, e.submitted_at
            FROM unnest(\(games)::text[], \(boards)::text[], \(players)::text[]) AS k(game_id, board_id, player_id)
            CROSS JOIN LATERAL (SELECT value, context, metadata, submitted_at FROM entry
                WHERE game_id = k.game_id AND board_id = k.board_id AND player_id = k.player_id) e
            """, logger: logger)
        var found: [SubmissionBatch.EntryKey: StoredEntry] = [:]
        for try await (game, board, player, value, context, metadata, submittedAt) in rows.decode(
            (String, String, String, Int64, Int64?, String?, Int64).self)
        {
            found[SubmissionBatch.EntryKey(gameId: game, boardId: board, playerId: player)] = StoredEntry(
                value: value, context: context, metadata: metadata, submittedAt: submittedAt)
        }
        return found
    }

    /// The entries' new states, in one statement (each key once). Arrays cannot carry NULLs
    /// here, so the optional columns travel with a flag each.
    private static func upsert(
        _ entries: [(key: SubmissionBatch.EntryKey, entry: StoredEntry)], _ connection: PostgresConnection,
        _ logger: Logger
    ) async throws {
        guard !entries.isEmpty else { return }
        let games = entries.map(\.key.gameId)
        let boards = entries.map(\.key.boardId)
        let players = entries.map(\.key.playerId)
        let values = entries.map(\.entry.value)
        let contexts = entries.map { $0.entry.context ?? 0 }
        let hasContext = entries.map { $0.entry.context != nil }
        let metadata = entries.map { $0.entry.metadata ?? "" }
        let hasMetadata = entries.map { $0.entry.metadata != nil }
        let times = entries.map(\.entry.submittedAt)
        try await connection.query(
            """
            INSERT INTO entry (game_id, board_id, player_id, value, context, metadata, submitted_at)
            SELECT g, b, p, v, CASE WHEN hc THEN c END, CASE WHEN hm THEN m END, t
            FROM unnest(\(games)::text[], \(boards)::text[], \(players)::text[], \(values)::bigint[], \(contexts)::bigint[],
                \(hasContext)::boolean[], \(metadata)::text[], \(hasMetadata)::boolean[], \(times)::bigint[])
                AS u(g, b, p, v, c, hc, m, hm, t)
            ON CONFLICT (game_id, board_id, player_id) DO UPDATE SET value = excluded.value, context = excluded.context,
                metadata = excluded.metadata, submitted_at = excluded.submitted_at
            """, logger: logger)
    }

    /// The history rows in one statement; their ids, in the rows' order. Ids come from the
    /// table's sequence as the rows are inserted, in the order of the `SELECT`, so sorted ids
    /// match the rows in order whatever order `RETURNING` lists them in.
    private static func insert(_ scores: [SubmissionBatch.ScoreRow], _ connection: PostgresConnection, _ logger: Logger)
        async throws -> [Int64]
    {
        guard !scores.isEmpty else { return [] }
        let games = scores.map(\.key.gameId)
        let boards = scores.map(\.key.boardId)
        let players = scores.map(\.key.playerId)
        let values = scores.map(\.value)
        let times = scores.map(\.submittedAt)
        var ids: [Int64] = []
        ids.reserveCapacity(scores.count)
        for try await id in try await connection.query(
            """
            INSERT INTO score (game_id, board_id, player_id, value, submitted_at)
            SELECT g, b, p, v, t FROM unnest(\(games)::text[], \(boards)::text[], \(players)::text[], \(values)::bigint[],
                \(times)::bigint[]) WITH ORDINALITY AS u(g, b, p, v, t, ord)
            ORDER BY ord
            RETURNING id
            """, logger: logger
        ).decode(Int64.self) {
            ids.append(id)
        }
        return ids.sorted()
    }

    public func entryKeys(gameId: String, boardId: String) async throws -> [StoredScore] {
        try await scores(
            "SELECT player_id, value, submitted_at FROM entry WHERE game_id = \(gameId) AND board_id = \(boardId)")
    }

    public func entries(gameId: String, boardId: String, playerIds: [String]) async throws -> [String: StoredEntry] {
        guard !playerIds.isEmpty else { return [:] }
        let logger = logger
        return try await database.read { connection in
            var result: [String: StoredEntry] = [:]
            let rows = try await connection.query(
                """
                SELECT player_id, value, context, metadata, submitted_at FROM entry
                WHERE game_id = \(gameId) AND board_id = \(boardId) AND player_id = ANY(\(playerIds))
                """, logger: logger)
            for try await (playerId, value, context, metadata, submittedAt) in rows.decode(
                (String, Int64, Int64?, String?, Int64).self)
            {
                result[playerId] = StoredEntry(
                    value: value, context: context, metadata: metadata, submittedAt: submittedAt)
            }
            return result
        }
    }

    public func scores(gameId: String, boardId: String, since: Int64) async throws -> [StoredScore] {
        try await scores(
            """
            SELECT player_id, value, submitted_at FROM score WHERE game_id = \(gameId) AND board_id = \(boardId)
                AND submitted_at >= \(since) ORDER BY id
            """)
    }

    public func history(gameId: String, boardId: String, playerId: String, descending: Bool, limit: Int) async throws
        -> [StoredScore]
    {
        var query: PostgresQuery = """
            SELECT player_id, value, submitted_at FROM score
            WHERE game_id = \(gameId) AND board_id = \(boardId) AND player_id = \(playerId)
            """
        query.sql += " ORDER BY value \(descending ? "DESC" : "ASC"), submitted_at ASC LIMIT \(limit)"
        return try await scores(query)
    }

    private func scores(_ query: PostgresQuery) async throws -> [StoredScore] {
        let logger = logger
        return try await database.read { connection in
            var scores: [StoredScore] = []
            for try await (playerId, value, submittedAt) in try await connection.query(query, logger: logger)
                .decode((String, Int64, Int64).self)
            {
                scores.append(StoredScore(playerId: playerId, value: value, submittedAt: submittedAt))
            }
            return scores
        }
    }

    public func ranked(gameId: String, boardId: String, descending: Bool, offset: Int, limit: Int) async throws
        -> [(playerId: String, entry: StoredEntry)]
    {
        var query: PostgresQuery = """
            SELECT player_id, value, context, metadata, submitted_at FROM entry WHERE game_id = \(gameId) AND board_id = \(boardId)
            """
        query.sql +=
            " ORDER BY value \(descending ? "DESC" : "ASC"), submitted_at ASC, player_id ASC LIMIT \(limit) OFFSET \(offset)"
        let logger = logger
        return try await database.read { [query] connection in
            var result: [(playerId: String, entry: StoredEntry)] = []
            for try await (playerId, value, context, metadata, submittedAt) in try await connection.query(
                query, logger: logger
            )
            .decode((String, Int64, Int64?, String?, Int64).self) {
                result.append(
                    (
                        playerId,
                        StoredEntry(value: value, context: context, metadata: metadata, submittedAt: submittedAt)
                    ))
            }
            return result
        }
    }

    public func entryCount(gameId: String, boardId: String, includingPeriods: Bool) async throws -> Int {
        let pattern =
            boardId.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "_", with: "\\_")
            .replacingOccurrences(of: "%", with: "\\%") + "#%"
        let query: PostgresQuery =
            includingPeriods
            ? "SELECT COUNT(*)::bigint FROM entry WHERE game_id = \(gameId) AND (board_id = \(boardId) OR board_id LIKE \(pattern))"
            : "SELECT COUNT(*)::bigint FROM entry WHERE game_id = \(gameId) AND board_id = \(boardId)"
        return Int(try await single(query) ?? 0)
    }

    private func single(_ query: PostgresQuery) async throws -> Int64? {
        let logger = logger
        return try await database.read { connection in
            for try await value in try await connection.query(query, logger: logger).decode(Int64?.self) {
                return value
            }
            return nil
        }
    }

    public func savedDefinitions() async throws -> [(gameId: String, definition: LeaderboardDefinition)] {
        let logger = logger
        return try await database.read { connection in
            var result: [(gameId: String, definition: LeaderboardDefinition)] = []
            for try await (gameId, json) in try await connection.query(
                "SELECT game_id, json FROM definition WHERE NOT removed ORDER BY game_id, board_id", logger: logger
            ).decode((String, String).self) {
                if let definition = try? WireCodec.decode(LeaderboardDefinition.self, from: Data(json.utf8)) {
                    result.append((gameId, definition))
                }
            }
            return result
        }
    }

    public func removedDefinitions() async throws -> [(gameId: String, boardId: String)] {
        let logger = logger
        return try await database.read { connection in
            var result: [(gameId: String, boardId: String)] = []
            for try await (gameId, boardId) in try await connection.query(
                "SELECT game_id, board_id FROM definition WHERE removed", logger: logger
            ).decode((String, String).self) {
                result.append((gameId, boardId))
            }
            return result
        }
    }

    public func saveDefinition(_ definition: LeaderboardDefinition, gameId: String) async throws {
        let json = String(decoding: try WireCodec.encode(definition), as: UTF8.self)
        let logger = logger
        try await database.transaction(partitions: partitions([(gameId, definition.id)])) { connection in
            try await connection.query(
                """
                INSERT INTO definition (game_id, board_id, json, removed) VALUES (\(gameId), \(definition.id), \(json), false)
                ON CONFLICT (game_id, board_id) DO UPDATE SET json = excluded.json, removed = false
                """, logger: logger)
        }
    }

    public func deleteDefinition(boardId: String, gameId: String) async throws {
        let logger = logger
        try await database.transaction(partitions: partitions([(gameId, boardId)])) { connection in
            try await connection.query(
                """
                INSERT INTO definition (game_id, board_id, json, removed) VALUES (\(gameId), \(boardId), '{}', true)
                ON CONFLICT (game_id, board_id) DO UPDATE SET removed = true
                """, logger: logger)
        }
    }

    public func position(of stream: String) async throws -> UInt64 {
        let logger = logger
        return try await database.read { connection in
            try await PostgresDurable.position(stream, on: connection, logger: logger)
        }
    }

    public func boards(ofPlayer playerId: String) async throws -> [(gameId: String, boardId: String)] {
        let logger = logger
        return try await database.read { connection in
            var boards: [(gameId: String, boardId: String)] = []
            for try await (gameId, boardId) in try await connection.query(
                """
                SELECT DISTINCT game_id, board_id FROM entry WHERE player_id = \(playerId)
                UNION SELECT DISTINCT game_id, board_id FROM score WHERE player_id = \(playerId)
                """, logger: logger
            ).decode((String, String).self) {
                boards.append((gameId, boardId))
            }
            return boards
        }
    }

    public func erase(
        _ erasure: AccountErasure?, boards: [(gameId: String, boardId: String)], durable: DurableWrites
    ) async throws {
        let logger = logger
        // Fenced by the consumer group's partitions (FencedPartitions), whose boards these are.
        try await database.transaction { connection in
            if let erasure {
                let playerId = erasure.playerId
                for (gameId, boardId) in boards {
                    try await connection.query(
                        "DELETE FROM entry WHERE game_id = \(gameId) AND board_id = \(boardId) AND player_id = \(playerId)",
                        logger: logger)
                    try await connection.query(
                        "DELETE FROM score WHERE game_id = \(gameId) AND board_id = \(boardId) AND player_id = \(playerId)",
                        logger: logger)
                }
                try await PostgresDurable.erase(erasure, on: connection, logger: logger)
            }
            try await PostgresDurable.commit(durable, on: connection, logger: logger)
        }
    }

    public func erasedPlayers() async throws -> [String] {
        let logger = logger
        return try await database.read { connection in
            try await PostgresDurable.erasedPlayers(on: connection, logger: logger)
        }
    }

    public func export(playerId: String, limit: Int) async throws -> (
        entries: [LeaderboardExport.Entry], scores: [LeaderboardExport.Score]
    ) {
        let logger = logger
        return try await database.read { connection in
            var entries: [LeaderboardExport.Entry] = []
            for try await (gameId, boardId, value, context, metadata, submittedAt) in try await connection.query(
                """
                SELECT game_id, board_id, value, context, metadata, submitted_at FROM entry WHERE player_id = \(playerId)
                ORDER BY game_id, board_id
                """, logger: logger
            ).decode((String, String, Int64, Int64?, String?, Int64).self) {
                entries.append(
                    LeaderboardExport.Entry(
                        gameId: gameId, boardId: boardId, value: value, context: context,
                        metadata: metadata.flatMap { try? WireCodec.decode(JSONValue.self, from: Data($0.utf8)) },
                        submittedAt: submittedAt))
            }
            var scores: [LeaderboardExport.Score] = []
            for try await (gameId, boardId, value, submittedAt) in try await connection.query(
                """
                SELECT game_id, board_id, value, submitted_at FROM score WHERE player_id = \(playerId)
                ORDER BY submitted_at DESC, id DESC LIMIT \(limit)
                """, logger: logger
            ).decode((String, String, Int64, Int64).self) {
                scores.append(
                    LeaderboardExport.Score(gameId: gameId, boardId: boardId, value: value, submittedAt: submittedAt))
            }
            return (entries, scores)
        }
    }

    public func removeEntry(gameId: String, boardId: String, playerId: String) async throws -> Bool {
        let logger = logger
        return try await database.transaction(partitions: partitions([(gameId, boardId)])) { connection in
            var removed = false
            for try await _ in try await connection.query(
                "DELETE FROM entry WHERE game_id = \(gameId) AND board_id = \(boardId) AND player_id = \(playerId) RETURNING 1",
                logger: logger
            ).decode(Int32.self) {
                removed = true
            }
            try await connection.query(
                "DELETE FROM score WHERE game_id = \(gameId) AND board_id = \(boardId) AND player_id = \(playerId)",
                logger: logger)
            return removed
        }
    }

    public func archive(gameId: String, boardId: String, storageID: String, resetAt: Int64) async throws
        -> LeaderboardArchive
    {
        let logger = logger
        return try await database.transaction(partitions: partitions([(gameId, boardId)])) { connection in
            try await connection.query("LOCK TABLE archive IN EXCLUSIVE MODE", logger: logger)
            var number: Int64 = 1
            for try await last in try await connection.query(
                "SELECT MAX(archive) FROM archive WHERE game_id = \(gameId) AND board_id = \(boardId)", logger: logger
            ).decode(Int64?.self) {
                number = (last ?? 0) + 1
            }
            let archiveID = "\(storageID)@archive-\(number)"
            var entries = 0
            for try await _ in try await connection.query(
                "UPDATE entry SET board_id = \(archiveID) WHERE game_id = \(gameId) AND board_id = \(storageID) RETURNING 1",
                logger: logger
            ).decode(Int32.self) {
                entries += 1
            }
            try await connection.query(
                """
                INSERT INTO archive (game_id, board_id, archive, storage_id, source_id, reset_at, entries)
                VALUES (\(gameId), \(boardId), \(number), \(archiveID), \(storageID), \(resetAt), \(Int64(entries)))
                """, logger: logger)
            return LeaderboardArchive(boardId: boardId, archive: number, resetAt: resetAt, entries: entries)
        }
    }

    public func archives(gameId: String, boardId: String) async throws -> [(
        archive: LeaderboardArchive, storageID: String
    )] {
        let logger = logger
        return try await database.read { connection in
            var result: [(archive: LeaderboardArchive, storageID: String)] = []
            for try await (number, storageID, resetAt, entries) in try await connection.query(
                """
                SELECT archive, storage_id, reset_at, entries FROM archive WHERE game_id = \(gameId) AND board_id = \(boardId)
                ORDER BY archive DESC
                """, logger: logger
            ).decode((Int64, String, Int64, Int64).self) {
                result.append(
                    (
                        LeaderboardArchive(boardId: boardId, archive: number, resetAt: resetAt, entries: Int(entries)),
                        storageID
                    ))
            }
            return result
        }
    }

    public func lastReset(gameId: String, storageID: String) async throws -> Int64? {
        try await single("SELECT MAX(reset_at) FROM archive WHERE game_id = \(gameId) AND source_id = \(storageID)")
    }
}
