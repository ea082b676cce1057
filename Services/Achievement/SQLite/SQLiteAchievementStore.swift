import Achievement
import Foundation
import GRDB
import PodiumMessages
import PodiumRuntime
import PodiumSQLite

/// The achievement service's storage in SQLite (GRDB, `achievement-progress.sqlite`).
public final class SQLiteAchievementStore: AchievementStore {
    let database: DatabasePool
    public let location: String
    public var durable: any DurableTablesAccess { SQLiteDurableReader(database) }

    /// Opens `<data>/<service>-progress.sqlite`.
    public static let opener: AchievementStoreOpener = { settings in
        try SQLiteAchievementStore(
            path: StorageLocation.database(for: "\(settings.service)-progress", in: settings.dataDirectory))
    }

    public init(path: URL) throws {
        database = try DurableDatabase.open(at: path)
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1-progress") { db in
            try db.create(table: "progress") { t in
                t.column("game_id", .text).notNull()
                t.column("player_id", .text).notNull()
                t.column("achievement_id", .text).notNull()
                t.column("steps", .integer).notNull()
                t.column("percent", .double).notNull()
                t.column("times_earned", .integer).notNull()
                t.column("earned_at", .integer)
                t.column("rule_state", .text)
                t.primaryKey(["game_id", "player_id", "achievement_id"])
            }
            try db.create(
                index: "progress_earned", on: "progress", columns: ["game_id", "achievement_id", "times_earned"])
            try db.create(table: "report_receipt") { t in
                t.column("game_id", .text).notNull()
                t.column("player_id", .text).notNull()
                t.column("achievement_id", .text).notNull()
                t.column("report_id", .text).notNull()
                t.column("outcome", .text).notNull()
                t.primaryKey(["game_id", "player_id", "achievement_id", "report_id"])
            }
            try db.create(table: "definition") { t in
                t.column("game_id", .text).notNull()
                t.column("achievement_id", .text).notNull()
                t.column("json", .text).notNull()
                t.primaryKey(["game_id", "achievement_id"])
            }
        }
        migrator.registerMigration("v2-event-effects") { db in
            try db.create(table: "event_effect") { t in
                t.primaryKey("sequence", .integer)
                t.column("game_id", .text).notNull()
                t.column("player_id", .text).notNull()
                t.column("outcomes", .text).notNull()
            }
        }
        DurableTables.register(in: &migrator)
        try migrator.migrate(database)
        location = "sqlite:\(path.path)"
    }

    public func progress(gameId: String, playerId: String) async throws -> [String: ProgressRecord] {
        try await database.read { db in
            var result: [String: ProgressRecord] = [:]
            for row in try Row.fetchAll(
                try db.cachedStatement(sql: "SELECT * FROM progress WHERE game_id = ? AND player_id = ?"),
                arguments: [gameId, playerId])
            {
                result[row["achievement_id"]] = Self.record(row)
            }
            return result
        }
    }

    public func save(_ changes: [AchievementChange]) async throws {
        guard !changes.isEmpty else { return }
        let encoded = try changes.map { change in
            let states = try change.records.mapValues { record in
                try record.ruleState.map { String(decoding: try WireCodec.encode($0), as: UTF8.self) }
            }
            let effects = try change.journal.eventEffects.flatMap { event in
                event.outcomes.isEmpty ? nil : String(decoding: try WireCodec.encode(event.outcomes), as: UTF8.self)
            }
            return (states: states, effects: effects)
        }
        try await database.write { db in
            for (change, encoded) in zip(changes, encoded) {
                try Self.write(db, change, encoded: encoded.states, effects: encoded.effects)
            }
        }
    }

    private static func write(_ db: Database, _ change: AchievementChange, encoded: [String: String?], effects: String?)
        throws
    {
        let (gameId, playerId, journal) = (change.gameId, change.playerId, change.journal)
        try Self.write(db, gameId: gameId, playerId: playerId, records: change.records, encoded: encoded)
        for receipt in journal.reportReceipts {
            try db.cachedStatement(
                sql:
                    "INSERT OR IGNORE INTO report_receipt (game_id, player_id, achievement_id, report_id, outcome) VALUES (?, ?, ?, ?, ?)"
            ).execute(arguments: [gameId, playerId, receipt.achievementId, receipt.reportId, receipt.outcome])
        }
        if let event = journal.eventEffects, let effects {
            try db.cachedStatement(
                sql:
                    "INSERT OR REPLACE INTO event_effect (sequence, game_id, player_id, outcomes) VALUES (?, ?, ?, ?)"
            ).execute(arguments: [Int64(event.sequence), gameId, playerId, effects])
        }
        try SQLiteDurable.commit(journal.durable, in: db)
    }

    private static func write(
        _ db: Database, gameId: String, playerId: String, records: [String: ProgressRecord], encoded: [String: String?]
    ) throws {
        for (achievementId, record) in records {
            try db.cachedStatement(
                sql: """
                    INSERT INTO progress (game_id, player_id, achievement_id, steps, percent, times_earned, earned_at, rule_state)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                    ON CONFLICT(game_id, player_id, achievement_id) DO UPDATE SET steps = excluded.steps,
                        percent = excluded.percent, times_earned = excluded.times_earned, earned_at = excluded.earned_at,
                        rule_state = excluded.rule_state
                    """
            ).execute(arguments: [
                gameId, playerId, achievementId, record.steps, record.percent, record.timesEarned, record.earnedAt,
                encoded[achievementId] ?? nil,
            ])
        }
    }

    /// Every stored record of some games, by game, player and achievement.
    public func progress(gameIds: [String]) async throws -> ProgressByGame {
        try await database.read { db in
            var result: [String: [String: [String: ProgressRecord]]] = [:]
            for gameId in gameIds {
                for row in try Row.fetchAll(
                    try db.cachedStatement(sql: "SELECT * FROM progress WHERE game_id = ?"), arguments: [gameId])
                {
                    result[gameId, default: [:]][row["player_id"], default: [:]][row["achievement_id"]] = Self.record(
                        row)
                }
            }
            return result
        }
    }

    /// Replaces records (a rebuild), with the unlocks' messages and the event log position, in one transaction.
    public func replace(_ records: ProgressByGame, durable: DurableWrites) async throws {
        var states: [String: [String: [String: String?]]] = [:]
        for (gameId, players) in records {
            for (playerId, changed) in players {
                states[gameId, default: [:]][playerId] = try changed.mapValues { record in
                    try record.ruleState.map { String(decoding: try WireCodec.encode($0), as: UTF8.self) }
                }
            }
        }
        let encoded = states
        try await database.write { db in
            for (gameId, players) in records {
                for (playerId, changed) in players {
                    try Self.write(
                        db, gameId: gameId, playerId: playerId, records: changed,
                        encoded: encoded[gameId]?[playerId] ?? [:])
                }
            }
            try SQLiteDurable.commit(durable, in: db)
        }
    }

    private static func record(_ row: Row) -> ProgressRecord {
        let stateText: String? = row["rule_state"]
        return ProgressRecord(
            steps: row["steps"], percent: row["percent"], timesEarned: row["times_earned"], earnedAt: row["earned_at"],
            ruleState: stateText.flatMap { try? WireCodec.decode(RuleState.self, from: Data($0.utf8)) })
    }

    /// The event log position applied.
    public func eventPosition(of stream: String) async throws -> UInt64 {
        try await database.read { db in try SQLiteDurable.position(db, stream: stream) }
    }

    /// What a logged event did (nil: nothing, or not applied yet).
    public func effects(sequence: UInt64) async throws -> [ReportOutcome]? {
        try await database.read { db in
            try String.fetchOne(
                try db.cachedStatement(sql: "SELECT outcomes FROM event_effect WHERE sequence = ?"),
                arguments: [Int64(sequence)]
            )
            .map { try WireCodec.decode([ReportOutcome].self, from: Data($0.utf8)) }
        }
    }

    /// The stored reply of a request id, checked against its payload (throws `id_reused`).
    public func replay(_ key: RequestKey) async throws -> JSONValue? {
        try await database.read { db in
            try SQLiteDurable.replay(db, key)
        }
    }

    public func receipt(gameId: String, playerId: String, achievementId: String, reportId: String) async throws
        -> String?
    {
        try await database.read { db in
            try String.fetchOne(
                try db.cachedStatement(
                    sql:
                        "SELECT outcome FROM report_receipt WHERE game_id = ? AND player_id = ? AND achievement_id = ? AND report_id = ?"
                ),
                arguments: [gameId, playerId, achievementId, reportId])
        }
    }

    /// How many players earned each achievement, and how many players have any record in the game.
    public func earnedShares(gameId: String) async throws -> (earned: [String: Int], players: Int) {
        try await database.read { db in
            let players =
                try Int.fetchOne(
                    try db.cachedStatement(sql: "SELECT COUNT(DISTINCT player_id) FROM progress WHERE game_id = ?"),
                    arguments: [gameId]) ?? 0
            var earned: [String: Int] = [:]
            for row in try Row.fetchAll(
                try db.cachedStatement(
                    sql:
                        "SELECT achievement_id, COUNT(*) AS n FROM progress WHERE game_id = ? AND times_earned > 0 GROUP BY achievement_id"
                ),
                arguments: [gameId])
            {
                earned[row["achievement_id"]] = row["n"]
            }
            return (earned, players)
        }
    }

    /// Deletes one player's achievements in one game; returns how many records went.
    public func games(ofPlayer playerId: String) async throws -> [String] {
        try await database.read { db in
            try String.fetchAll(
                db,
                sql: """
                    SELECT game_id FROM progress WHERE player_id = ?1 UNION SELECT game_id FROM report_receipt WHERE player_id = ?1
                    UNION SELECT game_id FROM event_effect WHERE player_id = ?1
                    """, arguments: [playerId])
        }
    }

    public func erase(_ erasure: AccountErasure?, games: [String], durable: DurableWrites) async throws {
        try await database.write { db in
            if let erasure {
                for gameId in games {
                    for table in ["progress", "report_receipt", "event_effect"] {
                        try db.execute(
                            sql: "DELETE FROM \(table) WHERE game_id = ? AND player_id = ?",
                            arguments: [gameId, erasure.playerId])
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

    public func reset(gameId: String, playerId: String) async throws -> Int {
        try await database.write { db in
            try db.cachedStatement(sql: "DELETE FROM progress WHERE game_id = ? AND player_id = ?").execute(arguments: [
                gameId, playerId,
            ])
            let removed = db.changesCount
            try db.cachedStatement(sql: "DELETE FROM report_receipt WHERE game_id = ? AND player_id = ?").execute(
                arguments: [gameId, playerId])
            return removed
        }
    }

    public func savedDefinitions() async throws -> [(gameId: String, definition: AchievementDefinition)] {
        try await database.read { db in
            try Row.fetchAll(
                try db.cachedStatement(sql: "SELECT game_id, json FROM definition ORDER BY game_id, achievement_id")
            ).compactMap { row in
                let json: String = row["json"]
                guard let definition = try? WireCodec.decode(AchievementDefinition.self, from: Data(json.utf8)) else {
                    return nil
                }
                return (row["game_id"], definition)
            }
        }
    }

    public func saveDefinition(_ definition: AchievementDefinition, gameId: String) async throws {
        let json = String(decoding: try WireCodec.encode(definition), as: UTF8.self)
        try await database.write { db in
            try db.cachedStatement(
                sql: "INSERT OR REPLACE INTO definition (game_id, achievement_id, json) VALUES (?, ?, ?)"
            ).execute(arguments: [gameId, definition.id, json])
        }
    }
}
