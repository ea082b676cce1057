import Logging
import PodiumMessages
import PodiumRuntime
import PostgresNIO

/// Partition leases in the service's schema (``LeaseStore``): `podium_lease` (one row per
/// partition: owner, fencing epoch, expiry) and `podium_member` (the live instances).
///
/// A round takes `podium_lease` in EXCLUSIVE mode, so rounds take turns and wait for writes in
/// flight: every write of a fenced ``PostgresStorage`` first reads its leases `FOR SHARE`
/// (``PostgresStorage/Fence``). A lease therefore changes hands only between writes, and a write
/// by an instance whose lease was taken finds another owner or epoch and fails (``LeaseLost``).
public struct PostgresLeases: LeaseStore {
    let database: PostgresStorage
    public let service: String

    public init(database: PostgresStorage, service: String) {
        self.database = database
        self.service = service
    }

    static let migrations = [
        PostgresMigration(
            "podium-leases-v1",
            [
                "CREATE TABLE podium_lease (partition integer PRIMARY KEY, owner text, epoch bigint NOT NULL, expires_at bigint NOT NULL)",
                "CREATE TABLE podium_member (instance text PRIMARY KEY, expires_at bigint NOT NULL)",
            ])
    ]

    public func round(instance: String, rules: PartitionLeases, now: Int64) async throws -> [PartitionLease] {
        let logger = database.logger
        let held = try await database.transaction(fenced: false) { connection in
            try await connection.query("LOCK TABLE podium_lease IN EXCLUSIVE MODE", logger: logger)
            try await connection.query(
                """
                INSERT INTO podium_member (instance, expires_at) VALUES (\(instance), \(now + rules.duration))
                ON CONFLICT (instance) DO UPDATE SET expires_at = excluded.expires_at
                """, logger: logger)
            try await connection.query(
                "DELETE FROM podium_member WHERE expires_at < \(now - 10 * rules.duration)", logger: logger)
            var live: Set<String> = []
            for try await member in try await connection.query(
                "SELECT instance FROM podium_member WHERE expires_at > \(now)", logger: logger
            ).decode(String.self) {
                live.insert(member)
            }
            var table: [Int: PartitionLease] = [:]
            for try await (partition, owner, epoch, expiresAt) in try await connection.query(
                "SELECT partition, owner, epoch, expires_at FROM podium_lease", logger: logger
            ).decode((Int32, String?, Int64, Int64).self) {
                table[Int(partition)] = PartitionLease(
                    partition: Int(partition), owner: owner, epoch: UInt64(max(0, epoch)), expiresAt: expiresAt)
            }
            let plan = rules.round(for: instance, leases: Array(table.values), live: live, now: now)
            var held: [PartitionLease] = []
            for partition in plan.renew + plan.claim {
                guard
                    let next = rules.taken(
                        table[partition] ?? PartitionLease(partition: partition), by: instance, now: now)
                else { continue }
                try await Self.write(next, on: connection, logger: logger)
                held.append(next)
            }
            for partition in plan.release {
                guard let lease = table[partition], let next = rules.released(lease, by: instance) else { continue }
                try await Self.write(next, on: connection, logger: logger)
            }
            return held
        }
        database.fence.withLock {
            $0 = PostgresStorage.Fence(
                service: service, instance: instance, leases: held.map { ($0.partition, $0.epoch) })
        }
        return held
    }

    public func leave(instance: String) async throws {
        database.fence.withLock { $0 = PostgresStorage.Fence(service: service, instance: instance, leases: []) }
        let logger = database.logger
        try await database.transaction(fenced: false) { connection in
            try await connection.query("LOCK TABLE podium_lease IN EXCLUSIVE MODE", logger: logger)
            try await connection.query(
                "UPDATE podium_lease SET owner = NULL, expires_at = 0 WHERE owner = \(instance)", logger: logger)
            try await connection.query("DELETE FROM podium_member WHERE instance = \(instance)", logger: logger)
        }
    }

    private static func write(_ lease: PartitionLease, on connection: PostgresConnection, logger: Logger) async throws {
        try await connection.query(
            """
            INSERT INTO podium_lease (partition, owner, epoch, expires_at)
            VALUES (\(Int32(lease.partition)), \(lease.owner), \(Int64(lease.epoch)), \(lease.expiresAt))
            ON CONFLICT (partition) DO UPDATE SET owner = excluded.owner, epoch = excluded.epoch, expires_at = excluded.expires_at
            """, logger: logger)
    }
}
