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
            ])
    ]

    public init(database: PostgresStorage) { self.database = database }

    public func close() async { database.close() }
    public var storageName: String { database.settings.schema }
    public func storageBytes() async throws -> Int { try await database.schemaBytes() }

    /// Opens the service's schema in `PODIUM_DATABASE_URL`'s database.
    public static func open(_ settings: DatabaseSettings) async throws -> PostgresLeaderboardStore {
        PostgresLeaderboardStore(
            database: try await PostgresStorage.open(
                settings, migrations: migrations, logger: Logger(label: "podium.leaderboard")))
    }

    /// Opens the store in the database `settings` name (the executable chooses the backend:
    /// ``StorageBackend``).
    public static let opener: @Sendable (DatabaseSettings) async throws -> any LeaderboardStore = { try await open($0) }

    /// The connection pool, watched as one of the service's loops.
    public var runner: (any StorageRunner)? { database }

    public func submit(_ batch: [PendingSubmission]) async throws -> [Result<SubmissionOutcome, ErrorReply>] {
        let logger = logger
        return try await database.transaction { connection in
            var results: [Result<SubmissionOutcome, ErrorReply>] = []
            var writes = DurableWrites()
            for pending in batch {
                var wrote = false
                do {
                    results.append(
                        .success(try await Self.apply(pending, wrote: &wrote, writes: &writes, connection, logger)))
                } catch let refusal as ErrorReply where !wrote {
                    results.append(.failure(refusal))
                }
            }
            try await PostgresDurable.commit(writes, on: connection, logger: logger)
            return results
        }
    }

    private static func apply(
        _ pending: PendingSubmission, wrote: inout Bool, writes: inout DurableWrites, _ connection: PostgresConnection,
        _ logger: Logger
    ) async throws -> SubmissionOutcome {
        if let request = pending.request {
            if let stored = try await PostgresDurable.replay(request, on: connection, logger: logger) {
                return .replayed(stored)
            }
            if let earlier = writes.receipts.first(where: {
                $0.key.scope == request.scope && $0.key.requestId == request.requestId
            }) {
                return .replayed(
                    try RequestReceipts.replay(
                        request, storedFingerprint: earlier.key.fingerprint, storedReply: earlier.reply))
            }
        }
        let previous = try await entry(pending.gameId, pending.boardId, pending.playerId, connection, logger)
        let decided = try pending.decide(previous)
        wrote = true
        if let decided {
            try await connection.query(
                """
                INSERT INTO entry (game_id, board_id, player_id, value, context, metadata, submitted_at)
                VALUES (\(pending.gameId), \(pending.boardId), \(pending.playerId), \(decided.value), \(decided.context),
                    \(decided.metadata), \(decided.submittedAt))
                ON CONFLICT (game_id, board_id, player_id) DO UPDATE SET value = excluded.value, context = excluded.context,
                    metadata = excluded.metadata, submitted_at = excluded.submitted_at
                """, logger: logger)
        }
        var version: Int64 = 0
        for try await id in try await connection.query(
            """
            INSERT INTO score (game_id, board_id, player_id, value, submitted_at)
            VALUES (\(pending.gameId), \(pending.boardId), \(pending.playerId), \(pending.value), \(pending.submittedAt)) RETURNING id
            """, logger: logger
        ).decode(Int64.self) {
            version = id
        }
        let journal = try pending.journal(previous, decided ?? previous)
        writes.recordReceipt(pending.request, reply: journal.reply, at: pending.submittedAt)
        try writes.appendToOutbox(journal.accepted.envelope, on: journal.accepted.topic)
        return .applied(previous: previous, current: decided ?? previous, version: version, journal: journal)
    }

    private static func entry(
        _ gameId: String, _ boardId: String, _ playerId: String, _ connection: PostgresConnection, _ logger: Logger
    ) async throws -> StoredEntry? {
        let rows = try await connection.query(
            """
            SELECT value, context, metadata, submitted_at FROM entry
            WHERE game_id = \(gameId) AND board_id = \(boardId) AND player_id = \(playerId)
            """, logger: logger)
        for try await (value, context, metadata, submittedAt) in rows.decode((Int64, Int64?, String?, Int64).self) {
            return StoredEntry(value: value, context: context, metadata: metadata, submittedAt: submittedAt)
        }
        return nil
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
        try await database.transaction { connection in
            try await connection.query(
                """
                INSERT INTO definition (game_id, board_id, json, removed) VALUES (\(gameId), \(definition.id), \(json), false)
                ON CONFLICT (game_id, board_id) DO UPDATE SET json = excluded.json, removed = false
                """, logger: logger)
        }
    }

    public func deleteDefinition(boardId: String, gameId: String) async throws {
        let logger = logger
        try await database.transaction { connection in
            try await connection.query(
                """
                INSERT INTO definition (game_id, board_id, json, removed) VALUES (\(gameId), \(boardId), '{}', true)
                ON CONFLICT (game_id, board_id) DO UPDATE SET removed = true
                """, logger: logger)
        }
    }

    public func removeEntry(gameId: String, boardId: String, playerId: String) async throws -> Bool {
        let logger = logger
        return try await database.transaction { connection in
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
        return try await database.transaction { connection in
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
