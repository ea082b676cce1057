import ArgumentParser
import Foundation
import PodiumRuntime
import PodiumSQLite

/// The SQLite files of a deployment and the service whose PostgreSQL schema each goes to
/// (docs/ARCHITECTURE.md, "Data ownership and the storage seam").
enum DeploymentFiles {
    static let all: [(service: String, file: String)] = [
        ("gateway", "gateway-events.sqlite"),
        ("gateway", "gateway-audit.sqlite"),
        ("auth", "auth-accounts.sqlite"),
        ("leaderboard", "leaderboard-scores.sqlite"),
        ("achievement", "achievement-progress.sqlite"),
        ("challenge", "challenge-challenges.sqlite"),
    ]

    /// The services in the order they start.
    static var services: [String] { all.map(\.service).reduce(into: []) { if !$0.contains($1) { $0.append($1) } } }
}

/// `podium-data export`: a whole SQLite deployment into one dump file, offline.
struct ExportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Write a stopped deployment's SQLite stores to one dump file (for podium-data import).",
        discussion: """
            Reads every store under the data directory (gateway-events, gateway-audit, auth-accounts, \
            leaderboard-scores, achievement-progress, challenge-challenges .sqlite): every row of every \
            table, receipts, outboxes and stream positions included, typed so that nothing is lost. \
            The stack must be stopped: a store another process has open is refused. The dump is JSON \
            lines with a checksum (docs/POSTGRESQL.md, "Moving from SQLite to PostgreSQL").
            """)

    @Option(name: .customLong("data"), help: "The deployment's data directory (default: $PODIUM_DATA or ./.podium).")
    var dataDirectory: String?

    @Option(name: .customLong("output"), help: "The dump file to write (must not exist).")
    var output: String

    func run() throws {
        let started = ContinuousClock.now
        let environment = ProcessInfo.processInfo.environment
        let directory = URL(fileURLWithPath: dataDirectory ?? environment["PODIUM_DATA"] ?? ".podium")
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory.path, isDirectory: &isDirectory), isDirectory.boolValue
        else {
            throw CommandFailure("no data directory \(directory.path)")
        }
        let missing = DeploymentFiles.all.map(\.file).filter {
            !FileManager.default.fileExists(atPath: directory.appendingPathComponent($0).path)
        }
        guard missing.isEmpty else {
            throw CommandFailure(
                "\(directory.path) is not a whole SQLite deployment: no \(missing.joined(separator: ", ")) "
                    + "(start the stack on it once, stop it, then export)")
        }
        // The header needs every table's row count before the rows: read each store twice, alone
        // both times (a store opened between the two reads would fail the count check on import).
        var stores: [DumpStore] = []
        for (service, file) in DeploymentFiles.all {
            let store = try Self.refusing {
                try SQLiteStoreExport.read(path: directory.appendingPathComponent(file)) { contents in
                    DumpStore(service: service, file: file, migrations: contents.migrations, tables: contents.tables)
                }
            }
            stores.append(store)
        }
        let header = DumpHeader(
            format: DumpHeader.format, version: DumpHeader.version,
            createdAt: Int64(Date().timeIntervalSince1970 * 1000), stores: stores)
        let writer = try DumpWriter(to: URL(fileURLWithPath: output), header: header)
        do {
            for store in stores {
                try Self.refusing {
                    try SQLiteStoreExport.read(path: directory.appendingPathComponent(store.file)) { contents in
                        guard contents.tables == store.tables else {
                            throw CommandFailure(
                                "\(store.file) changed while exporting: stop the stack, then export again")
                        }
                        for table in store.tables {
                            try writer.startTable(store: store.file, table: table.name)
                            try contents.forEachRow(of: table) { try writer.row($0) }
                        }
                    }
                }
            }
            try writer.finish()
        } catch {
            writer.abandon()
            throw error
        }
        let elapsed = ContinuousClock.now - started
        for store in stores {
            let rows = store.tables.reduce(0) { $0 + $1.rows }
            print(
                "\(store.file.padding(toLength: 30, withPad: " ", startingAt: 0)) \(store.tables.count) tables, \(rows) rows"
            )
        }
        let seconds = elapsed.formatted(.units(allowed: [.seconds], fractionalPart: .show(length: 2)))
        print("exported \(header.totalRows) rows to \(output) in \(seconds)")
    }

    /// Runs `body`, saying a store's problem as a command failure.
    static func refusing<Result>(_ body: () throws -> Result) throws -> Result {
        do {
            return try body()
        } catch let problem as SQLiteExportProblem {
            throw CommandFailure(problem.description)
        }
    }
}
