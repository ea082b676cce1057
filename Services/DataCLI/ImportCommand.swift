import AchievementPostgres
import ArgumentParser
import AuthPostgres
import ChallengePostgres
import Foundation
import Gateway
import GatewayPostgres
import LeaderboardPostgres
import Logging
import PodiumPostgres
import PodiumRuntime

/// `podium-data import`: a dump of `podium-data export` into PostgreSQL, all or nothing.
struct ImportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Load a dump (podium-data export) into PostgreSQL: every service's schema, in one transaction.",
        discussion: """
            Checks the whole file (row counts, checksum) first. Creates each service's schema the way \
            the service does at start (its migrations), checks the dump's tables and columns against it \
            and that the schemas hold no data, then copies every row in one transaction (each value \
            converted to its column's type), sets sequences past the highest value and compares the row \
            counts before committing. Any problem: a clear error, exit 1, nothing written. \
            docs/POSTGRESQL.md, "Moving from SQLite to PostgreSQL".
            """)

    @Option(name: .customLong("input"), help: "The dump file (podium-data export --output).")
    var input: String

    @Option(name: .customLong("database-url"), help: "The target database (default: $PODIUM_DATABASE_URL).")
    var databaseURL: String?

    @Flag(help: "Empty the target schemas' tables first instead of refusing a target that holds data.")
    var replace = false

    func run() throws {
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = .warning
            return handler
        }
        let environment = ProcessInfo.processInfo.environment
        guard let url = databaseURL ?? environment["PODIUM_DATABASE_URL"], !url.isEmpty else {
            throw CommandFailure("import needs the target database: --database-url or $PODIUM_DATABASE_URL")
        }
        let input = URL(fileURLWithPath: self.input)
        let replace = replace
        // The whole file first (its shape, row counts and checksum): a damaged or truncated dump
        // is refused before the database is touched.
        let reader = try DumpReader(path: input, decodingRows: false)
        while case .row = try reader.next() {}
        let header = reader.header
        if let unknown = header.stores.first(where: { !DeploymentFiles.services.contains($0.service) }) {
            throw CommandFailure(
                "\(input.path) holds a store of an unknown service '\(unknown.service)' (\(unknown.file)); nothing was imported"
            )
        }
        let settings = try Dictionary(
            uniqueKeysWithValues: Set(header.stores.map(\.service)).map { service in
                (service, try Self.settings(url: url, service: service))
            })
        let summary = try blocking {
            try await Self.load(input: input, header: header, settings: settings, replace: replace)
        }
        print(summary)
    }

    static func settings(url: String, service: String) throws -> DatabaseSettings {
        do {
            return try DatabaseSettings(url: url, schema: "podium_\(service)")
        } catch let problem as ConfigurationProblem {
            throw CommandFailure("the target database: \(problem)")
        }
    }

    /// Creates the schemas (the services' own openers: their migrations), plans, checks and loads.
    static func load(input: URL, header: DumpHeader, settings: [String: DatabaseSettings], replace: Bool) async throws
        -> String
    {
        let started = ContinuousClock.now
        let logger = Logger(label: "podium.import")
        for service in DeploymentFiles.services where settings[service] != nil {
            guard let database = settings[service] else { continue }
            do {
                try await openAndClose(service, database, logger: logger)
            } catch let error as StorageUnavailable {
                throw CommandFailure(
                    "cannot reach \(database.location): \(error) "
                        + "(is the server up, and are the host, port, user, password and database right?); nothing was imported"
                )
            } catch {
                throw CommandFailure(
                    "cannot open the \(service) schema \(database.location): \(error); nothing was imported")
            }
        }
        guard let first = header.stores.first, let connectTo = settings[first.service] else {
            throw CommandFailure("\(input.path) holds no store")
        }
        let target = try await PostgresImportTarget.connect(connectTo, logger: logger)
        defer { target.close() }
        // Services load their state at start: importing under a running stack would leave it
        // serving what it had. The openers' own connections close within moments.
        var others = try await target.otherPodiumConnections()
        let deadline = ContinuousClock.now + .seconds(5)
        while others > 0 && ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(200))
            others = try await target.otherPodiumConnections()
        }
        guard others == 0 else {
            throw CommandFailure(
                "\(others) connections of Podium processes are open on the target database (is the stack running on it?): "
                    + "stop it, then import; nothing was imported")
        }

        var found: [String: [TargetTable]] = [:]
        for (service, database) in settings { found[service] = try await target.tables(in: database.schema) }
        let schemas = found
        let plan = try ImportPlan(header: header, schemas: schemas, settings: settings)

        // A target that holds data is refused (or emptied, with --replace).
        var occupied: [String] = []
        for service in DeploymentFiles.services {
            guard let schema = settings[service]?.schema, let tables = schemas[service] else { continue }
            let counts = try await target.rowCounts(in: schema, tables: tables.map(\.name))
            for (table, count) in counts.sorted(by: { $0.key < $1.key }) where count > 0 {
                occupied.append("\(schema).\(table) (\(count) rows)")
            }
        }
        if !occupied.isEmpty && !replace {
            let shown =
                occupied.prefix(4).joined(separator: ", ")
                + (occupied.count > 4 ? " and \(occupied.count - 4) more tables" : "")
            throw CommandFailure(
                "the target already holds data: \(shown); nothing was imported (--replace empties these schemas first)")
        }

        // The copy: one transaction for every schema. A value the target cannot hold, or a row
        // count that differs, throws, and nothing is written.
        try await target.load { loader in
            if replace {
                for service in DeploymentFiles.services {
                    guard let schema = settings[service]?.schema, let tables = schemas[service] else { continue }
                    try await loader.empty(schema: schema, tables: tables.map(\.name))
                }
            }
            try await plan.write(input: input, loader: loader)
        }
        for service in DeploymentFiles.services {
            guard let schema = settings[service]?.schema, let tables = schemas[service] else { continue }
            try await target.analyze(schema: schema, tables: tables.map(\.name))
        }
        let elapsed = ContinuousClock.now - started
        var lines: [String] = []
        for store in header.stores {
            let rows = store.tables.reduce(0) { $0 + $1.rows }
            let schema = settings[store.service]?.schema ?? ""
            let file = store.file.padding(toLength: 30, withPad: " ", startingAt: 0)
            lines.append("\(file) → \(schema): \(store.tables.count) tables, \(rows) rows")
        }
        let database = connectTo.location.replacingOccurrences(of: "?schema=\(connectTo.schema)", with: "")
        let seconds = elapsed.formatted(.units(allowed: [.seconds], fractionalPart: .show(length: 2)))
        lines.append("imported \(header.totalRows) rows into \(database) in \(seconds); row counts checked")
        return lines.joined(separator: "\n")
    }

    /// Opens a service's store in PostgreSQL as the service does at start, which creates its
    /// schema and applies its migrations, and closes it.
    static func openAndClose(_ service: String, _ database: DatabaseSettings, logger: Logger) async throws {
        switch service {
        case "gateway":
            let storage = try await GatewayStorage.postgres(database, logger: logger)
            await storage.eventLog.close()
            await storage.audit.close()
        case "auth": try await PostgresAccountStore.open(database).close()
        case "leaderboard": try await PostgresLeaderboardStore.open(database, foldingImported: false).close()
        case "achievement": try await PostgresAchievementStore.open(database).close()
        case "challenge": try await PostgresChallengeStore.open(database).close()
        default: throw CommandFailure("the dump holds a store of an unknown service '\(service)'")
        }
    }
}

/// Runs `body` to completion from synchronous code (the command's `run`), on the concurrency
/// pool; the calling thread (not one of the pool's) waits.
func blocking<Result: Sendable>(_ body: @escaping @Sendable () async throws -> Result) throws -> Result {
    let outcome = Locked<Swift.Result<Result, any Error>?>(nil)
    let done = DispatchSemaphore(value: 0)
    Task {
        do {
            let value = try await body()
            outcome.withLock { $0 = .success(value) }
        } catch {
            outcome.withLock { $0 = .failure(error) }
        }
        done.signal()
    }
    done.wait()
    guard let result = outcome.value else { throw CommandFailure("the import ended without an outcome") }
    return try result.get()
}
