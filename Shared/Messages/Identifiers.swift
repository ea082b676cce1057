/// Rules for the identifiers clients send: ids, names, request ids.
public enum Identifiers {
    /// Longest game id, player id or event name.
    public static let maximumLength = 64
    /// Longest client-chosen request id.
    public static let maximumRequestIDLength = 128

    /// Game and player ids: 1–64 of `A–Z a–z 0–9 . _ -`.
    public static func isValidID(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.count <= maximumLength && text.utf8.allSatisfy(isIDByte)
    }

    /// Event names: 1–64 of `a–z 0–9 . _ -`, starting with a letter (`cactus.hit`, `match.end`).
    public static func isValidEventName(_ text: String) -> Bool {
        guard let first = text.utf8.first, (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(first) else {
            return false
        }
        return text.utf8.count <= maximumLength
            && text.utf8.allSatisfy {
                isLowerAlphanumeric($0) || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: "-")
            }
    }

    /// Request ids: 1–128 printable ASCII characters (no spaces or control characters).
    public static func isValidRequestID(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.count <= maximumRequestIDLength
            && text.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F }
    }

    private static func isIDByte(_ byte: UInt8) -> Bool {
        isLowerAlphanumeric(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
            || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-")
    }

    private static func isLowerAlphanumeric(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
    }
}
