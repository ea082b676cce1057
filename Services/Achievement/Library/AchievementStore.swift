import Foundation
import GRDB
import PodiumMessages

/// A player's standing on one achievement.
struct ProgressRecord: Sendable, Equatable {
    var steps: Int64 = 0
    /// The highest percent reported directly (percent reports are kept as given).
    var percent: Double = 0
    var timesEarned: Int = 0
    var earnedAt: Int64?
    /// The rule's memory (JSON of ``RuleState``), for rule-based achievements.
    var ruleState: RuleState?

    /// Percent complete, 0-100.
    func percentComplete(target: Int64) -> Double {
        min(100, max(percent, Double(steps) * 100 / Double(max(1, target))))
    }

    var hasProgress: Bool { steps > 0 || percent > 0 || timesEarned > 0 }
}

/// The achievement service's storage (SQLite via GRDB, `achievement-progress.sqlite`).
final class AchievementStore: Sendable {
    private let database: DatabasePool

    init(path: URL) throws {
        try FileManager.default.createDirectory(at: path.deletingLastPathComponent(), withIntermediateDirectories: true)
        database = try DatabasePool(path: path.path)
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
            try db.create(index: "progress_earned", on: "progress", columns: ["game_id", "achievement_id", "times_earned"])
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
        try migrator.migrate(database)
    }

    func progress(gameId: String, playerId: String) async throws -> [String: ProgressRecord] {
        try await database.read { db in
            var result: [String: ProgressRecord] = [:]
            for row in try Row.fetchAll(
                db, sql: "SELECT * FROM progress WHERE game_id = ? AND player_id = ?", arguments: [gameId, playerId])
            {
                let stateText: String? = row["rule_state"]
                result[row["achievement_id"]] = ProgressRecord(
                    steps: row["steps"], percent: row["percent"], timesEarned: row["times_earned"], earnedAt: row["earned_at"],
                    ruleState: stateText.flatMap { try? WireCodec.decode(RuleState.self, from: Data($0.utf8)) })
            }
            return result
        }
    }

    /// Writes changed records and report receipts in one transaction.
    func save(
        gameId: String, playerId: String, records: [String: ProgressRecord], receipts: [(achievementId: String, reportId: String, outcome: String)]
    ) async throws {
        let encoded = try records.mapValues { record in
            try record.ruleState.map { String(decoding: try WireCodec.encode($0), as: UTF8.self) }
        }
        try await database.write { db in
            for (achievementId, record) in records {
                try db.execute(
                    sql: """
                        INSERT INTO progress (game_id, player_id, achievement_id, steps, percent, times_earned, earned_at, rule_state)
                        VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                        ON CONFLICT(game_id, player_id, achievement_id) DO UPDATE SET steps = excluded.steps,
                            percent = excluded.percent, times_earned = excluded.times_earned, earned_at = excluded.earned_at,
                            rule_state = excluded.rule_state
                        """,
                    arguments: [
                        gameId, playerId, achievementId, record.steps, record.percent, record.timesEarned, record.earnedAt,
                        encoded[achievementId] ?? nil,
                    ])
            }
            for receipt in receipts {
                try db.execute(
                    sql: "INSERT OR IGNORE INTO report_receipt (game_id, player_id, achievement_id, report_id, outcome) VALUES (?, ?, ?, ?, ?)",
                    arguments: [gameId, playerId, receipt.achievementId, receipt.reportId, receipt.outcome])
            }
        }
    }

    func receipt(gameId: String, playerId: String, achievementId: String, reportId: String) async throws -> String? {
        try await database.read { db in
            try String.fetchOne(
                db, sql: "SELECT outcome FROM report_receipt WHERE game_id = ? AND player_id = ? AND achievement_id = ? AND report_id = ?",
                arguments: [gameId, playerId, achievementId, reportId])
        }
    }

    /// How many players earned each achievement, and how many players have any record in the game.
    func earnedShares(gameId: String) async throws -> (earned: [String: Int], players: Int) {
        try await database.read { db in
            let players = try Int.fetchOne(db, sql: "SELECT COUNT(DISTINCT player_id) FROM progress WHERE game_id = ?", arguments: [gameId]) ?? 0
            var earned: [String: Int] = [:]
            for row in try Row.fetchAll(
                db, sql: "SELECT achievement_id, COUNT(*) AS n FROM progress WHERE game_id = ? AND times_earned > 0 GROUP BY achievement_id",
                arguments: [gameId])
            {
                earned[row["achievement_id"]] = row["n"]
            }
            return (earned, players)
        }
    }

    /// Deletes one player's achievements in one game; returns how many records went.
    func reset(gameId: String, playerId: String) async throws -> Int {
        try await database.write { db in
            try db.execute(sql: "DELETE FROM progress WHERE game_id = ? AND player_id = ?", arguments: [gameId, playerId])
            let removed = db.changesCount
            try db.execute(sql: "DELETE FROM report_receipt WHERE game_id = ? AND player_id = ?", arguments: [gameId, playerId])
            return removed
        }
    }

    func savedDefinitions() async throws -> [(gameId: String, definition: AchievementDefinition)] {
        try await database.read { db in
            try Row.fetchAll(db, sql: "SELECT game_id, json FROM definition ORDER BY game_id, achievement_id").compactMap { row in
                let json: String = row["json"]
                guard let definition = try? WireCodec.decode(AchievementDefinition.self, from: Data(json.utf8)) else { return nil }
                return (row["game_id"], definition)
            }
        }
    }

    func saveDefinition(_ definition: AchievementDefinition, gameId: String) async throws {
        let json = String(decoding: try WireCodec.encode(definition), as: UTF8.self)
        try await database.write { db in
            try db.execute(
                sql: "INSERT OR REPLACE INTO definition (game_id, achievement_id, json) VALUES (?, ?, ?)",
                arguments: [gameId, definition.id, json])
        }
    }
}
