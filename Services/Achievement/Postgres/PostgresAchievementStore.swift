import Achievement
import Foundation
import Logging
import PodiumMessages
import PodiumPostgres
import PodiumRuntime
import PostgresNIO

/// The achievement service's storage in PostgreSQL (tables `progress`, `report_receipt`,
/// `definition`, `event_effect` in the service's schema).
public final class PostgresAchievementStore: AchievementStore, StorageSize {
    let database: PostgresStorage
    public var location: String { database.settings.location }
    /// Instances of the service share this database and take turns owning it (``PostgresLeases``).
    public var leases: (any LeaseStore)? { PostgresLeases(database: database, service: "achievement") }
    public var durable: any DurableTablesAccess { PostgresDurableReader(database) }
    private var logger: Logger { database.logger }

    static let migrations = [
        PostgresMigration(
            "v1-progress",
            [
                """
                CREATE TABLE progress (game_id text NOT NULL, player_id text NOT NULL, achievement_id text NOT NULL,
                    steps bigint NOT NULL, percent double precision NOT NULL, times_earned bigint NOT NULL, earned_at bigint,
                    rule_state text, PRIMARY KEY (game_id, player_id, achievement_id))
                """,
                "CREATE INDEX progress_earned ON progress (game_id, achievement_id, times_earned)",
                """
                CREATE TABLE report_receipt (game_id text NOT NULL, player_id text NOT NULL, achievement_id text NOT NULL,
                    report_id text NOT NULL, outcome text NOT NULL, PRIMARY KEY (game_id, player_id, achievement_id, report_id))
                """,
                """
                CREATE TABLE definition (game_id text NOT NULL, achievement_id text NOT NULL, json text NOT NULL,
                    PRIMARY KEY (game_id, achievement_id))
                """,
                """
                CREATE TABLE event_effect (sequence bigint PRIMARY KEY, game_id text NOT NULL, player_id text NOT NULL,
                    outcomes text NOT NULL)
                """,
            ])
    ]

    public init(database: PostgresStorage) { self.database = database }

    public func close() async { database.close() }
    public var storageName: String { database.settings.schema }
    public func storageBytes() async throws -> Int { try await database.schemaBytes() }

    public static func open(_ settings: DatabaseSettings) async throws -> PostgresAchievementStore {
        PostgresAchievementStore(
            database: try await PostgresStorage.open(
                settings, migrations: migrations, logger: Logger(label: "podium.achievement")))
    }

    /// Opens the store in the database `settings` name (the executable chooses the backend:
    /// ``StorageBackend``).
    public static let opener: @Sendable (DatabaseSettings) async throws -> any AchievementStore = { try await open($0) }

    /// The connection pool, watched as one of the service's loops.
    public var runner: (any StorageRunner)? { database }

    private typealias Row = (String, String, String, Int64, Double, Int64, Int64?, String?)
    private static let columns =
        "game_id, player_id, achievement_id, steps, percent, times_earned, earned_at, rule_state"

    private static func record(_ row: Row) -> ProgressRecord {
        ProgressRecord(
            steps: row.3, percent: row.4, timesEarned: Int(row.5), earnedAt: row.6,
            ruleState: row.7.flatMap { try? WireCodec.decode(RuleState.self, from: Data($0.utf8)) })
    }

    public func progress(gameId: String, playerId: String) async throws -> [String: ProgressRecord] {
        let logger = logger
        return try await database.read { connection in
            var result: [String: ProgressRecord] = [:]
            var query: PostgresQuery = " FROM progress WHERE game_id = \(gameId) AND player_id = \(playerId)"
            query.sql = "SELECT \(Self.columns)" + query.sql
            for try await row in try await connection.query(query, logger: logger).decode(Row.self) {
                result[row.2] = Self.record(row)
            }
            return result
        }
    }

    public func progress(gameIds: [String]) async throws -> ProgressByGame {
        let logger = logger
        return try await database.read { connection in
            var result: ProgressByGame = [:]
            var query: PostgresQuery = " FROM progress WHERE game_id = ANY(\(gameIds))"
            query.sql = "SELECT \(Self.columns)" + query.sql
            for try await row in try await connection.query(query, logger: logger).decode(Row.self) {
                result[row.0, default: [:]][row.1, default: [:]][row.2] = Self.record(row)
            }
            return result
        }
    }

    /// A batch of changes in a fixed number of statements, whatever its size: one upsert of the
    /// progress rows (each row's last state), one insert of the report receipts, one upsert of
    /// the events' effects, then the receipts, outbox and positions
    /// (``PostgresDurable/commit(_:on:logger:)``), in one transaction.
    public func save(_ changes: [AchievementChange]) async throws {
        guard !changes.isEmpty else { return }
        let logger = logger
        try await database.transaction { connection in
            var progress = ProgressRows()
            var receipts:
                [(gameId: String, playerId: String, achievementId: String, reportId: String, outcome: String)] =
                    []
            var effects: [Int64: (gameId: String, playerId: String, outcomes: String)] = [:]
            var writes = DurableWrites()
            for change in changes {
                try progress.add(change.records, gameId: change.gameId, playerId: change.playerId)
                for receipt in change.journal.reportReceipts {
                    receipts.append(
                        (change.gameId, change.playerId, receipt.achievementId, receipt.reportId, receipt.outcome))
                }
                if let event = change.journal.eventEffects, !event.outcomes.isEmpty {
                    effects[Int64(event.sequence)] = (
                        change.gameId, change.playerId,
                        String(decoding: try WireCodec.encode(event.outcomes), as: UTF8.self)
                    )
                }
                writes.append(change.journal.durable)
            }
            try await progress.write(connection, logger)
            if !receipts.isEmpty {
                let games = receipts.map(\.gameId)
                let players = receipts.map(\.playerId)
                let achievements = receipts.map(\.achievementId)
                let reports = receipts.map(\.reportId)
                let outcomes = receipts.map(\.outcome)
                try await connection.query(
                    """
                    INSERT INTO report_receipt (game_id, player_id, achievement_id, report_id, outcome)
                    SELECT * FROM unnest(\(games)::text[], \(players)::text[], \(achievements)::text[], \(reports)::text[],
                        \(outcomes)::text[])
                    ON CONFLICT DO NOTHING
                    """, logger: logger)
            }
            if !effects.isEmpty {
                let sequences = effects.keys.sorted()
                let games = sequences.map { effects[$0]!.gameId }
                let players = sequences.map { effects[$0]!.playerId }
                let outcomes = sequences.map { effects[$0]!.outcomes }
                try await connection.query(
                    """
                    INSERT INTO event_effect (sequence, game_id, player_id, outcomes)
                    SELECT * FROM unnest(\(sequences)::bigint[], \(games)::text[], \(players)::text[], \(outcomes)::text[])
                    ON CONFLICT (sequence) DO UPDATE SET game_id = excluded.game_id, player_id = excluded.player_id,
                        outcomes = excluded.outcomes
                    """, logger: logger)
            }
            try await PostgresDurable.commit(writes, on: connection, logger: logger)
        }
    }

    /// Progress rows to upsert in one statement: each (game, player, achievement) once, with its
    /// last state (PostgreSQL updates a row once per statement). Arrays carry no NULLs here, so
    /// the optional columns travel with a flag each.
    private struct ProgressRows {
        private var index: [String: Int] = [:]
        private var games: [String] = []
        private var players: [String] = []
        private var achievements: [String] = []
        private var steps: [Int64] = []
        private var percents: [Double] = []
        private var timesEarned: [Int64] = []
        private var earnedAt: [Int64] = []
        private var hasEarnedAt: [Bool] = []
        private var states: [String] = []
        private var hasState: [Bool] = []

        mutating func add(_ records: [String: ProgressRecord], gameId: String, playerId: String) throws {
            for (achievementId, record) in records {
                let state = try record.ruleState.map { String(decoding: try WireCodec.encode($0), as: UTF8.self) }
                let key = "\(gameId)\u{0}\(playerId)\u{0}\(achievementId)"
                let at: Int
                if let existing = index[key] {
                    at = existing
                } else {
                    at = games.count
                    index[key] = at
                    games.append(gameId)
                    players.append(playerId)
                    achievements.append(achievementId)
                    steps.append(0)
                    percents.append(0)
                    timesEarned.append(0)
                    earnedAt.append(0)
                    hasEarnedAt.append(false)
                    states.append("")
                    hasState.append(false)
                }
                steps[at] = record.steps
                percents[at] = record.percent
                timesEarned[at] = Int64(record.timesEarned)
                earnedAt[at] = record.earnedAt ?? 0
                hasEarnedAt[at] = record.earnedAt != nil
                states[at] = state ?? ""
                hasState[at] = state != nil
            }
        }

        func write(_ connection: PostgresConnection, _ logger: Logger) async throws {
            guard !games.isEmpty else { return }
            try await connection.query(
                """
                INSERT INTO progress (game_id, player_id, achievement_id, steps, percent, times_earned, earned_at, rule_state)
                SELECT g, p, a, s, pc, t, CASE WHEN he THEN e END, CASE WHEN hr THEN r END
                FROM unnest(\(games)::text[], \(players)::text[], \(achievements)::text[], \(steps)::bigint[],
                    \(percents)::float8[], \(timesEarned)::bigint[], \(earnedAt)::bigint[], \(hasEarnedAt)::boolean[],
                    \(states)::text[], \(hasState)::boolean[]) AS u(g, p, a, s, pc, t, e, he, r, hr)
                ON CONFLICT (game_id, player_id, achievement_id) DO UPDATE SET steps = excluded.steps, percent = excluded.percent,
                    times_earned = excluded.times_earned, earned_at = excluded.earned_at, rule_state = excluded.rule_state
                """, logger: logger)
        }
    }

    public func replace(_ records: ProgressByGame, durable: DurableWrites) async throws {
        let logger = logger
        try await database.transaction { connection in
            var progress = ProgressRows()
            for (gameId, players) in records {
                for (playerId, changed) in players {
                    try progress.add(changed, gameId: gameId, playerId: playerId)
                }
            }
            try await progress.write(connection, logger)
            try await PostgresDurable.commit(durable, on: connection, logger: logger)
        }
    }

    public func eventPosition(of stream: String) async throws -> UInt64 {
        let logger = logger
        return try await database.read { connection in
            try await PostgresDurable.position(stream, on: connection, logger: logger)
        }
    }

    public func effects(sequence: UInt64) async throws -> [ReportOutcome]? {
        let logger = logger
        return try await database.read { connection in
            for try await outcomes in try await connection.query(
                "SELECT outcomes FROM event_effect WHERE sequence = \(Int64(clamping: sequence))", logger: logger
            ).decode(String.self) {
                return try WireCodec.decode([ReportOutcome].self, from: Data(outcomes.utf8))
            }
            return nil
        }
    }

    public func replay(_ key: RequestKey) async throws -> JSONValue? {
        let logger = logger
        return try await database.read { connection in
            try await PostgresDurable.replay(key, on: connection, logger: logger)
        }
    }

    public func receipt(gameId: String, playerId: String, achievementId: String, reportId: String) async throws
        -> String?
    {
        let logger = logger
        return try await database.read { connection in
            for try await outcome in try await connection.query(
                """
                SELECT outcome FROM report_receipt WHERE game_id = \(gameId) AND player_id = \(playerId)
                    AND achievement_id = \(achievementId) AND report_id = \(reportId)
                """, logger: logger
            ).decode(String.self) {
                return outcome
            }
            return nil
        }
    }

    public func earnedShares(gameId: String) async throws -> (earned: [String: Int], players: Int) {
        let logger = logger
        return try await database.read { connection in
            var players = 0
            for try await count in try await connection.query(
                "SELECT COUNT(DISTINCT player_id)::bigint FROM progress WHERE game_id = \(gameId)", logger: logger
            ).decode(Int64.self) {
                players = Int(count)
            }
            var earned: [String: Int] = [:]
            for try await (achievementId, count) in try await connection.query(
                """
                SELECT achievement_id, COUNT(*)::bigint FROM progress WHERE game_id = \(gameId) AND times_earned > 0
                GROUP BY achievement_id
                """, logger: logger
            ).decode((String, Int64).self) {
                earned[achievementId] = Int(count)
            }
            return (earned, players)
        }
    }

    public func games(ofPlayer playerId: String) async throws -> [String] {
        let logger = logger
        return try await database.read { connection in
            var games: [String] = []
            for try await game in try await connection.query(
                """
                SELECT game_id FROM progress WHERE player_id = \(playerId)
                UNION SELECT game_id FROM report_receipt WHERE player_id = \(playerId)
                UNION SELECT game_id FROM event_effect WHERE player_id = \(playerId)
                """, logger: logger
            ).decode(String.self) {
                games.append(game)
            }
            return games
        }
    }

    public func erase(_ erasure: AccountErasure?, games: [String], durable: DurableWrites) async throws {
        let logger = logger
        // Fenced by the consumer group's partitions (FencedPartitions), whose players these are.
        try await database.transaction { connection in
            if let erasure {
                let playerId = erasure.playerId
                for gameId in games {
                    try await connection.query(
                        "DELETE FROM progress WHERE game_id = \(gameId) AND player_id = \(playerId)", logger: logger)
                    try await connection.query(
                        "DELETE FROM report_receipt WHERE game_id = \(gameId) AND player_id = \(playerId)",
                        logger: logger)
                    try await connection.query(
                        "DELETE FROM event_effect WHERE game_id = \(gameId) AND player_id = \(playerId)",
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

    public func reset(gameId: String, playerId: String) async throws -> Int {
        let logger = logger
        return try await database.transaction { connection in
            var removed = 0
            for try await _ in try await connection.query(
                "DELETE FROM progress WHERE game_id = \(gameId) AND player_id = \(playerId) RETURNING 1", logger: logger
            ).decode(Int32.self) {
                removed += 1
            }
            try await connection.query(
                "DELETE FROM report_receipt WHERE game_id = \(gameId) AND player_id = \(playerId)", logger: logger)
            return removed
        }
    }

    public func savedDefinitions() async throws -> [(gameId: String, definition: AchievementDefinition)] {
        let logger = logger
        return try await database.read { connection in
            var result: [(gameId: String, definition: AchievementDefinition)] = []
            for try await (gameId, json) in try await connection.query(
                "SELECT game_id, json FROM definition ORDER BY game_id, achievement_id", logger: logger
            ).decode((String, String).self) {
                if let definition = try? WireCodec.decode(AchievementDefinition.self, from: Data(json.utf8)) {
                    result.append((gameId, definition))
                }
            }
            return result
        }
    }

    public func saveDefinition(_ definition: AchievementDefinition, gameId: String) async throws {
        let json = String(decoding: try WireCodec.encode(definition), as: UTF8.self)
        let logger = logger
        try await database.transaction { connection in
            try await connection.query(
                """
                INSERT INTO definition (game_id, achievement_id, json) VALUES (\(gameId), \(definition.id), \(json))
                ON CONFLICT (game_id, achievement_id) DO UPDATE SET json = excluded.json
                """, logger: logger)
        }
    }
}
