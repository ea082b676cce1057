import Foundation

/// A byte scan of JSON text for its nesting depth, run before any decoder sees a frame:
/// Foundation's decoder spends time quadratic in the depth and fails badly right at its own
/// limit, so the wire refuses deep documents first. The scan also picks out a top-level string
/// `"id"`, so that even a refused deep request gets a reply that names it.
public enum JSONNesting {
    /// Deepest nesting of arrays and objects a request may have.
    public static let maximumDepth = 32

    /// What the scan found.
    public struct Scan: Sendable, Equatable {
        /// The deepest nesting seen.
        public var depth: Int
        /// The value of a top-level `"id"` member that is a plain string (no escapes).
        public var topLevelID: String?
    }

    /// Scans JSON text (or anything: the scan never fails, it only counts).
    public static func scan(_ data: Data) -> Scan {
        data.withUnsafeBytes { raw in scan(raw.bindMemory(to: UInt8.self)) }
    }

    /// Scans JSON text (or anything: the scan never fails, it only counts).
    public static func scan(_ bytes: some Sequence<UInt8>) -> Scan {
        if let scanned = bytes.withContiguousStorageIfAvailable({ scan($0) }) { return scanned }
        return scan(Array(bytes))
    }

    /// Scans JSON text in memory: the loop the other forms run, over a buffer.
    public static func scan(_ bytes: UnsafeBufferPointer<UInt8>) -> Scan {
        var depth = 0
        var deepest = 0
        var inString = false
        var escaped = false
        var sawEscape = false
        var expectingKey = false
        var current: [UInt8] = []
        var lastKey: [UInt8]?
        var stringIsKey = false
        var topLevelID: String?
        for byte in bytes {
            if inString {
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                    sawEscape = true
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                    if depth == 1 {
                        if stringIsKey {
                            lastKey = sawEscape ? nil : current
                        } else if lastKey == Array("id".utf8), !sawEscape, topLevelID == nil {
                            topLevelID = String(decoding: current, as: UTF8.self)
                        }
                    }
                } else if depth == 1 && current.count <= 256 {
                    current.append(byte)
                }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""):
                inString = true
                sawEscape = false
                current.removeAll(keepingCapacity: true)
                stringIsKey = depth == 1 && expectingKey
            case UInt8(ascii: "["), UInt8(ascii: "{"):
                depth += 1
                deepest = max(deepest, depth)
                expectingKey = byte == UInt8(ascii: "{") && depth == 1
            case UInt8(ascii: "]"), UInt8(ascii: "}"):
                depth -= 1
            case UInt8(ascii: ","):
                if depth == 1 { expectingKey = true }
            case UInt8(ascii: ":"):
                if depth == 1 { expectingKey = false }
            default:
                break
            }
        }
        return Scan(depth: deepest, topLevelID: topLevelID)
    }
}
