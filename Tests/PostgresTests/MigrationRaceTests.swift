import Foundation
import Logging
import PodiumPostgres
import PodiumRuntime
import PostgresNIO
import Testing

/// Several processes starting at once on a fresh schema (a deployment's first start, or a
/// rolling restart with a new version): each migration is applied exactly once, every opener
/// succeeds, and the schema ends complete. (In the serialized suite of the outage test.)
extension PostgresServerTests {
    static let raceMigrations = [
        PostgresMigration("v1-items", ["CREATE TABLE item (id text PRIMARY KEY, value bigint NOT NULL)"]),
        PostgresMigration("v2-item-index", ["CREATE INDEX item_value ON item (value)"]),
        PostgresMigration("v3-item-note", ["ALTER TABLE item ADD COLUMN note text"]),
    ]

    @Test("six openers at once on a fresh schema: every migration applied exactly once, every opener ready")
    func concurrentMigrations() async throws {
        let settings = try await PostgresCluster.settings(schema: "migrate_\(UInt32.random(in: 0 ... .max))")
        let opened = try await withThrowingTaskGroup(of: PostgresStorage.self) { group in
            for _ in 0..<6 {
                group.addTask {
                    try await PostgresStorage.open(
                        settings, migrations: Self.raceMigrations, logger: Logger(label: "test"))
                }
            }
            return try await group.reduce(into: [PostgresStorage]()) { $0.append($1) }
        }
        defer { for storage in opened { storage.close() } }
        #expect(opened.count == 6)
        let schema = settings.schema
        let names = try await opened[0].read { connection in
            var names: [String] = []
            for try await name in try await connection.query(
                PostgresQuery(unsafeSQL: "SELECT name FROM \(schema).podium_migration ORDER BY name"),
                logger: Logger(label: "test")
            ).decode(String.self) { names.append(name) }
            return names
        }
        // This test's three and the durable tables' own, each once.
        #expect(names.filter { $0.hasPrefix("v") } == ["v1-items", "v2-item-index", "v3-item-note"])
        #expect(Set(names).count == names.count)
        // The last migration's column is there: the schema is complete for every opener.
        try await opened[5].transaction { connection in
            try await connection.query(
                PostgresQuery(unsafeSQL: "INSERT INTO \(schema).item (id, value, note) VALUES ('a', 1, 'n')"),
                logger: Logger(label: "test"))
        }
    }
}
