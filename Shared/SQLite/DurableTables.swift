import GRDB
import PodiumRuntime

/// The tables every service database with durable state shares: its outbox, its positions in the
/// streams it follows, and the receipts of the requests it applied. Each is written in the same
/// transaction as the state change it belongs to, which is what makes replay exact.
public enum DurableTables {
    /// Adds the tables' migration; call after the service's own migrations.
    public static func register(in migrator: inout DatabaseMigrator) {
        migrator.registerMigration("podium-durable-v1") { db in
            try db.create(table: "podium_outbox") { table in
                table.autoIncrementedPrimaryKey("seq")
                table.column("topic", .text).notNull()
                table.column("envelope", .blob).notNull()
            }
            try db.create(table: "podium_position") { table in
                table.primaryKey("stream", .text)
                table.column("sequence", .integer).notNull()
            }
            try db.create(table: "podium_receipt") { table in
                table.column("scope", .text).notNull()
                table.column("request_id", .text).notNull()
                table.column("fingerprint", .text).notNull()
                table.column("reply", .text).notNull()
                table.column("created_at", .integer).notNull()
                table.primaryKey(["scope", "request_id"])
            }
        }
        migrator.registerMigration("podium-durable-v2-receipt-type") { db in
            try db.alter(table: "podium_receipt") { table in table.add(column: "request_type", .text) }
        }
        migrator.registerMigration("podium-durable-v3-retention") { db in
            // Rows written before this version count as written at time 0: the oldest.
            try db.alter(table: "podium_outbox") { table in
                table.add(column: "created_at", .integer).notNull().defaults(to: 0)
            }
            try db.create(index: "podium_outbox_created_at", on: "podium_outbox", columns: ["created_at"])
            try db.create(index: "podium_receipt_created_at", on: "podium_receipt", columns: ["created_at"])
        }
        migrator.registerMigration("podium-durable-v4-erased-players") { db in
            // Players whose accounts were deleted (docs/PROTOCOL.md 8.14): their data is erased and
            // nothing more is stored for them.
            try db.execute(
                sql: "CREATE TABLE podium_erased_player (player_id TEXT PRIMARY KEY, erased_at INTEGER NOT NULL)")
        }
    }
}
