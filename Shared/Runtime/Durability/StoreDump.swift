import Foundation

/// One stored value as a dump carries it, typed the way SQLite stores it (its storage classes),
/// so that moving a deployment between backends loses nothing: integers stay integers, blobs
/// stay bytes, a NULL stays NULL.
///
/// In a dump file (`podium-data export`, docs/POSTGRESQL.md) a value is JSON: `null`, an
/// integer, a string, `{"base64": "…"}` for bytes or `{"real": 1.5}` for a floating-point number.
public enum DumpValue: Sendable, Equatable, Codable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob(Data)

    private enum Key: String, CodingKey { case base64, real }

    public init(from decoder: any Decoder) throws {
        let single = try decoder.singleValueContainer()
        if single.decodeNil() {
            self = .null
        } else if let text = try? single.decode(String.self) {
            self = .text(text)
        } else if let integer = try? single.decode(Int64.self) {
            self = .integer(integer)
        } else {
            let keyed = try decoder.container(keyedBy: Key.self)
            if let base64 = try keyed.decodeIfPresent(String.self, forKey: .base64) {
                guard let bytes = Data(base64Encoded: base64) else {
                    throw DecodingError.dataCorruptedError(forKey: .base64, in: keyed, debugDescription: "not base64")
                }
                self = .blob(bytes)
            } else {
                self = .real(try keyed.decode(Double.self, forKey: .real))
            }
        }
    }

    public func encode(to encoder: any Encoder) throws {
        switch self {
        case .null:
            var single = encoder.singleValueContainer()
            try single.encodeNil()
        case .integer(let value):
            var single = encoder.singleValueContainer()
            try single.encode(value)
        case .text(let value):
            var single = encoder.singleValueContainer()
            try single.encode(value)
        case .real(let value):
            var keyed = encoder.container(keyedBy: Key.self)
            try keyed.encode(value, forKey: .real)
        case .blob(let value):
            var keyed = encoder.container(keyedBy: Key.self)
            try keyed.encode(value.base64EncodedString(), forKey: .base64)
        }
    }

    /// The storage class's name, for error messages.
    public var kind: String {
        switch self {
        case .null: "null"
        case .integer: "integer"
        case .real: "real"
        case .text: "text"
        case .blob: "blob"
        }
    }
}

/// One table of a service's store as a dump describes it: its columns in row order, how many
/// rows follow, and the highest number its auto-increment counter has given (which can be past
/// the highest row left), so that the target numbers on from there.
public struct DumpTable: Sendable, Equatable, Codable {
    /// The table's name, the same in both backends.
    public var name: String
    /// The columns, in the order of each row's values. `rowid` is SQLite's own row number, kept
    /// for tables whose order clients see (a challenge inbox's `position`).
    public var columns: [String]
    public var rows: Int
    /// The auto-increment counter (SQLite's `sqlite_sequence`), when the table has one.
    public var sequence: Int64?

    public init(name: String, columns: [String], rows: Int, sequence: Int64? = nil) {
        self.name = name
        self.columns = columns
        self.rows = rows
        self.sequence = sequence
    }

    /// The column that carries SQLite's row number for tables without an integer primary key.
    public static let rowNumberColumn = "rowid"
}
