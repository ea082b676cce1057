import Foundation
import PodiumPostgres
import PodiumRuntime

/// How each table of a dump goes into PostgreSQL, decided against the target's own layout
/// (`information_schema`, after the services' migrations) before a row is read.
///
/// The layouts of the two backends mirror each other table for table and column for column; the
/// target's layout is the check that the dump belongs to this version of Podium (the migrations
/// are named differently in the two backends, so their names cannot be compared). Refused: a
/// dump table or column the target does not have (a dump from a newer Podium), a target table the
/// dump lacks (one from an older Podium; only the shared `podium_*` tables, which some SQLite
/// stores do not have, may be missing), a target column the dump lacks that has no default, a
/// table before one it refers to. SQLite's own row number (`rowid`) fills the target's one
/// serial column the dump has no column for (a challenge inbox's `position`, which clients see),
/// and is dropped where there is none.
struct ImportPlan: Sendable {
    struct Table: Sendable {
        var file: String
        var schema: String
        var target: TargetTable
        /// For each dump column, the target column its values go to; nil: dropped.
        var mapping: [TargetColumn?]
        var rows: Int
        var sequence: Int64?

        var insertColumns: [String] { mapping.compactMap { $0?.name } }

        func convert(_ values: [DumpValue]) throws -> [TargetValue] {
            var cells: [TargetValue] = []
            cells.reserveCapacity(values.count)
            for (value, column) in zip(values, mapping) {
                guard let column else { continue }
                cells.append(try column.convert(value))
            }
            return cells
        }
    }

    static let otherVersion = "the dump was made by another version of Podium; nothing was imported"

    /// By `file/table`.
    private(set) var tables: [String: Table] = [:]
    private(set) var order: [String] = []

    init(header: DumpHeader, schemas: [String: [TargetTable]], settings: [String: DatabaseSettings]) throws {
        var placed: [String: String] = [:]  // schema.table → file
        for store in header.stores {
            guard let schema = settings[store.service]?.schema, let targetTables = schemas[store.service] else {
                throw CommandFailure("the dump holds a store of an unknown service '\(store.service)'")
            }
            let byName = Dictionary(uniqueKeysWithValues: targetTables.map { ($0.name, $0) })
            for table in store.tables {
                guard let target = byName[table.name] else {
                    throw CommandFailure(
                        "\(store.file) has a table \(table.name) that \(schema) has not: \(Self.otherVersion)")
                }
                if let other = placed["\(schema).\(table.name)"] {
                    throw CommandFailure(
                        "\(store.file) and \(other) both have a table \(table.name) for \(schema); nothing was imported"
                    )
                }
                placed["\(schema).\(table.name)"] = store.file
                let unfilledSerial = target.columns.filter { $0.serial && !table.columns.contains($0.name) }
                var mapping: [TargetColumn?] = []
                for column in table.columns {
                    if let found = target.column(column) {
                        mapping.append(found)
                    } else if column == DumpTable.rowNumberColumn {
                        mapping.append(unfilledSerial.count == 1 ? unfilledSerial[0] : nil)
                    } else {
                        throw CommandFailure(
                            "\(store.file) table \(table.name) has a column \(column) that \(schema).\(table.name) has not: \(Self.otherVersion)"
                        )
                    }
                }
                let filled = Set(mapping.compactMap { $0?.name })
                for column in target.columns
                where !filled.contains(column.name) && !column.nullable && !column.hasDefault {
                    throw CommandFailure(
                        "\(schema).\(table.name) needs a column \(column.name) that the dump of \(store.file) has not: \(Self.otherVersion)"
                    )
                }
                for referred in target.refersTo where referred != table.name && placed["\(schema).\(referred)"] == nil {
                    throw CommandFailure(
                        "\(store.file): table \(table.name) comes before \(referred), which it refers to; nothing was imported"
                    )
                }
                let key = "\(store.file)/\(table.name)"
                tables[key] = Table(
                    file: store.file, schema: schema, target: target, mapping: mapping, rows: table.rows,
                    sequence: table.sequence)
                order.append(key)
            }
        }
        for (service, targetTables) in schemas.sorted(by: { $0.key < $1.key }) {
            guard let schema = settings[service]?.schema else { continue }
            for table in targetTables where placed["\(schema).\(table.name)"] == nil && !table.name.hasPrefix("podium_")
            {
                throw CommandFailure(
                    "the dump has no table \(table.name), which \(schema) has: the dump was made by an older version of Podium "
                        + "(start that deployment once with this version, so its stores migrate, stop it and export again); nothing was imported"
                )
            }
        }
    }

    /// Copies every row inside the caller's transaction, then sets the sequences and compares
    /// each table's row count with the dump's (a difference throws: the transaction rolls back).
    func write(input: URL, loader: PostgresTableLoader) async throws {
        let reader = try DumpReader(path: input)
        var batch: [[TargetValue]] = []
        var batchKey: String?
        var rowNumbers: [String: Int] = [:]
        func flush() async throws {
            guard let key = batchKey, let plan = tables[key], !batch.isEmpty else { return }
            try await loader.insert(
                schema: plan.schema, table: plan.target.name, columns: plan.insertColumns, rows: batch)
            batch.removeAll(keepingCapacity: true)
        }
        while case .row(let store, let table, let values) = try reader.next() {
            let key = "\(store.file)/\(table.name)"
            guard let plan = tables[key] else { throw CommandFailure("rows of an unplanned table \(key)") }
            if key != batchKey {
                try await flush()
                batchKey = key
            }
            rowNumbers[key, default: 0] += 1
            do {
                batch.append(try plan.convert(values))
            } catch let problem as ImportProblem {
                throw CommandFailure("\(key) row \(rowNumbers[key] ?? 0): \(problem.description); nothing was imported")
            }
            if batch.count >= 5000 { try await flush() }
        }
        try await flush()
        for key in order {
            guard let plan = tables[key] else { continue }
            try await loader.advanceSequences(schema: plan.schema, table: plan.target, floor: plan.sequence)
            let count = try await loader.count(schema: plan.schema, table: plan.target.name)
            guard count == plan.rows else {
                throw CommandFailure(
                    "\(plan.schema).\(plan.target.name) has \(count) rows after the copy, the dump \(plan.rows); nothing was imported"
                )
            }
        }
    }
}
