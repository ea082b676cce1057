import Foundation
import GRDB

/// The SQLite (GRDB) ``BusCheckpointStore``: one database file per service, WAL mode.
///
/// GRDB runs every access on its own dispatch queues, so awaiting it never blocks Swift's
/// cooperative pool.
public final class SQLiteBusCheckpointStore: BusCheckpointStore {
    public let location: String
    private let database: DatabasePool

    /// Opens (or creates) the database at `path`, creating its directory if needed.
    public init(path: URL) throws {
        try FileManager.default.createDirectory(
            at: path.deletingLastPathComponent(), withIntermediateDirectories: true)
        database = try DatabasePool(path: path.path)
        location = "sqlite:\(path.path)"
        try Self.migrator.migrate(database)
    }

    private static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1-bus-checkpoint") { db in
            try db.create(table: "bus_checkpoint") { table in
                table.primaryKey("publisher", .text)
                table.column("sequence", .integer).notNull()
                table.column("message_id", .text).notNull()
                table.column("applied_at", .integer).notNull()
                table.column("applied_count", .integer).notNull().defaults(to: 0)
            }
        }
        return migrator
    }

    public func lastApplied(publisher: String) async throws -> UInt64? {
        try await database.read { db in
            try Int64.fetchOne(db, sql: "SELECT sequence FROM bus_checkpoint WHERE publisher = ?", arguments: [publisher])
                .map { UInt64($0) }
        }
    }

    public func recordApplied(publisher: String, sequence: UInt64, messageID: String, appliedAt: Int64) async throws {
        try await database.write { db in
            try db.execute(
                sql: """
                    INSERT INTO bus_checkpoint (publisher, sequence, message_id, applied_at, applied_count)
                    VALUES (?, ?, ?, ?, 1)
                    ON CONFLICT(publisher) DO UPDATE SET
                        sequence = excluded.sequence, message_id = excluded.message_id,
                        applied_at = excluded.applied_at, applied_count = applied_count + 1
                    """,
                arguments: [publisher, Int64(sequence), messageID, appliedAt])
        }
    }

    public func appliedCount() async throws -> UInt64 {
        try await database.read { db in
            UInt64(try Int64.fetchOne(db, sql: "SELECT COALESCE(SUM(applied_count), 0) FROM bus_checkpoint") ?? 0)
        }
    }
}
