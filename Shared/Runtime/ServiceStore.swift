/// What every service's store is to the runtime, whatever it keeps and whichever backend holds
/// it: where it is, its durable tables, its leases, its closing, and what it runs while open.
/// Each service's store protocol (``AchievementStore``, ``LeaderboardStore``, …) refines it, and
/// ``ServiceDefinition/use(_:outboxStream:answersReceipts:)`` wires any of them into a service the same way.
public protocol ServiceStore: Sendable {
    /// Where the data is, for health and logs (`sqlite:/path`, `postgresql://host/db`).
    var location: String { get }
    /// The service's receipts, outbox and stream positions, for the runtime.
    var durable: any DurableTablesAccess { get }
    /// Where instances lease the data (nil: a single instance owns it; ``LeaseStore``).
    var leases: (any LeaseStore)? { get }
    /// What the store runs while it is open (a database server's connection pool): watched as
    /// one of the service's loops, so that its end ends the process. Nil for an embedded database.
    var runner: (any StorageRunner)? { get }
    /// Lets go of the database (its connections) once the service has stopped.
    func close() async
}

extension ServiceStore {
    public var runner: (any StorageRunner)? { nil }
}

/// Something a store runs while it is open, such as a connection pool.
public protocol StorageRunner: Sendable {
    /// Returns when the runner has ended: when the store was closed, or when it failed by itself
    /// (a failure while the service should be running). Returns at once if cancelled.
    func waitUntilEnded() async
}

/// How a service's executable opens its store from the settings (the backend is chosen there:
/// ``StorageBackend``).
public typealias StoreOpener<Store> = @Sendable (RuntimeSettings) async throws -> Store

/// The backend a deployment chose: PostgreSQL when the settings name a database
/// (`PODIUM_DATABASE_URL`), else an SQLite file under the data directory. Executables (their
/// `main`) and test stacks pick the adapter with it; adapters never know each other.
public enum StorageBackend {
    /// The opener for the configured backend: `postgres` with the database settings when there
    /// are any, else `sqlite`.
    public static func choose<Store>(
        sqlite: @escaping StoreOpener<Store>, postgres: @escaping @Sendable (DatabaseSettings) async throws -> Store
    ) -> StoreOpener<Store> {
        { settings in
            if let database = settings.database { return try await postgres(database) }
            return try await sqlite(settings)
        }
    }
}

extension ServiceDefinition {
    /// Wires `store` into the service: its location for health, its size for metrics, its durable
    /// tables (receipts answered for `receipt.get` when `answersReceipts`, retention, and the
    /// outbox relayed as `outboxStream` when there is one), its leases, its runner as a loop, and
    /// its closing once the service has stopped.
    public mutating func use(_ store: any ServiceStore, outboxStream: String?, answersReceipts: Bool = true) {
        if let outboxStream { outbox = OutboxRelay(stream: outboxStream, reader: store.durable) }
        storage = store.location
        shutdown = { await store.close() }
        sizedStorage = store as? any StorageSize
        if answersReceipts { receipts = store.durable }
        retention = store.durable
        leases = store.leases
        storageRunner = store.runner
    }
}
