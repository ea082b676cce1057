import Foundation
import Logging
import PodiumPostgres
import PodiumRuntime
import PostgresNIO
import Testing

/// A real PostgreSQL server that goes away and comes back (scripts/postgres stop and start on the
/// cluster in PODIUM_TEST_POSTGRES_DIR): operations are refused with StorageUnavailable within the
/// connect timeout while it is away, and work again once it is back, without a restart.
@Suite("A real PostgreSQL server", .serialized, .enabled(if: PostgresCluster.directory != nil))
struct PostgresServerTests {
    @Test("while the server is down every operation is refused StorageUnavailable in time; afterwards they work again")
    func outageAndRecovery() async throws {
        let cluster = try #require(PostgresCluster.directory)
        let settings = try await PostgresCluster.settings(schema: "outage_\(UInt32.random(in: 0 ... .max))")
        let storage = try await PostgresStorage.open(
            settings,
            migrations: [PostgresMigration("v1", ["CREATE TABLE item (id bigint PRIMARY KEY)"])],
            logger: Logger(label: "test"))
        defer { storage.close() }
        try await storage.transaction { connection in
            try await connection.query("INSERT INTO item (id) VALUES (1)", logger: testLogger)
        }

        try await PostgresCluster.run("stop", cluster)
        var refused = 0
        let started = ContinuousClock.now
        try await withThrowingTaskGroup(of: Bool.self) { group in
            for id in 2...41 {
                group.addTask {
                    do {
                        try await storage.transaction { connection in
                            try await connection.query(
                                "INSERT INTO item (id) VALUES (\(Int64(id)))", logger: testLogger)
                        }
                        return false
                    } catch is StorageUnavailable {
                        return true
                    }
                }
            }
            for try await wasRefused in group where wasRefused { refused += 1 }
        }
        let waited = ContinuousClock.now - started
        #expect(refused == 40, "every write while the server is down is refused StorageUnavailable")
        #expect(waited < .seconds(30), "refusals come within the connect timeout, not never")

        try await PostgresCluster.run(
            "start", cluster,
            try String(contentsOfFile: cluster + "/port", encoding: .utf8).trimmingCharacters(
                in: .whitespacesAndNewlines))
        var recovered = false
        for _ in 0..<60 where !recovered {
            do {
                try await storage.transaction { connection in
                    try await connection.query("INSERT INTO item (id) VALUES (100)", logger: testLogger)
                }
                recovered = true
            } catch is StorageUnavailable {
                try await Task.sleep(for: .milliseconds(500))
            }
        }
        #expect(recovered, "writes work again within 30 s of the server's return")
        let count = try await storage.read { connection in
            var count: Int64 = 0
            for try await value in try await connection.query("SELECT COUNT(*)::bigint FROM item", logger: testLogger)
                .decode(Int64.self)
            { count = value }
            return count
        }
        #expect(count == 2, "the refused writes left nothing behind: only the rows written while the server was up")
        // Many operations after the outage, concurrently: the pool serves them all.
        try await withThrowingTaskGroup(of: Void.self) { group in
            for id in 200..<264 {
                group.addTask {
                    _ = try await storage.transaction { connection in
                        try await connection.query("INSERT INTO item (id) VALUES (\(Int64(id)))", logger: testLogger)
                    }
                    return
                }
            }
            try await group.waitForAll()
        }
    }
}

let testLogger = Logger(label: "test")

/// The throwaway cluster scripts/test starts (PODIUM_TEST_POSTGRES_DIR: its directory).
enum PostgresCluster {
    static var directory: String? {
        let value = ProcessInfo.processInfo.environment["PODIUM_TEST_POSTGRES_DIR"] ?? ""
        return value.isEmpty ? nil : value
    }

    static func settings(schema: String) async throws -> DatabaseSettings {
        let url = try String(contentsOfFile: try #require(directory) + "/url", encoding: .utf8)
        var settings = try DatabaseSettings(url: url.trimmingCharacters(in: .whitespacesAndNewlines), schema: schema)
        settings.connectTimeoutMilliseconds = 1000
        settings.statementTimeoutMilliseconds = 2000
        return settings
    }

    /// Runs scripts/postgres with arguments, on a thread of its own (not the cooperative pool).
    /// `system` rather than Foundation's Process: the server the script starts keeps running
    /// after it, and Process did not always report the script's end then.
    static func run(_ arguments: String...) async throws {
        let command = (["scripts/postgres"] + arguments).map { "'\($0)'" }.joined(separator: " ") + " >/dev/null"
        let status: Int32 = await withCheckedContinuation { continuation in
            Thread.detachNewThread { continuation.resume(returning: system(command)) }
        }
        guard status == 0 else { throw PostgresClusterError(arguments: arguments) }
    }

    struct PostgresClusterError: Error { var arguments: [String] }
}
