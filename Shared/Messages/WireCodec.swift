import Foundation

/// The one JSON configuration used on the wire: UTF-8, sorted keys, no escaped slashes,
/// timestamps as integer milliseconds since the Unix epoch (they are plain `Int64` fields).
public enum WireCodec {
    /// Encodes a value as UTF-8 JSON.
    public static func encode<Value: Encodable>(_ value: Value) throws -> Data {
        try makeEncoder().encode(value)
    }

    /// Decodes a value from UTF-8 JSON.
    public static func decode<Value: Decodable>(_ type: Value.Type, from data: Data) throws -> Value {
        try JSONDecoder().decode(type, from: data)
    }

    /// Re-types a JSON value, e.g. an envelope's raw payload, as a concrete payload type.
    public static func convert<Value: Decodable>(_ value: JSONValue, to type: Value.Type) throws -> Value {
        try decode(type, from: try encode(value))
    }

    /// Turns a concrete payload into a JSON value.
    public static func jsonValue<Value: Encodable>(_ value: Value) throws -> JSONValue {
        try decode(JSONValue.self, from: try encode(value))
    }

    private static func makeEncoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }
}
