import Foundation
import Logging
import PodiumMessages
import PodiumPostgres
import PodiumRuntime
import PostgresNIO
import Testing

/// Partition leases and fencing on a real server: one owner at a time, a standby cannot write,
/// an owner whose lease expired and was taken cannot write either, and a joining instance gets
/// its share back by release. Times are given explicitly (no sleeping).
extension PostgresServerTests {
    static func write(_ storage: PostgresStorage, _ id: String, by instance: String) async throws {
        let logger = storage.logger
        try await storage.transaction { connection in
            try await connection.query(
                "INSERT INTO fenced_write (id, writer) VALUES (\(id), \(instance))", logger: logger)
        }
    }

    @Test(
        "leases: one owner, a standby's writes refused, an expired owner taken over and fenced out, a returning instance standing by, a leave handing over at once"
    )
    func leasesAndFencing() async throws {
        let settings = try await PostgresCluster.settings(schema: "leases_\(UInt32.random(in: 0 ... .max))")
        let migration = PostgresMigration(
            "test-fenced-v1", ["CREATE TABLE fenced_write (id text PRIMARY KEY, writer text NOT NULL)"])
        let a = try await PostgresStorage.open(settings, migrations: [migration], logger: Logger(label: "a"))
        let b = try await PostgresStorage.open(settings, migrations: [migration], logger: Logger(label: "b"))
        defer {
            a.close()
            b.close()
        }
        let rules = PartitionLeases(partitions: 1, duration: 1000)
        let leasesA = PostgresLeases(database: a, service: "test")
        let leasesB = PostgresLeases(database: b, service: "test")
        let start: Int64 = 1_000_000

        let heldA = try await leasesA.round(instance: "a", rules: rules, now: start)
        #expect(heldA.map(\.partition) == [0] && heldA.first?.epoch == 1)
        #expect(
            try await leasesB.round(instance: "b", rules: rules, now: start + 10).isEmpty, "a holds it: b stands by")
        try await Self.write(a, "1", by: "a")
        await #expect(throws: LeaseLost.self, "a standby writes nothing") { try await Self.write(b, "2", by: "b") }

        // a stops renewing; once its lease has expired b takes it, in a new epoch.
        #expect(
            try await leasesB.round(instance: "b", rules: rules, now: start + 500).isEmpty,
            "not before the lease expires")
        let heldB = try await leasesB.round(instance: "b", rules: rules, now: start + 1500)
        #expect(heldB.map(\.partition) == [0] && heldB.first?.epoch == 2)
        await #expect(throws: LeaseLost.self, "a's write under the old epoch is fenced out") {
            try await Self.write(a, "3", by: "a")
        }
        try await Self.write(b, "4", by: "b")

        // a comes back: the lease stays with b (nothing moves that need not); a stands by.
        #expect(try await leasesA.round(instance: "a", rules: rules, now: start + 1600).isEmpty, "b keeps it")
        #expect(
            try await leasesB.round(instance: "b", rules: rules, now: start + 1700).first?.epoch == 2,
            "b renews, same epoch")
        await #expect(throws: LeaseLost.self) { try await Self.write(a, "5", by: "a") }
        try await Self.write(b, "6", by: "b")

        // A clean leave frees it at once: a takes it in the next epoch without waiting for expiry.
        try await leasesB.leave(instance: "b")
        await #expect(throws: LeaseLost.self) { try await Self.write(b, "7", by: "b") }
        #expect(try await leasesA.round(instance: "a", rules: rules, now: start + 1800).first?.epoch == 3)
        try await Self.write(a, "8", by: "a")

        let rows = try await a.read { connection in
            var rows: [String] = []
            for try await (id, writer) in try await connection.query(
                "SELECT id, writer FROM fenced_write ORDER BY id", logger: a.logger
            )
            .decode((String, String).self) {
                rows.append("\(id):\(writer)")
            }
            return rows
        }
        #expect(rows == ["1:a", "4:b", "6:b", "8:a"], "only the owner's writes committed")
    }

    @Test(
        "sixteen partitions: a joining instance gets half within a round, each write fenced by the partitions it touches, every holding in the history with none overlapping, and another count refused"
    )
    func partitionedLeases() async throws {
        let settings = try await PostgresCluster.settings(schema: "partitions_\(UInt32.random(in: 0 ... .max))")
        let migration = PostgresMigration(
            "test-fenced-v1", ["CREATE TABLE fenced_write (id text PRIMARY KEY, writer text NOT NULL)"])
        let a = try await PostgresStorage.open(settings, migrations: [migration], logger: Logger(label: "a"))
        let b = try await PostgresStorage.open(settings, migrations: [migration], logger: Logger(label: "b"))
        defer {
            a.close()
            b.close()
        }
        let rules = PartitionLeases(partitions: 16, duration: 1000)
        let leasesA = PostgresLeases(database: a, service: "test")
        let leasesB = PostgresLeases(database: b, service: "test")
        let start: Int64 = 1_000_000
        #expect(try await leasesA.round(instance: "a", rules: rules, now: start).count == 16)
        #expect(try await leasesB.round(instance: "b", rules: rules, now: start + 10).isEmpty, "nothing free yet")
        #expect(try await leasesA.round(instance: "a", rules: rules, now: start + 300).map(\.partition) == Array(0..<8))
        #expect(
            try await leasesB.round(instance: "b", rules: rules, now: start + 310).map(\.partition) == Array(8..<16))

        // A write names the partitions it touches: b may write partition 9's, not partition 3's.
        try await FencedPartitions.$current.withValue([9]) { try await Self.write(b, "9", by: "b") }
        await #expect(throws: LeaseLost.self, "partition 3 is a's") {
            try await FencedPartitions.$current.withValue([3]) { try await Self.write(b, "3", by: "b") }
        }
        try await a.transaction(partitions: [3]) { connection in
            try await connection.query("INSERT INTO fenced_write (id, writer) VALUES ('3', 'a')", logger: a.logger)
        }

        // One owner at every moment: no two holdings of a partition overlap.
        let history = try await leasesA.history()
        #expect(Set(history.map(\.partition)) == Set(0..<16))
        for partition in 8..<16 {
            let holdings = history.filter { $0.partition == partition }.sorted { $0.epoch < $1.epoch }
            #expect(holdings.map(\.owner) == ["a", "b"])
            #expect(holdings[1].takenAt >= holdings[0].heldUntil, "b took it after a let it go")
        }

        // Another partition count is refused while this one is recorded.
        let other = PartitionLeases(partitions: 4, duration: 1000)
        await #expect(throws: PartitionCountMismatch.self) {
            _ = try await PostgresLeases(database: b, service: "test").round(
                instance: "c", rules: other, now: start + 400)
        }
    }
}
