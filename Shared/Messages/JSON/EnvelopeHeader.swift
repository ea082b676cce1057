import Foundation

/// The two members of an encoded envelope a router needs, read without decoding the rest:
/// `type` and `correlationId`, and where the correlation id's string sits in the bytes.
///
/// The gateway passes a service's reply on to the client this way: it swaps the correlation id
/// (its own id for the request → the client's) in the bytes instead of parsing the whole reply
/// into values and writing it out again. Only plain strings count (no escapes); anything else,
/// or text that is not a JSON object, gives nil, and the caller decodes the envelope in full.
public struct EnvelopeHeader: Sendable, Equatable {
    public var type: String?
    public var correlationId: String?
    /// Byte offsets of the correlation id's string token, quotes included.
    public var correlationIdRange: Range<Int>?
    /// Byte offsets of the payload's value (the JSON text of the payload as it is).
    public var payloadRange: Range<Int>?

    /// Reads the top-level members of a JSON object; nil if the text is not one.
    public static func scan(_ data: Data) -> EnvelopeHeader? {
        data.withUnsafeBytes { raw -> EnvelopeHeader? in
            let bytes = raw.bindMemory(to: UInt8.self)
            var header = EnvelopeHeader()
            var index = 0
            let count = bytes.count
            func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 }
            func skipSpace() {
                while index < count, isSpace(bytes[index]) { index += 1 }
            }
            /// Skips a string starting at `index` (its opening quote); returns its content range
            /// and whether it held an escape.
            func skipString() -> (Range<Int>, Bool)? {
                guard index < count, bytes[index] == UInt8(ascii: "\"") else { return nil }
                index += 1
                let start = index
                var escaped = false
                while index < count {
                    let byte = bytes[index]
                    if byte == UInt8(ascii: "\\") {
                        escaped = true
                        index += 2
                        continue
                    }
                    if byte == UInt8(ascii: "\"") {
                        let range = start..<index
                        index += 1
                        return (range, escaped)
                    }
                    index += 1
                }
                return nil
            }
            /// Skips any value starting at `index`.
            func skipValue() -> Bool {
                guard index < count else { return false }
                switch bytes[index] {
                case UInt8(ascii: "\""):
                    return skipString() != nil
                case UInt8(ascii: "{"), UInt8(ascii: "["):
                    var depth = 0
                    while index < count {
                        switch bytes[index] {
                        case UInt8(ascii: "\""):
                            guard skipString() != nil else { return false }
                            continue
                        case UInt8(ascii: "{"), UInt8(ascii: "["):
                            depth += 1
                        case UInt8(ascii: "}"), UInt8(ascii: "]"):
                            depth -= 1
                            if depth == 0 {
                                index += 1
                                return true
                            }
                        default:
                            break
                        }
                        index += 1
                    }
                    return false
                default:
                    // A number, true, false or null: up to the next delimiter.
                    while index < count, bytes[index] != UInt8(ascii: ","), bytes[index] != UInt8(ascii: "}"),
                        bytes[index] != UInt8(ascii: "]"), !isSpace(bytes[index])
                    {
                        index += 1
                    }
                    return true
                }
            }
            skipSpace()
            guard index < count, bytes[index] == UInt8(ascii: "{") else { return nil }
            index += 1
            skipSpace()
            if index < count, bytes[index] == UInt8(ascii: "}") { return header }
            while index < count {
                skipSpace()
                guard let (keyRange, keyEscaped) = skipString() else { return nil }
                skipSpace()
                guard index < count, bytes[index] == UInt8(ascii: ":") else { return nil }
                index += 1
                skipSpace()
                let valueStart = index
                let key =
                    keyEscaped ? nil : String(decoding: UnsafeBufferPointer(rebasing: bytes[keyRange]), as: UTF8.self)
                if key == "type" || key == "correlationId", index < count, bytes[index] == UInt8(ascii: "\"") {
                    guard let (valueRange, escaped) = skipString() else { return nil }
                    if escaped { return nil }
                    let value = String(decoding: UnsafeBufferPointer(rebasing: bytes[valueRange]), as: UTF8.self)
                    if key == "type" {
                        header.type = value
                    } else {
                        header.correlationId = value
                        header.correlationIdRange = valueStart..<index
                    }
                } else {
                    guard skipValue() else { return nil }
                    if key == "payload" { header.payloadRange = valueStart..<index }
                }
                skipSpace()
                guard index < count else { return nil }
                if bytes[index] == UInt8(ascii: ",") {
                    index += 1
                    continue
                }
                if bytes[index] == UInt8(ascii: "}") { return header }
                return nil
            }
            return nil
        }
    }

    /// The envelope's bytes with the correlation id replaced by `id` (written as a JSON string);
    /// nil if the envelope has no plain correlation id.
    public func replacingCorrelationId(in data: Data, with id: String) -> Data? {
        guard let range = correlationIdRange, let written = try? JSONWriter.data(.string(id)) else { return nil }
        var result = Data()
        result.reserveCapacity(data.count + id.utf8.count)
        let start = data.startIndex
        result.append(data[start..<(start + range.lowerBound)])
        result.append(written)
        result.append(data[(start + range.upperBound)...])
        return result
    }
}
