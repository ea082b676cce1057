import Foundation
import Logging
import NIOCore
import PodiumMessages
import PodiumRuntime
import PostgresNIO

/// One service's PostgreSQL database: a connection pool (postgres-nio's `PostgresClient`) whose
/// connections work in the service's schema, with `synchronous_commit` on (acknowledged means
/// committed) and the configured statement timeout.
///
/// A database that cannot be reached, or a statement cut off by the timeout, surfaces as
/// ``StorageUnavailable`` (clients are told `storage_unavailable`); the pool reconnects by
/// itself, so service resumes when the server is back. SQL errors stay what they are.
public final class PostgresStorage: StorageRunner, Sendable {
    public let settings: DatabaseSettings
    let client: PostgresClient
    public let logger: Logger
    /// Runs the pool until ``close()``: started when the storage opens, because the service's
    /// state is loaded from the database before its loops run; watched from then on as the
    /// service's "database pool" loop (``waitUntilEnded()``), so a pool that stops by itself
    /// stops the process instead of leaving it serving without a database.
    private let runner: Task<Void, Never>
    private let ended = EndSignal()
    /// When a connection was last handed out or a statement last completed: a pool that is busy
    /// but moving is not a database that went away.
    private let lastProgress = Locked(ContinuousClock.now)
    /// The leases this process's writes are fenced with (set by ``PostgresLeases`` after each
    /// round); nil for a process without leases.
    public let fence = Locked<Fence?>(nil)

    /// An instance's leases: each write first checks, `FOR SHARE`, that they are still its own
    /// with the same epochs, so a lease cannot change hands under it and a write after the lease
    /// changed hands fails with ``LeaseLost``. No leases (a standby): no writes.
    public struct Fence: Sendable {
        public var service: String
        public var instance: String
        public var leases: [(partition: Int, epoch: UInt64)]

        /// Checks the leases of `touching` (the partitions the write changes), or every lease
        /// held when nil. A touched partition this instance does not hold fails at once: it was
        /// let go (or never held) after the request was admitted.
        func check(on connection: PostgresConnection, touching: Set<Int>?, logger: Logger) async throws {
            var leases = self.leases
            if let touching {
                guard touching.isSubset(of: leases.map(\.partition)) else { throw LeaseLost(service: service) }
                leases = leases.filter { touching.contains($0.partition) }
            }
            guard !leases.isEmpty else { throw LeaseLost(service: service) }
            // Partitions and epochs are integers from the lease table, never input.
            let pairs = leases.map { "(\($0.partition), \($0.epoch))" }.joined(separator: ", ")
            var binds = PostgresBindings()
            binds.append(instance)
            let rows = try await connection.query(
                PostgresQuery(
                    unsafeSQL:
                        "SELECT partition FROM podium_lease WHERE owner = $1 AND (partition, epoch) IN (\(pairs)) FOR SHARE",
                    binds: binds), logger: logger)
            var held = 0
            for try await _ in rows.decode(Int32.self) { held += 1 }
            guard held == leases.count else { throw LeaseLost(service: service) }
        }
    }

    /// Connects (the pool runs until ``close()``), creates the schema and applies the migrations
    /// not applied yet, under an advisory lock so that processes starting at once take turns.
    public static func open(
        _ settings: DatabaseSettings, migrations: [PostgresMigration], logger: Logger
    ) async throws -> PostgresStorage {
        let database = PostgresStorage(settings: settings, logger: logger)
        do {
            try await database.migrate(migrations + PostgresDurable.migrations + PostgresLeases.migrations)
        } catch {
            database.close()
            throw error
        }
        return database
    }

    private init(settings: DatabaseSettings, logger: Logger) {
        self.settings = settings
        self.logger = logger
        let tls: PostgresClient.Configuration.TLS =
            switch settings.tls {
            case .disable: .disable
            case .prefer: .prefer(.makeClientConfiguration())
            case .require: .require(.makeClientConfiguration())
            }
        var configuration = PostgresClient.Configuration(
            host: settings.host, port: settings.port, username: settings.username, password: settings.password,
            database: settings.database, tls: tls)
        configuration.options.maximumConnections = settings.poolSize
        configuration.options.connectTimeout = .milliseconds(Int64(settings.connectTimeoutMilliseconds))
        configuration.options.additionalStartupParameters = [
            ("search_path", settings.schema),
            ("statement_timeout", "\(settings.statementTimeoutMilliseconds)"),
            ("synchronous_commit", "on"),
            ("application_name", "podium"),
        ]
        client = PostgresClient(configuration: configuration, backgroundLogger: logger)
        runner = Task { [client, ended] in
            await client.run()
            ended.end()
        }
    }

    /// Ends the pool.
    public func close() { runner.cancel() }

    /// Returns when the pool has stopped running (after ``close()``, or by itself), or when
    /// the waiting task is cancelled.
    public func waitUntilEnded() async { await ended.wait() }

    /// Bytes the schema's tables take, indexes and TOAST included.
    public func schemaBytes() async throws -> Int {
        let schema = settings.schema
        let logger = logger
        return try await read { connection in
            for try await bytes in try await connection.query(
                """
                SELECT COALESCE(SUM(pg_total_relation_size(c.oid)), 0)::bigint FROM pg_class c
                JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = \(schema) AND c.relkind = 'r'
                """, logger: logger
            ).decode(Int64.self) {
                return Int(bytes)
            }
            return 0
        }
    }

    /// Runs `body` in one transaction: committed if it returns, rolled back if it throws.
    /// A fenced process's transaction first checks its leases (``Fence``): those of `partitions`
    /// when the write is known to touch only them (a partitioned service), else all it holds;
    /// `fenced: false` is for the lease rounds themselves.
    public func transaction<Result: Sendable>(
        fenced: Bool = true, partitions: Set<Int>? = nil,
        _ body: @escaping @Sendable (PostgresConnection) async throws -> Result
    ) async throws -> Result {
        let logger = logger
        let fence = fenced ? self.fence.value : nil
        let partitions = partitions ?? FencedPartitions.current
        return try await leased { client, race in
            do {
                return try await client.withTransaction(logger: logger) { connection in
                    try race.enter(connection)
                    self.madeProgress()
                    try await fence?.check(on: connection, touching: partitions, logger: logger)
                    return try await body(connection)
                }
            } catch let error as PostgresTransactionError {
                throw error.closureError ?? error.beginError ?? error.commitError ?? error
            }
        }
    }

    /// Runs `body` on a connection outside a transaction (each statement on its own).
    public func read<Result: Sendable>(_ body: @escaping @Sendable (PostgresConnection) async throws -> Result)
        async throws -> Result
    {
        try await leased { client, race in
            try await client.withConnection { connection in
                try race.enter(connection)
                self.madeProgress()
                return try await body(connection)
            }
        }
    }

    private func madeProgress() { lastProgress.withLock { $0 = .now } }

    /// Runs `work` and gives up with ``StorageUnavailable`` when it got no connection within the
    /// connect timeout while the pool made no progress (no connection handed out, no statement
    /// completed): the pool waits for a connection as long as the server is away, and a request
    /// must not. A pool that is only busy (every connection in use, and moving) lets a request
    /// wait longer, up to the connect and statement timeouts together, so that load alone does
    /// not look like an outage. A connection had after that is not used (``LeaseRace/enter(_:)``
    /// throws), so nothing is written for a request that was already refused. Once connected,
    /// the server's statement timeout bounds each statement; a connection that stops answering
    /// altogether (a server that went away mid-statement) is closed once the connect and
    /// statement timeouts have both passed, and the request refused: it may or may not have
    /// committed, which a resend with the same id tells. The pool's wait cannot be cancelled,
    /// so the work runs in a task of its own and a refusal does not wait for it.
    private func leased<Result: Sendable>(
        _ work: @escaping @Sendable (PostgresClient, LeaseRace<Result>) async throws -> Result
    ) async throws -> Result {
        let client = client
        let limit = Duration.milliseconds(Int64(settings.connectTimeoutMilliseconds))
        let answerLimit = Duration.milliseconds(Int64(settings.statementTimeoutMilliseconds) + 1000)
        let race = LeaseRace<Result>()
        return try await withCheckedThrowingContinuation { continuation in
            race.start(continuation)
            Task {
                do {
                    let result = try await work(client, race)
                    self.madeProgress()
                    race.finish(.success(result))
                } catch {
                    // Refused before any connection was had: the pool gave up on the server (its
                    // circuit breaker trips after connecting failed for a while). The database is
                    // away, as far as the caller can tell.
                    let refusedByPool = race.isWaiting && !(error is PSQLError)
                    race.finish(
                        .failure(
                            refusedByPool
                                ? StorageUnavailable(cause: "no database connection: \(error)") : Self.mapped(error)))
                }
            }
            Task {
                var waited = Duration.zero
                while race.isWaiting {
                    try? await Task.sleep(for: limit)
                    waited += limit
                    let idle = ContinuousClock.now - self.lastProgress.value
                    if idle >= limit || waited >= limit + answerLimit {
                        race.timeOut(StorageUnavailable(cause: "no database connection within \(waited)"))
                    }
                }
                guard race.isLeased else { return }
                try? await Task.sleep(for: answerLimit)
                if let stuck = race.abandon(
                    StorageUnavailable(cause: "the database did not answer within \(limit + answerLimit)"))
                {
                    stuck.close().whenComplete { _ in }
                }
            }
        }
    }

    /// Errors of the connection (not of the SQL) become ``StorageUnavailable``; so does a
    /// statement cancelled by the timeout (SQLSTATE 57014) or a server shutting down (57P*).
    static func mapped(_ error: any Error) -> any Error {
        guard let error = error as? PSQLError else { return error }
        switch error.code {
        case .server:
            let state = error.serverInfo?[.sqlState] ?? ""
            if state == "57014" || state.hasPrefix("57P") || state.hasPrefix("08") {
                return StorageUnavailable(cause: "\(state): \(error.serverInfo?[.message] ?? "")")
            }
            if state.hasPrefix("22") {
                // A value PostgreSQL cannot hold (a NUL character in text, a number out of range):
                // the client's input, refused like any other bad input; SQLite stores such text.
                return ErrorReply(
                    code: .invalidField,
                    message:
                        "a value in the request cannot be stored (text with a NUL character, or a number out of range)")
            }
            return error
        case .queryCancelled:
            return StorageUnavailable(cause: "statement cancelled")
        default:
            return StorageUnavailable(cause: "\(error.code)")
        }
    }

    private func migrate(_ migrations: [PostgresMigration]) async throws {
        let schema = settings.schema
        let logger = logger
        try await transaction { connection in
            // One process at a time per schema; the lock ends with the transaction.
            try await connection.query("SELECT pg_advisory_xact_lock(hashtext(\(schema)))", logger: logger)
            try await connection.query(
                PostgresQuery(unsafeSQL: "CREATE SCHEMA IF NOT EXISTS \(schema)"), logger: logger)
            try await connection.query(
                PostgresQuery(
                    unsafeSQL: """
                        CREATE TABLE IF NOT EXISTS \(schema).podium_migration (
                            name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())
                        """), logger: logger)
            var applied = Set<String>()
            for try await name in try await connection.query(
                PostgresQuery(unsafeSQL: "SELECT name FROM \(schema).podium_migration"), logger: logger
            ).decode(String.self) {
                applied.insert(name)
            }
            for migration in migrations where !applied.contains(migration.name) {
                for statement in migration.statements {
                    try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
                }
                try await connection.query(
                    PostgresQuery(
                        unsafeSQL: "INSERT INTO \(schema).podium_migration (name) VALUES ($1)",
                        binds: Self.binds(migration.name)),
                    logger: logger)
                logger.info(
                    "database migration applied", metadata: ["migration": "\(migration.name)", "schema": "\(schema)"])
            }
        }
    }

    private static func binds(_ values: String...) -> PostgresBindings {
        var binds = PostgresBindings()
        for value in values { binds.append(value) }
        return binds
    }
}

/// One schema change, applied once, in order, in the migration transaction. Statements run with
/// the service's schema first on the search path.
public struct PostgresMigration: Sendable {
    public var name: String
    public var statements: [String]

    public init(_ name: String, _ statements: [String]) {
        self.name = name
        self.statements = statements
    }
}

/// The race between getting a connection and the connect timeout, decided once: whichever comes
/// first answers the caller.
final class LeaseRace<Result: Sendable>: Sendable {
    private enum State {
        case waiting(CheckedContinuation<Result, any Error>?)
        case leased(CheckedContinuation<Result, any Error>?, PostgresConnection)
        case timedOut
        case finished
    }

    private let state = Locked<State>(.waiting(nil))

    func start(_ continuation: CheckedContinuation<Result, any Error>) {
        state.withLock { $0 = .waiting(continuation) }
    }

    /// Still waiting for a connection (neither leased, timed out nor finished).
    var isWaiting: Bool {
        if case .waiting = state.value { return true }
        return false
    }

    /// Holding a connection, the work not finished.
    var isLeased: Bool {
        if case .leased = state.value { return true }
        return false
    }

    /// Called with the connection in hand: throws if the caller was already refused.
    func enter(_ connection: PostgresConnection) throws {
        try state.withLock { state in
            switch state {
            case .waiting(let continuation): state = .leased(continuation, connection)
            case .timedOut: throw CancellationError()
            case .leased, .finished: break
            }
        }
    }

    /// The work's outcome, when the caller is still waiting for it.
    func finish(_ result: Swift.Result<Result, any Error>) {
        let continuation = state.withLock { state -> CheckedContinuation<Result, any Error>? in
            switch state {
            case .waiting(let continuation), .leased(let continuation, _):
                state = .finished
                return continuation
            case .timedOut, .finished:
                return nil
            }
        }
        continuation?.resume(with: result)
    }

    /// The connect timeout: refuses the caller unless a connection was had.
    func timeOut(_ error: any Error) {
        let continuation = state.withLock { state -> CheckedContinuation<Result, any Error>? in
            guard case .waiting(let continuation) = state else { return nil }
            state = .timedOut
            return continuation
        }
        continuation?.resume(throwing: error)
    }

    /// The answer limit: refuses the caller if the work still holds its connection, and returns
    /// that connection (to be closed, which ends the work).
    func abandon(_ error: any Error) -> PostgresConnection? {
        let stuck = state.withLock { state -> (CheckedContinuation<Result, any Error>?, PostgresConnection)? in
            guard case .leased(let continuation, let connection) = state else { return nil }
            state = .finished
            return (continuation, connection)
        }
        stuck?.0?.resume(throwing: error)
        return stuck?.1
    }
}
