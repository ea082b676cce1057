import Foundation
import PodiumRuntime

/// The dump file of `podium-data export` and `import` (docs/POSTGRESQL.md, "Moving from SQLite
/// to PostgreSQL"): JSON lines.
///
/// ```
/// {"format":"podium-dump","version":1,"createdAt":…,"stores":[{"service":"auth","file":"auth-accounts.sqlite",
///     "migrations":[…],"tables":[{"name":"player","columns":[…],"rows":3}]}, …]}      (one line)
/// {"store":"auth-accounts.sqlite","table":"player"}
/// ["0141bc0d-…","Ann","ann","ann","$argon2id$…",1795221022014]
/// …
/// {"end":{"rows":1234,"checksum":"fnv1a64:9c3b…"}}
/// ```
///
/// The header lists every table with its columns and row count; each table's rows follow its
/// own line, in the header's order; the last line counts the rows and checksums every byte
/// before it, so a truncated or altered file is refused before anything is written.
struct DumpHeader: Codable, Equatable {
    static let format = "podium-dump"
    static let version = 1

    var format: String
    var version: Int
    var createdAt: Int64
    var stores: [DumpStore]

    var totalRows: Int { stores.reduce(0) { $0 + $1.tables.reduce(0) { $0 + $1.rows } } }

    /// SQLite can hold an infinite REAL; JSON has no number for it.
    static let nonFinite = JSONEncoder.NonConformingFloatEncodingStrategy.convertToString(
        positiveInfinity: "Infinity", negativeInfinity: "-Infinity", nan: "NaN")
    static let nonFiniteDecoding = JSONDecoder.NonConformingFloatDecodingStrategy.convertFromString(
        positiveInfinity: "Infinity", negativeInfinity: "-Infinity", nan: "NaN")
}

/// One SQLite file of the source deployment: the service whose schema it goes to, the
/// migrations it had applied, its tables.
struct DumpStore: Codable, Equatable {
    var service: String
    var file: String
    var migrations: [String]
    var tables: [DumpTable]
}

private struct TableLine: Codable, Equatable {
    var store: String
    var table: String
}

private struct EndLine: Codable {
    struct End: Codable {
        var rows: Int
        var checksum: String
    }
    var end: End
}

/// FNV-1a, 64 bits: catches a truncated or altered dump (not a forged one).
struct DumpChecksum {
    private(set) var state: UInt64 = 0xcbf2_9ce4_8422_2325

    mutating func add(_ bytes: Data) {
        var state = state
        bytes.withUnsafeBytes { buffer in
            for byte in buffer {
                state ^= UInt64(byte)
                state = state &* 0x100_0000_01b3
            }
        }
        self.state = state
    }

    /// The line and the newline that ends it.
    mutating func add(line: Data) {
        add(line)
        add(Data([0x0A]))
    }

    var text: String { "fnv1a64:" + String(state, radix: 16) }
}

/// Writes a dump to `FILE.partial` and renames it to `FILE` once complete, so that a failed
/// export leaves no file that looks whole.
final class DumpWriter {
    private let destination: URL
    private let partial: URL
    private let handle: FileHandle
    private var buffer = Data()
    private var checksum = DumpChecksum()
    private var rows = 0
    private let encoder: JSONEncoder

    init(to destination: URL, header: DumpHeader) throws {
        self.destination = destination
        partial = destination.appendingPathExtension("partial")
        guard !FileManager.default.fileExists(atPath: destination.path) else {
            throw CommandFailure("\(destination.path) exists already: give another --output, or remove it")
        }
        guard
            FileManager.default.createFile(atPath: partial.path, contents: nil, attributes: [.posixPermissions: 0o600])
        else {
            throw CommandFailure("cannot create \(partial.path)")
        }
        handle = try FileHandle(forWritingTo: partial)
        encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.nonConformingFloatEncodingStrategy = DumpHeader.nonFinite
        try line(header)
    }

    func startTable(store: String, table: String) throws { try line(TableLine(store: store, table: table)) }

    func row(_ values: [DumpValue]) throws {
        rows += 1
        try line(values)
    }

    /// Writes the end line, flushes to disk and gives the file its name.
    func finish() throws {
        let end = try encoder.encode(EndLine(end: .init(rows: rows, checksum: checksum.text)))
        buffer.append(end)
        buffer.append(0x0A)
        try flush()
        try handle.synchronize()
        try handle.close()
        try FileManager.default.moveItem(at: partial, to: destination)
    }

    /// Removes the partial file after a failure.
    func abandon() {
        try? handle.close()
        try? FileManager.default.removeItem(at: partial)
    }

    private func line(_ value: some Encodable) throws {
        var bytes = try encoder.encode(value)
        bytes.append(0x0A)
        checksum.add(bytes)
        buffer.append(bytes)
        if buffer.count >= 1 << 20 { try flush() }
    }

    private func flush() throws {
        try handle.write(contentsOf: buffer)
        buffer.removeAll(keepingCapacity: true)
    }
}

/// Reads a dump line by line, checking its shape as it goes: the header first, each table's rows
/// after its line in the header's order and with its column count, the end line last with the
/// right count and checksum. Any departure throws ``CommandFailure`` naming the line.
final class DumpReader {
    /// What the next call to ``next()`` found.
    enum Item {
        case row(store: DumpStore, table: DumpTable, values: [DumpValue])
        case end
    }

    let header: DumpHeader
    private let path: String
    private let handle: FileHandle
    private var lines = LineSplitter()
    private var lineNumber = 0
    private var checksum = DumpChecksum()
    private var rows = 0
    private let decoder: JSONDecoder = {
        let decoder = JSONDecoder()
        decoder.nonConformingFloatDecodingStrategy = DumpHeader.nonFiniteDecoding
        return decoder
    }()
    /// Where the reader is: store and table index, rows left in that table.
    private var store = 0
    private var table = -1
    private var left = 0
    private var ended = false

    /// Whether rows are decoded; without, only their lines are counted and checksummed (the
    /// quick check of a whole file before the database is touched).
    private let decodesRows: Bool

    init(path: URL, decodingRows: Bool = true) throws {
        self.path = path.path
        decodesRows = decodingRows
        do {
            handle = try FileHandle(forReadingFrom: path)
        } catch {
            throw CommandFailure("cannot read \(path.path): \(error.localizedDescription)")
        }
        guard let first = try lines.next(from: handle) else {
            throw CommandFailure("\(path.path) is empty, not a Podium dump")
        }
        lineNumber = 1
        checksum.add(line: first)
        guard let header = try? decoder.decode(DumpHeader.self, from: first), header.format == DumpHeader.format else {
            throw CommandFailure("\(path.path) is not a Podium dump (its first line is not a podium-dump header)")
        }
        guard header.version == DumpHeader.version else {
            throw CommandFailure(
                "\(path.path) is a dump of format version \(header.version); this podium reads version \(DumpHeader.version)"
            )
        }
        self.header = header
    }

    deinit { try? handle.close() }

    /// The next row, or the end once the end line was read and checked.
    func next() throws -> Item {
        guard !ended else { return .end }
        while left == 0 {
            guard let line = try nextLine() else { throw problem("the file ends early (truncated?): no end line") }
            if let end = try? decoder.decode(EndLine.self, from: line) {
                try finish(end)
                return .end
            }
            advanceTable()
            guard store < header.stores.count else {
                throw problem("a table line past the last table of the header")
            }
            let expected = TableLine(store: header.stores[store].file, table: header.stores[store].tables[table].name)
            guard let found = try? decoder.decode(TableLine.self, from: line), found == expected else {
                throw problem("expected the line of table \(expected.store)/\(expected.table)")
            }
            left = header.stores[store].tables[table].rows
            checksum.add(line: line)
        }
        guard let line = try nextLine() else { throw problem("the file ends early (truncated?) inside a table") }
        let current = header.stores[store]
        let description = current.tables[table]
        guard line.first == UInt8(ascii: "["), line.last == UInt8(ascii: "]") else {
            throw problem("expected a row of \(current.file)/\(description.name) (\(left) more): truncated or damaged")
        }
        var values: [DumpValue] = []
        if decodesRows {
            guard let decoded = try? decoder.decode([DumpValue].self, from: line) else {
                throw problem("a row of \(current.file)/\(description.name) is not a JSON array of values")
            }
            values = decoded
        }
        guard !decodesRows || values.count == description.columns.count else {
            throw problem(
                "a row of \(current.file)/\(description.name) has \(values.count) values for \(description.columns.count) columns"
            )
        }
        checksum.add(line: line)
        left -= 1
        rows += 1
        return .row(store: current, table: description, values: values)
    }

    private func advanceTable() {
        table += 1
        while store < header.stores.count, table >= header.stores[store].tables.count {
            store += 1
            table = 0
        }
    }

    private func finish(_ end: EndLine) throws {
        // Every table of the header must have come, the empty ones too.
        advanceTable()
        guard store >= header.stores.count else {
            let missing = header.stores[store]
            throw problem("the end line comes before table \(missing.file)/\(missing.tables[table].name)")
        }
        guard end.end.rows == rows, rows == header.totalRows else {
            throw problem(
                "the end line counts \(end.end.rows) rows; the file has \(rows), the header \(header.totalRows)")
        }
        guard end.end.checksum == checksum.text else {
            throw problem(
                "checksum mismatch (\(end.end.checksum) recorded, \(checksum.text) read): the file was altered or damaged"
            )
        }
        if let extra = try nextLine(), !extra.isEmpty { throw problem("text after the end line") }
        ended = true
    }

    private func problem(_ text: String) -> CommandFailure {
        CommandFailure("\(path) is not a whole Podium dump: line \(lineNumber): \(text); nothing was imported")
    }

    private func nextLine() throws -> Data? {
        let line = try readLine()
        if line != nil { lineNumber += 1 }
        return line
    }

    /// The next line without its newline; nil at the end of the file.
    private func readLine() throws -> Data? {
        try lines.next(from: handle)
    }
}

/// Splits a file into lines, reading it a megabyte at a time.
struct LineSplitter {
    private var buffer: [UInt8] = []
    private var start = 0
    private var atEndOfFile = false

    /// The next line without its newline; nil at the end of the file.
    mutating func next(from handle: FileHandle) throws -> Data? {
        var searched = start
        while true {
            let newline = buffer.withUnsafeBytes { bytes -> Int? in
                guard let base = bytes.baseAddress, bytes.count > searched,
                    let found = memchr(base + searched, 0x0A, bytes.count - searched)
                else { return nil }
                return base.distance(to: UnsafeRawPointer(found))
            }
            if let newline {
                let line = Data(buffer[start..<newline])
                start = newline + 1
                return line
            }
            if atEndOfFile {
                guard start < buffer.count else { return nil }
                defer { start = buffer.count }
                return Data(buffer[start...])
            }
            // Keep the unfinished line, read more after it.
            buffer.removeSubrange(0..<start)
            start = 0
            searched = buffer.count
            if let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty {
                buffer.append(contentsOf: chunk)
            } else {
                atEndOfFile = true
            }
        }
    }
}
