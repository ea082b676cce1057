import Foundation

/// The one JSON configuration used on the wire: UTF-8, sorted keys, no escaped slashes,
/// timestamps as integer milliseconds since the Unix epoch (they are plain `Int64` fields).
///
/// Text is read by ``JSONParser`` into a ``JSONValue`` and written by ``JSONWriter``; typed
/// values go to and from ``JSONValue`` through ``JSONValueDecoder`` / ``JSONValueEncoder``, so
/// re-typing a raw payload never writes and re-reads text. The output is byte for byte what
/// Foundation's `JSONEncoder` with `.sortedKeys` and `.withoutEscapingSlashes` writes.
public enum WireCodec {
    /// Encodes a value as UTF-8 JSON.
    public static func encode<Value: Encodable>(_ value: Value) throws -> Data {
        // Envelopes are written without the Codable machinery, to the same bytes (EnvelopeCoding).
        if let envelope = value as? any EnvelopeFastCoding, !EnvelopeCodingMode.codableOnly {
            return try envelope.fastEncoded()
        }
        return try JSONWriter.data(try JSONValueEncoder.encode(value))
    }

    /// Decodes a value from UTF-8 JSON.
    public static func decode<Value: Decodable>(_ type: Value.Type, from data: Data) throws -> Value {
        // An envelope of the canonical shape, at the top or nested (a stream page's messages),
        // is read without the Codable machinery; any other is left to the codec, which reads it
        // or says what is wrong (EnvelopeCoding, in JSONValueDecoder).
        try JSONValueDecoder.decode(type, from: try JSONParser.parse(data))
    }

    /// Re-types a JSON value, e.g. an envelope's raw payload, as a concrete payload type.
    public static func convert<Value: Decodable>(_ value: JSONValue, to type: Value.Type) throws -> Value {
        try JSONValueDecoder.decode(type, from: value)
    }

    /// Turns a concrete payload into a JSON value.
    public static func jsonValue<Value: Encodable>(_ value: Value) throws -> JSONValue {
        try JSONValueEncoder.encode(value)
    }
}
