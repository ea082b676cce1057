import Foundation

/// Reads UTF-8 JSON (RFC 8259) straight into a ``JSONValue``: one pass over the bytes, no
/// intermediate objects, no thrown-and-caught errors on the way.
///
/// Numbers: an integer literal that fits `Int64` is `.integer`; a literal with a fraction or an
/// exponent whose value is a whole number in `Int64`'s range is `.integer` too (`5.0`, `1e2`, as
/// Foundation's decoder reads them); anything else is `.double`. Strings must be valid UTF-8
/// without raw control characters; `\u` escapes must pair their surrogates. Nesting deeper than
/// ``maximumDepth`` is refused (the gateway already refuses anything deeper than 32 before
/// parsing). Failures are `DecodingError.dataCorrupted` with an empty coding path, like Foundation's.
public struct JSONParser: ~Copyable {
    /// The deepest nesting of arrays and objects accepted.
    public static let maximumDepth = 512

    private let bytes: UnsafeBufferPointer<UInt8>
    private var position = 0
    private var depth = 0

    private init(_ bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    /// Parses one JSON text (any value at the top, surrounded by optional whitespace).
    public static func parse(_ bytes: UnsafeBufferPointer<UInt8>) throws -> JSONValue {
        var parser = JSONParser(bytes)
        parser.skipWhitespace()
        let value = try parser.value()
        parser.skipWhitespace()
        guard parser.position == bytes.count else { throw parser.failure("unexpected text after the JSON value") }
        return value
    }

    /// Parses one JSON text held in any contiguous byte collection.
    public static func parse<Bytes: Collection<UInt8>>(_ data: Bytes) throws -> JSONValue {
        if let result = try data.withContiguousStorageIfAvailable({ try parse($0) }) { return result }
        return try Array(data).withUnsafeBufferPointer { try parse($0) }
    }

    /// Parses a JSON text in UTF-8 or, as Foundation's decoder accepts them, UTF-16 or UTF-32
    /// (told by a byte order mark or by the zero bytes around the first ASCII character,
    /// RFC 4627 §3); a UTF-8 byte order mark is skipped.
    public static func parse(_ data: Data) throws -> JSONValue {
        if let encoding = TextEncoding.detect(data) {
            guard let text = String(data: data, encoding: encoding.foundation) else {
                throw DecodingError.dataCorrupted(
                    DecodingError.Context(codingPath: [], debugDescription: "The given data was not valid \(encoding).")
                )
            }
            var utf8 = Array(text.utf8)
            if utf8.starts(with: [0xEF, 0xBB, 0xBF]) { utf8.removeFirst(3) }
            return try utf8.withUnsafeBufferPointer { try parse($0) }
        }
        if data.starts(with: [0xEF, 0xBB, 0xBF]) { return try parse(data.dropFirst(3)) }
        return try data.withUnsafeBytes { raw in try parse(raw.bindMemory(to: UInt8.self)) }
    }

    // MARK: - Values

    private mutating func value() throws -> JSONValue {
        guard position < bytes.count else { throw failure("unexpected end of JSON") }
        switch bytes[position] {
        case UInt8(ascii: "{"): return try object()
        case UInt8(ascii: "["): return try array()
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"):
            try literal("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try literal("false")
            return .bool(false)
        case UInt8(ascii: "n"):
            try literal("null")
            return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try number()
        default: throw failure("unexpected character")
        }
    }

    private mutating func object() throws -> JSONValue {
        try enter()
        position += 1
        var members: [String: JSONValue] = [:]
        skipWhitespace()
        if peek() == UInt8(ascii: "}") {
            position += 1
            depth -= 1
            return .object(members)
        }
        while true {
            guard peek() == UInt8(ascii: "\"") else { throw failure("expected a member name") }
            let key = try string()
            skipWhitespace()
            guard peek() == UInt8(ascii: ":") else { throw failure("expected ':'") }
            position += 1
            skipWhitespace()
            members[key] = try value()
            skipWhitespace()
            switch peek() {
            case UInt8(ascii: ","):
                position += 1
                skipWhitespace()
            case UInt8(ascii: "}"):
                position += 1
                depth -= 1
                return .object(members)
            default:
                throw failure("expected ',' or '}'")
            }
        }
    }

    private mutating func array() throws -> JSONValue {
        try enter()
        position += 1
        var elements: [JSONValue] = []
        skipWhitespace()
        if peek() == UInt8(ascii: "]") {
            position += 1
            depth -= 1
            return .array(elements)
        }
        while true {
            elements.append(try value())
            skipWhitespace()
            switch peek() {
            case UInt8(ascii: ","):
                position += 1
                skipWhitespace()
            case UInt8(ascii: "]"):
                position += 1
                depth -= 1
                return .array(elements)
            default:
                throw failure("expected ',' or ']'")
            }
        }
    }

    private mutating func enter() throws {
        depth += 1
        guard depth <= Self.maximumDepth else { throw failure("nested deeper than \(Self.maximumDepth) levels") }
    }

    private mutating func literal(_ word: StaticString) throws {
        let count = word.utf8CodeUnitCount
        guard bytes.count - position >= count else { throw failure("unexpected end of JSON") }
        for offset in 0..<count where bytes[position + offset] != word.utf8Start[offset] {
            throw failure("unexpected character")
        }
        position += count
    }

    // MARK: - Strings

    /// A string starting at the opening quote; leaves the position after the closing quote.
    private mutating func string() throws -> String {
        position += 1
        let start = position
        // Fast path: no escapes.
        while position < bytes.count {
            let byte = bytes[position]
            if byte == UInt8(ascii: "\"") {
                let text = try utf8(start..<position)
                position += 1
                return text
            }
            if byte == UInt8(ascii: "\\") { break }
            guard byte >= 0x20 else { throw failure("control character in a string") }
            position += 1
        }
        guard position < bytes.count else { throw failure("unterminated string") }
        var unescaped = Array(bytes[start..<position])
        while position < bytes.count {
            let byte = bytes[position]
            switch byte {
            case UInt8(ascii: "\""):
                position += 1
                guard let text = String(validating: unescaped, as: UTF8.self) else {
                    throw failure("string is not valid UTF-8")
                }
                return text
            case UInt8(ascii: "\\"):
                position += 1
                guard position < bytes.count else { throw failure("unterminated string") }
                let escape = bytes[position]
                position += 1
                switch escape {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): unescaped.append(escape)
                case UInt8(ascii: "b"): unescaped.append(0x08)
                case UInt8(ascii: "f"): unescaped.append(0x0C)
                case UInt8(ascii: "n"): unescaped.append(0x0A)
                case UInt8(ascii: "r"): unescaped.append(0x0D)
                case UInt8(ascii: "t"): unescaped.append(0x09)
                case UInt8(ascii: "u"): appendUTF8(of: try escapedScalar(), to: &unescaped)
                default: throw failure("unknown escape")
                }
            default:
                guard byte >= 0x20 else { throw failure("control character in a string") }
                unescaped.append(byte)
                position += 1
            }
        }
        throw failure("unterminated string")
    }

    private func utf8(_ range: Range<Int>) throws -> String {
        let slice = UnsafeBufferPointer(rebasing: bytes[range])
        if slice.allSatisfy({ $0 < 0x80 }) { return String(decoding: slice, as: UTF8.self) }
        guard let text = String(validating: slice, as: UTF8.self) else { throw failure("string is not valid UTF-8") }
        return text
    }

    /// The scalar of a `\u` escape and its four hex digits (read after the `u`), joining a surrogate pair.
    private mutating func escapedScalar() throws -> Unicode.Scalar {
        let first = try hexQuad()
        switch first {
        case 0xD800...0xDBFF:
            guard bytes.count - position >= 6, bytes[position] == UInt8(ascii: "\\"),
                bytes[position + 1] == UInt8(ascii: "u")
            else { throw failure("unpaired surrogate in a \\u escape") }
            position += 2
            let second = try hexQuad()
            guard (0xDC00...0xDFFF).contains(second) else { throw failure("unpaired surrogate in a \\u escape") }
            let combined = 0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00)
            guard let scalar = Unicode.Scalar(combined) else { throw failure("invalid \\u escape") }
            return scalar
        case 0xDC00...0xDFFF:
            throw failure("unpaired surrogate in a \\u escape")
        default:
            guard let scalar = Unicode.Scalar(first) else { throw failure("invalid \\u escape") }
            return scalar
        }
    }

    private mutating func hexQuad() throws -> UInt32 {
        guard bytes.count - position >= 4 else { throw failure("short \\u escape") }
        var result: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[position]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw failure("invalid \\u escape")
            }
            result = result << 4 | UInt32(digit)
            position += 1
        }
        return result
    }

    private func appendUTF8(of scalar: Unicode.Scalar, to buffer: inout [UInt8]) {
        UTF8.encode(scalar) { buffer.append($0) }
    }

    // MARK: - Numbers

    private mutating func number() throws -> JSONValue {
        let start = position
        let negative = peek() == UInt8(ascii: "-")
        if negative { position += 1 }
        guard let first = peek(), isDigit(first) else { throw failure("expected a digit") }
        var integer: Int64 = 0
        var overflow = false
        if first == UInt8(ascii: "0") {
            position += 1
            if let next = peek(), isDigit(next) { throw failure("leading zero in a number") }
        } else {
            while let byte = peek(), isDigit(byte) {
                if !overflow {
                    let digit = Int64(byte - UInt8(ascii: "0"))
                    let (times10, o1) = integer.multipliedReportingOverflow(by: 10)
                    let (next, o2) =
                        negative ? times10.subtractingReportingOverflow(digit) : times10.addingReportingOverflow(digit)
                    if o1 || o2 { overflow = true } else { integer = next }
                }
                position += 1
            }
        }
        var isInteger = true
        if peek() == UInt8(ascii: ".") {
            isInteger = false
            position += 1
            guard let byte = peek(), isDigit(byte) else { throw failure("expected a digit after '.'") }
            while let byte = peek(), isDigit(byte) { position += 1 }
        }
        if peek() == UInt8(ascii: "e") || peek() == UInt8(ascii: "E") {
            isInteger = false
            position += 1
            if peek() == UInt8(ascii: "+") || peek() == UInt8(ascii: "-") { position += 1 }
            guard let byte = peek(), isDigit(byte) else { throw failure("expected a digit in the exponent") }
            while let byte = peek(), isDigit(byte) { position += 1 }
        }
        if isInteger && !overflow { return .integer(integer) }
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<position]), as: UTF8.self)
        guard let double = Double(text), double.isFinite else { throw failure("number out of range") }
        // As Foundation reads them: a whole number strictly inside int64's range (so a literal
        // that only rounds to -2^63, like -9.223372036854776e18, stays a double).
        if !isInteger, double == double.rounded(), double > -9_223_372_036_854_775_808.0,
            double < 9_223_372_036_854_775_808.0
        {
            return .integer(Int64(double))
        }
        return .double(double)
    }

    // MARK: - Helpers

    @inline(__always)
    private func peek() -> UInt8? {
        position < bytes.count ? bytes[position] : nil
    }

    @inline(__always)
    private func isDigit(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }

    @inline(__always)
    private mutating func skipWhitespace() {
        while position < bytes.count {
            switch bytes[position] {
            case 0x20, 0x09, 0x0A, 0x0D: position += 1
            default: return
            }
        }
    }

    private func failure(_ reason: String) -> DecodingError {
        DecodingError.dataCorrupted(
            DecodingError.Context(
                codingPath: [], debugDescription: "The given data was not valid JSON (\(reason) at byte \(position))."))
    }
}

/// The wider Unicode encodings a JSON text may arrive in.
enum TextEncoding: CustomStringConvertible {
    case utf16BigEndian, utf16LittleEndian, utf32BigEndian, utf32LittleEndian

    var foundation: String.Encoding {
        switch self {
        case .utf16BigEndian: .utf16BigEndian
        case .utf16LittleEndian: .utf16LittleEndian
        case .utf32BigEndian: .utf32BigEndian
        case .utf32LittleEndian: .utf32LittleEndian
        }
    }

    var description: String {
        switch self {
        case .utf16BigEndian: "UTF-16BE"
        case .utf16LittleEndian: "UTF-16LE"
        case .utf32BigEndian: "UTF-32BE"
        case .utf32LittleEndian: "UTF-32LE"
        }
    }

    /// UTF-16 or UTF-32 by byte order mark or zero pattern; nil for UTF-8 (the usual case).
    static func detect(_ data: Data) -> TextEncoding? {
        guard data.count >= 2 else { return nil }
        // Bytes past the end read as 1, which matches no pattern.
        func byte(_ offset: Int) -> UInt8 { offset < data.count ? data[data.startIndex + offset] : 1 }
        switch (byte(0), byte(1), byte(2), byte(3)) {
        case (0x00, 0x00, 0xFE, 0xFF): return .utf32BigEndian
        case (0xFF, 0xFE, 0x00, 0x00): return data.count >= 4 ? .utf32LittleEndian : .utf16LittleEndian
        case (0xFE, 0xFF, _, _): return .utf16BigEndian
        case (0xFF, 0xFE, _, _): return .utf16LittleEndian
        case (0x00, 0x00, 0x00, _) where data.count >= 4: return .utf32BigEndian
        case (_, 0x00, 0x00, 0x00) where data.count >= 4: return .utf32LittleEndian
        case (0x00, _, _, _): return .utf16BigEndian
        case (_, 0x00, _, _): return .utf16LittleEndian
        default: return nil
        }
    }
}
