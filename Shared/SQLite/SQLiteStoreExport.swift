import Foundation
import GRDB
import PodiumRuntime

/// Reads a service's SQLite store whole, for `podium-data export`: every table (but SQLite's
/// and GRDB's own bookkeeping) with its columns and rows as ``DumpValue``s.
///
/// The file is opened alone: `locking_mode = EXCLUSIVE` and an exclusive transaction, which a
/// running service (it keeps its connections open) prevents, so a store in use is refused rather
/// than read half-written; and while the export reads, no service can open it.
public enum SQLiteStoreExport {
    /// Tables that are the backend's bookkeeping, not data: GRDB's migration list (reported as
    /// ``SQLiteStoreContents/migrations``) and the write probe of ``DurableDatabase``.
    static let bookkeeping: Set<String> = ["grdb_migrations", "podium_opened"]

    /// Opens `path` alone and calls `body` with its contents; closes it after.
    public static func read<Result>(path: URL, _ body: (SQLiteStoreContents) throws -> Result) throws -> Result {
        guard FileManager.default.fileExists(atPath: path.path) else {
            throw SQLiteExportProblem("\(path.path) does not exist")
        }
        var configuration = Configuration()
        configuration.busyMode = .timeout(1)
        configuration.label = "podium-export"
        configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA locking_mode = EXCLUSIVE") }
        do {
            let queue = try DatabaseQueue(path: path.path, configuration: configuration)
            defer { try? queue.close() }
            return try queue.inDatabase { db in
                try db.execute(sql: "BEGIN EXCLUSIVE")
                defer { try? db.execute(sql: "ROLLBACK") }
                return try body(try SQLiteStoreContents(db))
            }
        } catch let error as DatabaseError where [.SQLITE_BUSY, .SQLITE_LOCKED].contains(error.resultCode) {
            throw SQLiteExportProblem(
                "\(path.path) is open in another process (a Podium service still running?): stop the stack, then export"
            )
        } catch let error as DatabaseError where [.SQLITE_NOTADB, .SQLITE_CORRUPT].contains(error.resultCode) {
            throw SQLiteExportProblem("\(path.path) is not a readable SQLite database: \(error.message ?? "\(error)")")
        }
    }
}

/// A store's contents, read inside ``SQLiteStoreExport/read(path:_:)``; valid only there.
public struct SQLiteStoreContents {
    private let db: Database
    /// The migrations the store has applied (GRDB's `grdb_migrations`), in order.
    public let migrations: [String]
    /// Every data table, in the order the store created them (a table before those that refer to it).
    public let tables: [DumpTable]

    init(_ db: Database) throws {
        self.db = db
        migrations =
            try db.tableExists("grdb_migrations")
            ? try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations ORDER BY rowid") : []
        var sequences: [String: Int64] = [:]
        if try db.tableExists("sqlite_sequence") {
            for row in try Row.fetchAll(db, sql: "SELECT name, seq FROM sqlite_sequence") { sequences[row[0]] = row[1] }
        }
        var tables: [DumpTable] = []
        for row in try Row.fetchAll(
            db,
            sql: "SELECT name, sql FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY rowid")
        {
            let name: String = row[0]
            guard !SQLiteStoreExport.bookkeeping.contains(name) else { continue }
            let sql: String = row[1] ?? ""
            let columns = try db.columns(in: name)
            let primaryKey = try db.primaryKey(name)
            // SQLite's row number, where it is not a column already (an INTEGER PRIMARY KEY is it).
            let hasRowNumber = !sql.uppercased().contains("WITHOUT ROWID") && primaryKey.rowIDColumn == nil
            let names = (hasRowNumber ? [DumpTable.rowNumberColumn] : []) + columns.map(\.name)
            let count = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM \(name.quotedDatabaseIdentifier)") ?? 0
            tables.append(DumpTable(name: name, columns: names, rows: count, sequence: sequences[name]))
        }
        self.tables = tables
    }

    /// Calls `body` with each row of `table`, its values in the order of `table.columns`.
    public func forEachRow(of table: DumpTable, _ body: ([DumpValue]) throws -> Void) throws {
        let columns = table.columns.map { $0 == DumpTable.rowNumberColumn ? "rowid" : $0.quotedDatabaseIdentifier }
        let hasRowNumber = table.columns.first == DumpTable.rowNumberColumn
        let order = hasRowNumber ? " ORDER BY rowid" : ""
        let cursor = try Row.fetchCursor(
            db, sql: "SELECT \(columns.joined(separator: ", ")) FROM \(table.name.quotedDatabaseIdentifier)\(order)")
        while let row = try cursor.next() {
            var values: [DumpValue] = []
            values.reserveCapacity(row.count)
            for index in 0..<row.count {
                let value: DatabaseValue = row[index]
                switch value.storage {
                case .null: values.append(.null)
                case .int64(let integer): values.append(.integer(integer))
                case .double(let real): values.append(.real(real))
                case .string(let text): values.append(.text(text))
                case .blob(let bytes): values.append(.blob(bytes))
                }
            }
            try body(values)
        }
    }
}

/// A store that cannot be exported as it is, said in one sentence.
public struct SQLiteExportProblem: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
