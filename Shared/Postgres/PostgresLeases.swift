import Foundation
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
            ]),
        PostgresMigration(
            "podium-leases-v2",
            [
                // Every holding of a partition: who took it at which epoch, when, and until when it
                // held (renewals extend it, a release ends it). Two holdings of a partition never
                // overlap; `scripts/cluster` checks that from this table.
                "CREATE TABLE podium_lease_history (partition integer NOT NULL, epoch bigint NOT NULL, owner text NOT NULL, taken_at bigint NOT NULL, held_until bigint NOT NULL, PRIMARY KEY (partition, epoch))",
                // How many partitions the leases are for (the same in every instance).
                "CREATE TABLE podium_partitioning (id integer PRIMARY KEY CHECK (id = 1), partitions integer NOT NULL)",
            ]),
    ]

    /// Kept holdings in `podium_lease_history`, milliseconds after they ended.
    static let historyKept: Int64 = 7 * 86_400_000

    public func round(instance: String, rules: PartitionLeases, now called: Int64) async throws -> [PartitionLease] {
        let logger = database.logger
        let started = ContinuousClock.now
        let held = try await database.transaction(fenced: false) { connection in
            try await connection.query("LOCK TABLE podium_lease IN EXCLUSIVE MODE", logger: logger)
            // The round happens when it has the table, not when it was asked for: another
            // instance's round may have held the lock meanwhile (and released what this one now
            // claims). Deciding with the earlier time would record a holding as starting before
            // the one it follows ended.
            let now = called + (ContinuousClock.now - started).milliseconds
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
            try await Self.checkPartitioning(
                rules.partitions, on: connection, service: service, logger: logger)
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
                try await connection.query(
                    "UPDATE podium_lease_history SET held_until = LEAST(held_until, \(now)) WHERE partition = \(Int32(partition)) AND epoch = \(Int64(lease.epoch))",
                    logger: logger)
            }
            try await Self.recordHoldings(held, instance: instance, now: now, on: connection, logger: logger)
            return held
        }
        database.fence.withLock {
            $0 = PostgresStorage.Fence(
                service: service, instance: instance, leases: held.map { ($0.partition, $0.epoch) })
        }
        return held
    }

    /// The holdings recorded in `podium_lease_history`, oldest epoch first per partition.
    public func history() async throws -> [(
        partition: Int, epoch: UInt64, owner: String, takenAt: Int64, heldUntil: Int64
    )] {
        let logger = database.logger
        return try await database.read { connection in
            var rows: [(partition: Int, epoch: UInt64, owner: String, takenAt: Int64, heldUntil: Int64)] = []
            for try await (partition, epoch, owner, takenAt, heldUntil) in try await connection.query(
                "SELECT partition, epoch, owner, taken_at, held_until FROM podium_lease_history ORDER BY partition, epoch",
                logger: logger
            ).decode((Int32, Int64, String, Int64, Int64).self) {
                rows.append((Int(partition), UInt64(max(0, epoch)), owner, takenAt, heldUntil))
            }
            return rows
        }
    }

    public func leave(instance: String) async throws {
        database.fence.withLock { $0 = PostgresStorage.Fence(service: service, instance: instance, leases: []) }
        let logger = database.logger
        let now = Int64((Date().timeIntervalSince1970 * 1000).rounded())
        try await database.transaction(fenced: false) { connection in
            try await connection.query("LOCK TABLE podium_lease IN EXCLUSIVE MODE", logger: logger)
            try await connection.query(
                "UPDATE podium_lease_history h SET held_until = LEAST(h.held_until, \(now)) FROM podium_lease l WHERE l.owner = \(instance) AND h.partition = l.partition AND h.epoch = l.epoch",
                logger: logger)
            try await connection.query(
                "UPDATE podium_lease SET owner = NULL, expires_at = 0 WHERE owner = \(instance)", logger: logger)
            try await connection.query("DELETE FROM podium_member WHERE instance = \(instance)", logger: logger)
        }
    }

    /// Records the round's holdings: a new holding for each partition taken at a new epoch, the
    /// end of each renewed one moved to its new expiry; forgets holdings that ended long ago.
    private static func recordHoldings(
        _ held: [PartitionLease], instance: String, now: Int64, on connection: PostgresConnection, logger: Logger
    ) async throws {
        guard !held.isEmpty else { return }
        let partitions = held.map { Int32($0.partition) }
        let epochs = held.map { Int64($0.epoch) }
        let until = held.map(\.expiresAt)
        try await connection.query(
            """
            INSERT INTO podium_lease_history (partition, epoch, owner, taken_at, held_until)
            SELECT p, e, \(instance), \(now), u FROM unnest(\(partitions)::integer[], \(epochs)::bigint[], \(until)::bigint[]) AS t(p, e, u)
            ON CONFLICT (partition, epoch) DO UPDATE SET held_until = GREATEST(podium_lease_history.held_until, excluded.held_until)
            """, logger: logger)
        try await connection.query(
            "DELETE FROM podium_lease_history WHERE held_until < \(now - historyKept)", logger: logger)
    }

    /// Keeps the leases for `partitions` partitions: the first instance records the count. Another
    /// count fails the round (``PartitionCountMismatch``) and the instance serves nothing: the
    /// data already split by the recorded count (a consumer group's positions per partition)
    /// would be read under other partition numbers. (A database from before partitions has no
    /// count recorded: its one lease is partition 0's and its single positions cover every
    /// partition.)
    private static func checkPartitioning(
        _ partitions: Int, on connection: PostgresConnection, service: String, logger: Logger
    ) async throws {
        var stored: Int?
        for try await count in try await connection.query(
            "SELECT partitions FROM podium_partitioning WHERE id = 1", logger: logger
        ).decode(Int32.self) {
            stored = Int(count)
        }
        if stored == partitions { return }
        if let stored {
            throw PartitionCountMismatch(service: service, stored: stored, configured: partitions)
        }
        try await connection.query(
            """
            INSERT INTO podium_partitioning (id, partitions) VALUES (1, \(Int32(partitions)))
            ON CONFLICT (id) DO UPDATE SET partitions = excluded.partitions
            """, logger: logger)
        try await connection.query(
            "DELETE FROM podium_lease WHERE partition >= \(Int32(partitions))", logger: logger)
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

/// The lease table was made for another partition count than this instance's
/// `PODIUM_PARTITIONS`: the count is fixed once a service's data is split (docs/SCALING.md,
/// "The partition count").
public struct PartitionCountMismatch: Error, CustomStringConvertible {
    public let service: String
    public let stored: Int
    public let configured: Int
    public var description: String {
        "the \(service) data is split into \(stored) partitions, this instance into \(configured): "
            + "PODIUM_PARTITIONS must be \(stored) in every process (the count cannot change once the data is split)"
    }
}
