/// A byte scan of JSON text for its nesting depth, run before any decoder sees a frame:
/// Foundation's decoder spends time quadratic in the depth and fails badly right at its own
/// limit, so the wire refuses deep documents first. Strings (with escapes) are skipped.
public enum JSONNesting {
    /// Deepest nesting of arrays and objects a request may have.
    public static let maximumDepth = 32

    /// Whether the text nests arrays and objects deeper than `limit`.
    public static func exceeds(_ limit: Int, in bytes: some Sequence<UInt8>) -> Bool {
        var depth = 0
        var inString = false
        var escaped = false
        for byte in bytes {
            if inString {
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""): inString = true
            case UInt8(ascii: "["), UInt8(ascii: "{"):
                depth += 1
                if depth > limit { return true }
            case UInt8(ascii: "]"), UInt8(ascii: "}"): depth -= 1
            default: break
            }
        }
        return false
    }
}
