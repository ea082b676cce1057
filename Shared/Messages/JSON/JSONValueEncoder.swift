import Foundation

/// Encodes any `Encodable` straight into a ``JSONValue``, without writing and re-reading text.
///
/// The result is what Foundation's `JSONEncoder` would write: `nil` optionals are left out by
/// the synthesized conformances, a type that encodes nothing is `{}`, non-finite doubles are
/// refused, `Data` is Base64 text, `URL` its absolute string, `Date` seconds since 2001.
public enum JSONValueEncoder {
    public static func encode<Value: Encodable>(_ value: Value) throws -> JSONValue {
        try EncodedSlot.encode(value, codingPath: [])
    }
}

/// What an encoder, or one member or element, turned into: a finished value, or a container
/// that nested containers may still add to.
private enum EncodedSlot {
    case value(JSONValue)
    case object(ObjectBuffer)
    case array(ArrayBuffer)

    var json: JSONValue {
        switch self {
        case .value(let value): value
        case .object(let buffer): .object(buffer.members.mapValues(\.json))
        case .array(let buffer): .array(buffer.elements.map(\.json))
        }
    }

    /// Any encodable, with the special cases Foundation's encoder has.
    static func encode<Value: Encodable>(_ value: Value, codingPath: [any CodingKey]) throws -> JSONValue {
        try slot(value, codingPath: codingPath).json
    }

    static func slot<Value: Encodable>(_ value: Value, codingPath: [any CodingKey]) throws -> EncodedSlot {
        // Type comparisons are cheap; dynamic casts of every value are not.
        let type = Value.self
        if type == JSONValue.self { return .value(value as! JSONValue) }
        if type == String.self { return .value(.string(value as! String)) }
        if type == Int64.self { return .value(.integer(value as! Int64)) }
        if type == Int.self { return .value(.integer(Int64(value as! Int))) }
        if type == Bool.self { return .value(.bool(value as! Bool)) }
        if type == Data.self { return .value(.string((value as! Data).base64EncodedString())) }
        if type == URL.self { return .value(.string((value as! URL).absoluteString)) }
        let encoder = ValueEncoder(codingPath: codingPath)
        try value.encode(to: encoder)
        return encoder.slot ?? .object(ObjectBuffer())
    }
}

private final class ObjectBuffer {
    var members: [String: EncodedSlot] = [:]
}

private final class ArrayBuffer {
    var elements: [EncodedSlot] = []
}

/// The `Encoder` for one value at one coding path.
private final class ValueEncoder: Encoder, JSONValueSink {
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }
    var slot: EncodedSlot?

    init(codingPath: [any CodingKey]) {
        self.codingPath = codingPath
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        let buffer: ObjectBuffer
        if case .object(let existing)? = slot {
            buffer = existing
        } else {
            buffer = ObjectBuffer()
            slot = .object(buffer)
        }
        return KeyedEncodingContainer(KeyedContainer<Key>(buffer: buffer, codingPath: codingPath))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        let buffer: ArrayBuffer
        if case .array(let existing)? = slot {
            buffer = existing
        } else {
            buffer = ArrayBuffer()
            slot = .array(buffer)
        }
        return UnkeyedContainer(buffer: buffer, codingPath: codingPath)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer { SingleValueContainer(encoder: self) }

    func store(_ value: JSONValue) { slot = .value(value) }
}

/// Turns a scalar into its JSON value, refusing what JSON cannot hold.
private enum Scalar {
    static func double(_ number: Double, _ codingPath: [any CodingKey]) throws -> JSONValue {
        guard number.isFinite else {
            throw EncodingError.invalidValue(
                number,
                EncodingError.Context(
                    codingPath: codingPath, debugDescription: "Unable to encode \(number) directly in JSON."))
        }
        return .double(number)
    }

    static func float(_ number: Float, _ codingPath: [any CodingKey]) throws -> JSONValue {
        guard number.isFinite else {
            throw EncodingError.invalidValue(
                number,
                EncodingError.Context(
                    codingPath: codingPath, debugDescription: "Unable to encode \(number) directly in JSON."))
        }
        // The float's own shortest digits, not the widened double's.
        return .double(Double("\(number)") ?? Double(number))
    }

    static func integer<Integer: FixedWidthInteger>(_ number: Integer) -> JSONValue {
        if let exact = Int64(exactly: number) { return .integer(exact) }
        return .double(Double(number))
    }
}

private struct SingleValueContainer: SingleValueEncodingContainer {
    let encoder: ValueEncoder
    var codingPath: [any CodingKey] { encoder.codingPath }

    private func set(_ value: JSONValue) { encoder.slot = .value(value) }

    func encodeNil() { set(.null) }
    func encode(_ value: Bool) { set(.bool(value)) }
    func encode(_ value: String) { set(.string(value)) }
    func encode(_ value: Double) throws { set(try Scalar.double(value, codingPath)) }
    func encode(_ value: Float) throws { set(try Scalar.float(value, codingPath)) }
    func encode(_ value: Int) { set(Scalar.integer(value)) }
    func encode(_ value: Int8) { set(Scalar.integer(value)) }
    func encode(_ value: Int16) { set(Scalar.integer(value)) }
    func encode(_ value: Int32) { set(Scalar.integer(value)) }
    func encode(_ value: Int64) { set(Scalar.integer(value)) }
    func encode(_ value: UInt) { set(Scalar.integer(value)) }
    func encode(_ value: UInt8) { set(Scalar.integer(value)) }
    func encode(_ value: UInt16) { set(Scalar.integer(value)) }
    func encode(_ value: UInt32) { set(Scalar.integer(value)) }
    func encode(_ value: UInt64) { set(Scalar.integer(value)) }
    func encode<Value: Encodable>(_ value: Value) throws {
        encoder.slot = try EncodedSlot.slot(value, codingPath: codingPath)
    }
}

private struct KeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let buffer: ObjectBuffer
    let codingPath: [any CodingKey]

    private func set(_ value: JSONValue, _ key: Key) { buffer.members[key.stringValue] = .value(value) }

    func encodeNil(forKey key: Key) { set(.null, key) }
    func encode(_ value: Bool, forKey key: Key) { set(.bool(value), key) }
    func encode(_ value: String, forKey key: Key) { set(.string(value), key) }
    func encode(_ value: Double, forKey key: Key) throws { set(try Scalar.double(value, codingPath + [key]), key) }
    func encode(_ value: Float, forKey key: Key) throws { set(try Scalar.float(value, codingPath + [key]), key) }
    func encode(_ value: Int, forKey key: Key) { set(Scalar.integer(value), key) }
    func encode(_ value: Int8, forKey key: Key) { set(Scalar.integer(value), key) }
    func encode(_ value: Int16, forKey key: Key) { set(Scalar.integer(value), key) }
    func encode(_ value: Int32, forKey key: Key) { set(Scalar.integer(value), key) }
    func encode(_ value: Int64, forKey key: Key) { set(Scalar.integer(value), key) }
    func encode(_ value: UInt, forKey key: Key) { set(Scalar.integer(value), key) }
    func encode(_ value: UInt8, forKey key: Key) { set(Scalar.integer(value), key) }
    func encode(_ value: UInt16, forKey key: Key) { set(Scalar.integer(value), key) }
    func encode(_ value: UInt32, forKey key: Key) { set(Scalar.integer(value), key) }
    func encode(_ value: UInt64, forKey key: Key) { set(Scalar.integer(value), key) }

    func encode<Value: Encodable>(_ value: Value, forKey key: Key) throws {
        buffer.members[key.stringValue] = try EncodedSlot.slot(value, codingPath: codingPath + [key])
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key)
        -> KeyedEncodingContainer<NestedKey>
    {
        let nested = ObjectBuffer()
        buffer.members[key.stringValue] = .object(nested)
        return KeyedEncodingContainer(KeyedContainer<NestedKey>(buffer: nested, codingPath: codingPath + [key]))
    }

    func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        let nested = ArrayBuffer()
        buffer.members[key.stringValue] = .array(nested)
        return UnkeyedContainer(buffer: nested, codingPath: codingPath + [key])
    }

    func superEncoder() -> any Encoder {
        SlotEncoder(codingPath: codingPath + [IndexKey(stringValue: "super")]) { [buffer] in
            buffer.members["super"] = $0
        }
    }

    func superEncoder(forKey key: Key) -> any Encoder {
        SlotEncoder(codingPath: codingPath + [key]) { [buffer] in buffer.members[key.stringValue] = $0 }
    }
}

private struct UnkeyedContainer: UnkeyedEncodingContainer {
    let buffer: ArrayBuffer
    let codingPath: [any CodingKey]
    var count: Int { buffer.elements.count }

    private var nextPath: [any CodingKey] { codingPath + [IndexKey(index: count)] }
    private func append(_ value: JSONValue) { buffer.elements.append(.value(value)) }

    func encodeNil() { append(.null) }
    func encode(_ value: Bool) { append(.bool(value)) }
    func encode(_ value: String) { append(.string(value)) }
    func encode(_ value: Double) throws { append(try Scalar.double(value, nextPath)) }
    func encode(_ value: Float) throws { append(try Scalar.float(value, nextPath)) }
    func encode(_ value: Int) { append(Scalar.integer(value)) }
    func encode(_ value: Int8) { append(Scalar.integer(value)) }
    func encode(_ value: Int16) { append(Scalar.integer(value)) }
    func encode(_ value: Int32) { append(Scalar.integer(value)) }
    func encode(_ value: Int64) { append(Scalar.integer(value)) }
    func encode(_ value: UInt) { append(Scalar.integer(value)) }
    func encode(_ value: UInt8) { append(Scalar.integer(value)) }
    func encode(_ value: UInt16) { append(Scalar.integer(value)) }
    func encode(_ value: UInt32) { append(Scalar.integer(value)) }
    func encode(_ value: UInt64) { append(Scalar.integer(value)) }

    func encode<Value: Encodable>(_ value: Value) throws {
        buffer.elements.append(try EncodedSlot.slot(value, codingPath: nextPath))
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        let nested = ObjectBuffer()
        let path = nextPath
        buffer.elements.append(.object(nested))
        return KeyedEncodingContainer(KeyedContainer<NestedKey>(buffer: nested, codingPath: path))
    }

    func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let nested = ArrayBuffer()
        let path = nextPath
        buffer.elements.append(.array(nested))
        return UnkeyedContainer(buffer: nested, codingPath: path)
    }

    func superEncoder() -> any Encoder {
        let index = buffer.elements.count
        buffer.elements.append(.value(.object([:])))
        return SlotEncoder(codingPath: nextPath) { [buffer] in buffer.elements[index] = $0 }
    }
}

/// An encoder whose result is stored by a closure as soon as it is known (for `superEncoder`).
private final class SlotEncoder: Encoder {
    let inner: ValueEncoder
    let store: (EncodedSlot) -> Void
    var codingPath: [any CodingKey] { inner.codingPath }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    init(codingPath: [any CodingKey], store: @escaping (EncodedSlot) -> Void) {
        inner = ValueEncoder(codingPath: codingPath)
        self.store = store
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        defer { store(inner.slot ?? .object(ObjectBuffer())) }
        return inner.container(keyedBy: type)
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        defer { store(inner.slot ?? .array(ArrayBuffer())) }
        return inner.unkeyedContainer()
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        SlotSingleValue(
            inner: SingleValueContainer(encoder: inner), after: { [inner, store] in store(inner.slot ?? .value(.null)) }
        )
    }
}

/// A single-value container that reports each value it is given.
private struct SlotSingleValue: SingleValueEncodingContainer {
    let inner: SingleValueContainer
    let after: () -> Void
    var codingPath: [any CodingKey] { inner.codingPath }

    func encodeNil() throws {
        inner.encodeNil()
        after()
    }
    func encode(_ value: Bool) throws {
        inner.encode(value)
        after()
    }
    func encode(_ value: String) throws {
        inner.encode(value)
        after()
    }
    func encode(_ value: Double) throws {
        try inner.encode(value)
        after()
    }
    func encode(_ value: Float) throws {
        try inner.encode(value)
        after()
    }
    func encode(_ value: Int) throws {
        inner.encode(value)
        after()
    }
    func encode(_ value: Int8) throws {
        inner.encode(value)
        after()
    }
    func encode(_ value: Int16) throws {
        inner.encode(value)
        after()
    }
    func encode(_ value: Int32) throws {
        inner.encode(value)
        after()
    }
    func encode(_ value: Int64) throws {
        inner.encode(value)
        after()
    }
    func encode(_ value: UInt) throws {
        inner.encode(value)
        after()
    }
    func encode(_ value: UInt8) throws {
        inner.encode(value)
        after()
    }
    func encode(_ value: UInt16) throws {
        inner.encode(value)
        after()
    }
    func encode(_ value: UInt32) throws {
        inner.encode(value)
        after()
    }
    func encode(_ value: UInt64) throws {
        inner.encode(value)
        after()
    }
    func encode<Value: Encodable>(_ value: Value) throws {
        try inner.encode(value)
        after()
    }
}
