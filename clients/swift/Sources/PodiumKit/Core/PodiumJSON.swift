import Foundation

/// A JSON value as Podium sends it: integers stay exact 64-bit integers (docs/PROTOCOL.md
/// section 3), other numbers are doubles.
///
/// Used where a reply carries free-form JSON: a notification's `details`, a score's `metadata`,
/// and the replies of ``PodiumClient/call(_:gameId:payload:idempotencyKey:)``.
public enum PodiumJSON: Sendable, Hashable {
    case null
    case bool(Bool)
    case integer(Int64)
    case double(Double)
    case string(String)
    case array([PodiumJSON])
    case object([String: PodiumJSON])

    /// The member `key` of an object; nil for anything else or an absent member.
    public subscript(key: String) -> PodiumJSON? {
        if case .object(let members) = self { return members[key] }
        return nil
    }

    public var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    /// The integer, also from a double that holds a whole number.
    public var integerValue: Int64? {
        switch self {
        case .integer(let value): return value
        case .double(let value) where value.rounded() == value && abs(value) < 9.2e18: return Int64(value)
        default: return nil
        }
    }

    public var doubleValue: Double? {
        switch self {
        case .integer(let value): return Double(value)
        case .double(let value): return value
        default: return nil
        }
    }

    public var boolValue: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }

    public var arrayValue: [PodiumJSON]? {
        if case .array(let values) = self { return values }
        return nil
    }

    public var objectValue: [String: PodiumJSON]? {
        if case .object(let members) = self { return members }
        return nil
    }

    /// Decodes this value as `T` (a reply's payload read into a typed value).
    public func decode<T: Decodable>(_ type: T.Type = T.self) throws -> T {
        try JSONDecoder().decode(T.self, from: JSONEncoder().encode(self))
    }

    /// The value `value` encodes to.
    public init(encoding value: some Encodable) throws {
        self = try JSONDecoder().decode(PodiumJSON.self, from: JSONEncoder().encode(value))
    }
}

extension PodiumJSON: Codable {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Int64.self) {
            self = .integer(value)
        } else if let value = try? container.decode(Double.self) {
            self = .double(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([PodiumJSON].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: PodiumJSON].self))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .integer(let value): try container.encode(value)
        case .double(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        case .array(let values): try container.encode(values)
        case .object(let members): try container.encode(members)
        }
    }
}

extension PodiumJSON: ExpressibleByNilLiteral, ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral, ExpressibleByStringLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral
{
    public init(nilLiteral: ()) { self = .null }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(integerLiteral value: Int64) { self = .integer(value) }
    public init(floatLiteral value: Double) { self = .double(value) }
    public init(stringLiteral value: String) { self = .string(value) }
    public init(arrayLiteral elements: PodiumJSON...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, PodiumJSON)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
}

extension PodiumJSON {
    /// An object of the members whose value is not nil: optional request fields are left out
    /// rather than sent as `null` (docs/PROTOCOL.md section 3).
    static func compact(_ members: [String: PodiumJSON?]) -> PodiumJSON {
        .object(members.compactMapValues { $0 })
    }
}
