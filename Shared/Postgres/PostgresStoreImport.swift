import Foundation
import Logging
import NIOCore
import PodiumRuntime
import PostgresNIO

/// A column of a table in PostgreSQL, as `information_schema` describes it: what a dumped value
/// must be converted to.
public struct TargetColumn: Sendable, Equatable {
    public var name: String
    /// `information_schema.columns.data_type`: `bigint`, `boolean`, `text`, `bytea`, `double precision`, …
    public var dataType: String
    public var nullable: Bool
    /// Numbered by a sequence (`bigserial`): its sequence is set past the highest value imported.
    public var serial: Bool
    /// Has a default, so a dump may leave it out.
    public var hasDefault: Bool

    public init(name: String, dataType: String, nullable: Bool, serial: Bool = false, hasDefault: Bool = false) {
        self.name = name
        self.dataType = dataType
        self.nullable = nullable
        self.serial = serial
        self.hasDefault = hasDefault
    }

    /// `value` as this column holds it; throws ``ImportProblem`` for a value the column cannot
    /// hold without losing something (a text in a bigint, 2 in a boolean, a NULL where none may be).
    public func convert(_ value: DumpValue) throws -> TargetValue {
        switch (dataType, value) {
        case (_, .null):
            guard nullable else { throw ImportProblem("column \(name) may not be NULL") }
            return .null
        case ("bigint", .integer(let integer)):
            return .integer(integer)
        case ("integer", .integer(let integer)) where Int32(exactly: integer) != nil,
            ("smallint", .integer(let integer)) where Int16(exactly: integer) != nil:
            return .integer(integer)
        case ("boolean", .integer(let integer)) where integer == 0 || integer == 1:
            return .boolean(integer == 1)
        case ("double precision", .real(let real)), ("real", .real(let real)):
            return .real(real)
        case ("double precision", .integer(let integer)), ("real", .integer(let integer)):
            // SQLite stores a REAL that is a whole number as an integer.
            guard let real = Double(exactly: integer) else {
                throw ImportProblem("column \(name): \(integer) is not exact as a double")
            }
            return .real(real)
        case ("text", .text(let text)), ("character varying", .text(let text)):
            guard !text.utf8.contains(0) else {
                throw ImportProblem("column \(name): PostgreSQL text cannot hold a NUL character")
            }
            return .text(text)
        case ("bytea", .blob(let bytes)):
            return .bytes(bytes)
        case ("bytea", .text(let text)):
            return .bytes(Data(text.utf8))
        default:
            throw ImportProblem(
                "column \(name) (\(dataType)) cannot hold the \(value.kind) value \(Self.describe(value))")
        }
    }

    private static func describe(_ value: DumpValue) -> String {
        switch value {
        case .null: "NULL"
        case .integer(let integer): "\(integer)"
        case .real(let real): "\(real)"
        case .text(let text): "\"\(text.prefix(40))\(text.count > 40 ? "…" : "")\""
        case .blob(let bytes): "(\(bytes.count) bytes)"
        }
    }
}

/// A value ready for a PostgreSQL column.
public enum TargetValue: Sendable, Equatable {
    case null
    case integer(Int64)
    case boolean(Bool)
    case real(Double)
    case text(String)
    case bytes(Data)
}

/// A table in PostgreSQL: its columns, and the tables its foreign keys refer to.
public struct TargetTable: Sendable, Equatable {
    public var name: String
    public var columns: [TargetColumn]
    public var refersTo: Set<String>

    public func column(_ name: String) -> TargetColumn? { columns.first { $0.name == name } }
}

/// A dump that cannot be imported as it is, or a target that cannot take it, said in one sentence.
public struct ImportProblem: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// The target of `podium-data import`: one database, whose service schemas the services'
/// own openers have created (their migrations), loaded in one transaction.
public final class PostgresImportTarget: Sendable {
    private let storage: PostgresStorage

    /// Connects to `settings`' database. Statements are not cut off (an import of a large store
    /// takes its time); `settings.schema` must exist already (an opener made it).
    public static func connect(_ settings: DatabaseSettings, logger: Logger) async throws -> PostgresImportTarget {
        var settings = settings
        settings.poolSize = 1
        settings.statementTimeoutMilliseconds = 24 * 3_600_000
        return PostgresImportTarget(storage: try await PostgresStorage.open(settings, migrations: [], logger: logger))
    }

    private init(storage: PostgresStorage) { self.storage = storage }

    public func close() { storage.close() }

    /// The tables of `schema` (but the migration record), with their columns and foreign keys.
    public func tables(in schema: String) async throws -> [TargetTable] {
        let logger = storage.logger
        return try await storage.read { connection in
            var tables: [String: TargetTable] = [:]
            var order: [String] = []
            let rows = try await connection.query(
                """
                SELECT c.table_name::text, c.column_name::text, c.data_type::text, c.is_nullable = 'YES', COALESCE(c.column_default, '')
                FROM information_schema.columns c JOIN information_schema.tables t
                    ON t.table_schema = c.table_schema AND t.table_name = c.table_name AND t.table_type = 'BASE TABLE'
                WHERE c.table_schema = \(schema) AND c.table_name <> 'podium_migration'
                ORDER BY c.table_name, c.ordinal_position
                """, logger: logger)
            for try await (table, column, type, nullable, defaultValue) in rows.decode(
                (String, String, String, Bool, String).self)
            {
                if tables[table] == nil {
                    tables[table] = TargetTable(name: table, columns: [], refersTo: [])
                    order.append(table)
                }
                tables[table]?.columns.append(
                    TargetColumn(
                        name: column, dataType: type, nullable: nullable, serial: defaultValue.hasPrefix("nextval("),
                        hasDefault: !defaultValue.isEmpty))
            }
            let keys = try await connection.query(
                """
                SELECT c.conrelid::regclass::text, c.confrelid::regclass::text FROM pg_constraint c
                JOIN pg_namespace n ON n.oid = c.connamespace WHERE c.contype = 'f' AND n.nspname = \(schema)
                """, logger: logger)
            for try await (from, to) in keys.decode((String, String).self) {
                let unqualified = { (name: String) in String(name.split(separator: ".").last ?? Substring(name)) }
                tables[unqualified(from)]?.refersTo.insert(unqualified(to))
            }
            return order.compactMap { tables[$0] }
        }
    }

    /// How many other connections of Podium processes (`application_name` `podium`) the
    /// database has: a stack running on the target keeps some open.
    public func otherPodiumConnections() async throws -> Int {
        let logger = storage.logger
        return try await storage.read { connection in
            let rows = try await connection.query(
                """
                SELECT COUNT(*)::bigint FROM pg_stat_activity
                WHERE datname = current_database() AND application_name = 'podium' AND pid <> pg_backend_pid()
                """, logger: logger)
            for try await count in rows.decode(Int64.self) { return Int(count) }
            return 0
        }
    }

    /// How many rows each table of `schema` holds.
    public func rowCounts(in schema: String, tables: [String]) async throws -> [String: Int] {
        let logger = storage.logger
        return try await storage.read { connection in
            var counts: [String: Int] = [:]
            for table in tables { counts[table] = try await Self.count(schema, table, connection, logger) }
            return counts
        }
    }

    /// Runs `body` in one transaction: everything it loaded is committed if it returns, nothing if it throws.
    public func load(_ body: @escaping @Sendable (PostgresTableLoader) async throws -> Void) async throws {
        let logger = storage.logger
        try await storage.transaction { connection in
            do {
                try await body(PostgresTableLoader(connection: connection, logger: logger))
            } catch let error as PSQLError where error.serverInfo != nil {
                // The server refused a row (a duplicate key, a missing referenced row): say what it said.
                let info = error.serverInfo
                let detail = info?[.detail].map { " (\($0))" } ?? ""
                let state = info?[.sqlState] ?? "?"
                throw ImportProblem(
                    "PostgreSQL refused the copy: \(info?[.message] ?? "an error")\(detail) [SQLSTATE \(state)]; nothing was imported"
                )
            }
        }
    }

    /// Fresh planner statistics for imported tables: a bulk load outruns autovacuum's analyze, and
    /// without statistics lookups by player took the rank index (30 ms instead of 0.05 ms a page
    /// at 200,000 entries; docs/BENCHMARKS.md).
    public func analyze(schema: String, tables: [String]) async throws {
        let logger = storage.logger
        try await storage.read { connection in
            for table in tables {
                _ = try await connection.query(
                    PostgresQuery(unsafeSQL: "ANALYZE \(Self.quoted(schema)).\(Self.quoted(table))"), logger: logger)
            }
        }
    }

    static func count(_ schema: String, _ table: String, _ connection: PostgresConnection, _ logger: Logger)
        async throws -> Int
    {
        let rows = try await connection.query(
            PostgresQuery(unsafeSQL: "SELECT COUNT(*)::bigint FROM \(quoted(schema)).\(quoted(table))"), logger: logger)
        for try await count in rows.decode(Int64.self) { return Int(count) }
        return 0
    }

    static func quoted(_ identifier: String) -> String {
        "\"" + identifier.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}

/// Writes rows inside the import's transaction.
public struct PostgresTableLoader: Sendable {
    let connection: PostgresConnection
    let logger: Logger

    /// Empties the tables of `schema` (for `--replace`), sequences restarted.
    public func empty(schema: String, tables: [String]) async throws {
        guard !tables.isEmpty else { return }
        let names = tables.map { "\(PostgresImportTarget.quoted(schema)).\(PostgresImportTarget.quoted($0))" }
        try await connection.query(
            PostgresQuery(unsafeSQL: "TRUNCATE \(names.joined(separator: ", ")) RESTART IDENTITY CASCADE"),
            logger: logger)
    }

    /// Copies `rows` (each in the order of `columns`) into `schema.table` with `COPY … FROM STDIN`
    /// (text format), a megabyte at a time.
    public func insert(schema: String, table: String, columns: [String], rows: [[TargetValue]]) async throws {
        guard !rows.isEmpty else { return }
        try await connection.query(
            PostgresQuery(unsafeSQL: "SET LOCAL search_path TO \(PostgresImportTarget.quoted(schema))"), logger: logger)
        try await connection.copyFrom(table: table, columns: columns, logger: logger) { writer in
            var buffer = ByteBuffer()
            buffer.reserveCapacity(1 << 20)
            for row in rows {
                buffer.writeString(Self.copyLine(row))
                if buffer.readableBytes >= 1 << 20 {
                    try await writer.write(buffer)
                    buffer.clear()
                }
            }
            if buffer.readableBytes > 0 { try await writer.write(buffer) }
        }
    }

    /// One row in `COPY`'s text format: values separated by tabs, `\N` for NULL, backslash,
    /// newline, carriage return and tab escaped, bytes as `\x` and hex digits.
    private static let hexDigits = Array("0123456789abcdef".unicodeScalars)

    static func copyLine(_ row: [TargetValue]) -> String {
        var line = ""
        for (index, value) in row.enumerated() {
            if index > 0 { line.append("\t") }
            switch value {
            case .null: line.append("\\N")
            case .integer(let integer): line.append(String(integer))
            case .boolean(let boolean): line.append(boolean ? "t" : "f")
            case .real(let real):
                line.append(real.isNaN ? "NaN" : real.isInfinite ? (real < 0 ? "-Infinity" : "Infinity") : "\(real)")
            case .text(let text):
                for character in text.unicodeScalars {
                    switch character {
                    case "\\": line.append("\\\\")
                    case "\n": line.append("\\n")
                    case "\r": line.append("\\r")
                    case "\t": line.append("\\t")
                    default: line.unicodeScalars.append(character)
                    }
                }
            case .bytes(let bytes):
                line.append("\\\\x")
                let digits = hexDigits
                for byte in bytes {
                    line.unicodeScalars.append(digits[Int(byte >> 4)])
                    line.unicodeScalars.append(digits[Int(byte & 0x0F)])
                }
            }
        }
        line.append("\n")
        return line
    }

    /// Sets the sequence of each serial column of `schema.table` past the highest value it holds
    /// and past `floor` (the source's own counter), so the next row numbers on from there.
    public func advanceSequences(schema: String, table: TargetTable, floor: Int64?) async throws {
        for column in table.columns where column.serial {
            let qualified = "\(PostgresImportTarget.quoted(schema)).\(PostgresImportTarget.quoted(table.name))"
            let rows = try await connection.query(
                PostgresQuery(
                    unsafeSQL:
                        "SELECT COALESCE(MAX(\(PostgresImportTarget.quoted(column.name))), 0)::bigint FROM \(qualified)"
                ),
                logger: logger)
            var highest: Int64 = 0
            for try await value in rows.decode(Int64.self) { highest = value }
            highest = max(highest, floor ?? 0)
            guard highest > 0 else { continue }
            var bindings = PostgresBindings()
            bindings.append(qualified)
            bindings.append(column.name)
            bindings.append(highest)
            try await connection.query(
                PostgresQuery(unsafeSQL: "SELECT setval(pg_get_serial_sequence($1, $2), $3, true)", binds: bindings),
                logger: logger)
        }
    }

    /// How many rows `schema.table` holds, in this transaction.
    public func count(schema: String, table: String) async throws -> Int {
        try await PostgresImportTarget.count(schema, table, connection, logger)
    }
}
