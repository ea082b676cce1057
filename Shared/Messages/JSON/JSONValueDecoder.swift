import Foundation

/// Decodes any `Decodable` straight from a ``JSONValue``, without writing and re-reading text.
///
/// Errors are the `DecodingError`s Foundation's `JSONDecoder` throws, with the same coding paths
/// (the protocol's `missing_field` / `invalid_shape` answers name the field from them): a missing
/// key is `keyNotFound`, `null` for a required value is `valueNotFound`, a value of the wrong
/// JSON type is `typeMismatch`, a number that does not fit the type is `dataCorrupted`.
/// Like Foundation: whole numbers written with a fraction (`5.0`) decode as integers, `Data` is
/// Base64 text, `URL` is its absolute string, `Date` is seconds since 2001 (`deferredToDate`).
public enum JSONValueDecoder {
    public static func decode<Value: Decodable>(_ type: Value.Type, from value: JSONValue) throws -> Value {
        try ValueDecoder(value, codingPath: []).decodeValue(type)
    }
}

/// The `Decoder` for one value at one coding path.
private struct ValueDecoder: Decoder, JSONValueSource {
    let value: JSONValue
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    init(_ value: JSONValue, codingPath: [any CodingKey]) {
        self.value = value
        self.codingPath = codingPath
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        switch value {
        case .object(let members):
            return KeyedDecodingContainer(KeyedContainer<Key>(members: members, codingPath: codingPath))
        case .null:
            throw DecodingError.valueNotFound(
                [String: JSONValue].self, context("Cannot get keyed decoding container -- found null value instead"))
        default: throw mismatch([String: JSONValue].self)
        }
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        switch value {
        case .array(let elements): return UnkeyedContainer(elements: elements, codingPath: codingPath)
        case .null:
            throw DecodingError.valueNotFound(
                [JSONValue].self, context("Cannot get unkeyed decoding container -- found null value instead"))
        default: throw mismatch([JSONValue].self)
        }
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { self }

    // MARK: - Values

    /// Any decodable at this position, with the special cases Foundation's decoder has.
    func decodeValue<Value: Decodable>(_ type: Value.Type) throws -> Value {
        if type == JSONValue.self { return value as! Value }
        // An envelope of the canonical shape, wherever it is, without the keyed containers
        // (EnvelopeCoding); any other shape goes on through them, for the codec's own refusal.
        if let envelope = type as? any EnvelopeFastCoding.Type, !EnvelopeCodingMode.codableOnly,
            let decoded = envelope.fastDecoded(from: value)
        {
            return decoded as! Value
        }
        if type == Data.self {
            guard case .string(let text) = value else { throw nonNull(mismatch(String.self)) }
            guard let data = Data(base64Encoded: text) else {
                throw DecodingError.dataCorrupted(context("Encountered Data is not valid Base64."))
            }
            return data as! Value
        }
        if type == URL.self {
            guard case .string(let text) = value else { throw nonNull(mismatch(String.self)) }
            guard let url = URL(string: text) else { throw DecodingError.dataCorrupted(context("Invalid URL string.")) }
            return url as! Value
        }
        return try Value(from: self)
    }

    func decodeBool() throws -> Bool {
        guard case .bool(let flag) = value else { throw nonNull(mismatch(Bool.self)) }
        return flag
    }

    func decodeString() throws -> String {
        guard case .string(let text) = value else { throw nonNull(mismatch(String.self)) }
        return text
    }

    func decodeInteger<Integer: FixedWidthInteger>(_ type: Integer.Type) throws -> Integer {
        switch value {
        case .integer(let number):
            guard let exact = Integer(exactly: number) else { throw outOfRange(number, type) }
            return exact
        case .double(let number):
            guard let exact = Integer(exactly: number) else { throw outOfRange(number, type) }
            return exact
        default:
            throw nonNull(mismatch(type))
        }
    }

    func decodeFloatingPoint<Number: BinaryFloatingPoint>(_ type: Number.Type) throws -> Number {
        switch value {
        case .integer(let number): return Number(number)
        case .double(let number):
            let converted = Number(number)
            guard converted.isFinite else { throw outOfRange(number, type) }
            return converted
        default: throw nonNull(mismatch(type))
        }
    }

    // MARK: - Errors

    private func context(_ description: String) -> DecodingError.Context {
        DecodingError.Context(codingPath: codingPath, debugDescription: description)
    }

    private func mismatch(_ type: Any.Type) -> DecodingError {
        DecodingError.typeMismatch(
            type, context("Expected to decode \(type) but found \(value.kindDescription) instead."))
    }

    /// `null` where a value is required is `valueNotFound`, not a type mismatch.
    private func nonNull(_ error: DecodingError) -> DecodingError {
        guard case .null = value, case .typeMismatch(let type, _) = error else { return error }
        return DecodingError.valueNotFound(type, context("Expected \(type) value but found null instead."))
    }

    private func outOfRange(_ number: Any, _ type: Any.Type) -> DecodingError {
        DecodingError.dataCorrupted(context("Parsed JSON number <\(number)> does not fit in \(type)."))
    }
}

extension ValueDecoder: SingleValueDecodingContainer {
    func decodeNil() -> Bool { value == .null }
    func decode(_ type: Bool.Type) throws -> Bool { try decodeBool() }
    func decode(_ type: String.Type) throws -> String { try decodeString() }
    func decode(_ type: Double.Type) throws -> Double { try decodeFloatingPoint(type) }
    func decode(_ type: Float.Type) throws -> Float { try decodeFloatingPoint(type) }
    func decode(_ type: Int.Type) throws -> Int { try decodeInteger(type) }
    func decode(_ type: Int8.Type) throws -> Int8 { try decodeInteger(type) }
    func decode(_ type: Int16.Type) throws -> Int16 { try decodeInteger(type) }
    func decode(_ type: Int32.Type) throws -> Int32 { try decodeInteger(type) }
    func decode(_ type: Int64.Type) throws -> Int64 { try decodeInteger(type) }
    func decode(_ type: UInt.Type) throws -> UInt { try decodeInteger(type) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try decodeInteger(type) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try decodeInteger(type) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try decodeInteger(type) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try decodeInteger(type) }
    func decode<Value: Decodable>(_ type: Value.Type) throws -> Value { try decodeValue(type) }
}

// MARK: - Containers

private struct KeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let members: [String: JSONValue]
    let codingPath: [any CodingKey]

    var allKeys: [Key] { members.keys.compactMap { Key(stringValue: $0) } }

    func contains(_ key: Key) -> Bool { members[key.stringValue] != nil }

    private func member(_ key: Key) throws -> ValueDecoder {
        guard let value = members[key.stringValue] else {
            throw DecodingError.keyNotFound(
                key,
                DecodingError.Context(
                    codingPath: codingPath,
                    debugDescription: "No value associated with key \(key.stringValue) (\"\(key.stringValue)\")."))
        }
        return ValueDecoder(value, codingPath: codingPath + [key])
    }

    func decodeNil(forKey key: Key) throws -> Bool { try member(key).value == .null }
    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try member(key).decodeBool() }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try member(key).decodeString() }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try member(key).decodeFloatingPoint(type) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try member(key).decodeFloatingPoint(type) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try member(key).decodeInteger(type) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try member(key).decodeInteger(type) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try member(key).decodeInteger(type) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try member(key).decodeInteger(type) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try member(key).decodeInteger(type) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try member(key).decodeInteger(type) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try member(key).decodeInteger(type) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try member(key).decodeInteger(type) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try member(key).decodeInteger(type) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try member(key).decodeInteger(type) }

    func decode<Value: Decodable>(_ type: Value.Type, forKey key: Key) throws -> Value {
        if type == JSONValue.self, let value = members[key.stringValue] { return value as! Value }
        return try member(key).decodeValue(type)
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws
        -> KeyedDecodingContainer<NestedKey>
    {
        try member(key).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try member(key).unkeyedContainer()
    }

    func superDecoder() throws -> any Decoder {
        ValueDecoder(members["super"] ?? .null, codingPath: codingPath + [IndexKey(stringValue: "super")])
    }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        ValueDecoder(members[key.stringValue] ?? .null, codingPath: codingPath + [key])
    }
}

private struct UnkeyedContainer: UnkeyedDecodingContainer {
    let elements: [JSONValue]
    let codingPath: [any CodingKey]
    private(set) var currentIndex = 0

    init(elements: [JSONValue], codingPath: [any CodingKey]) {
        self.elements = elements
        self.codingPath = codingPath
    }

    var count: Int? { elements.count }
    var isAtEnd: Bool { currentIndex >= elements.count }

    private mutating func next(_ type: Any.Type) throws -> ValueDecoder {
        guard !isAtEnd else {
            throw DecodingError.valueNotFound(
                type,
                DecodingError.Context(
                    codingPath: codingPath + [IndexKey(index: currentIndex)],
                    debugDescription: "Unkeyed container is at end."))
        }
        defer { currentIndex += 1 }
        return ValueDecoder(elements[currentIndex], codingPath: codingPath + [IndexKey(index: currentIndex)])
    }

    mutating func decodeNil() throws -> Bool {
        guard !isAtEnd else {
            _ = try next(JSONValue.self)
            return false
        }
        guard elements[currentIndex] == .null else { return false }
        currentIndex += 1
        return true
    }

    mutating func decode(_ type: Bool.Type) throws -> Bool { try next(type).decodeBool() }
    mutating func decode(_ type: String.Type) throws -> String { try next(type).decodeString() }
    mutating func decode(_ type: Double.Type) throws -> Double { try next(type).decodeFloatingPoint(type) }
    mutating func decode(_ type: Float.Type) throws -> Float { try next(type).decodeFloatingPoint(type) }
    mutating func decode(_ type: Int.Type) throws -> Int { try next(type).decodeInteger(type) }
    mutating func decode(_ type: Int8.Type) throws -> Int8 { try next(type).decodeInteger(type) }
    mutating func decode(_ type: Int16.Type) throws -> Int16 { try next(type).decodeInteger(type) }
    mutating func decode(_ type: Int32.Type) throws -> Int32 { try next(type).decodeInteger(type) }
    mutating func decode(_ type: Int64.Type) throws -> Int64 { try next(type).decodeInteger(type) }
    mutating func decode(_ type: UInt.Type) throws -> UInt { try next(type).decodeInteger(type) }
    mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try next(type).decodeInteger(type) }
    mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try next(type).decodeInteger(type) }
    mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try next(type).decodeInteger(type) }
    mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try next(type).decodeInteger(type) }
    mutating func decode<Value: Decodable>(_ type: Value.Type) throws -> Value { try next(type).decodeValue(type) }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<
        NestedKey
    > {
        try next([String: JSONValue].self).container(keyedBy: type)
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        try next([JSONValue].self).unkeyedContainer()
    }

    mutating func superDecoder() throws -> any Decoder {
        try next(JSONValue.self)
    }
}

/// A coding key for array positions and `super`.
struct IndexKey: CodingKey {
    let stringValue: String
    let intValue: Int?

    init(index: Int) {
        stringValue = "Index \(index)"
        intValue = index
    }

    init(stringValue: String) {
        self.stringValue = stringValue
        intValue = nil
    }

    init?(intValue: Int) {
        self.init(index: intValue)
    }
}

extension JSONValue {
    /// The JSON type's name, for error messages.
    var kindDescription: String {
        switch self {
        case .null: "null"
        case .bool: "a boolean"
        case .integer, .double: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "a dictionary"
        }
    }
}
