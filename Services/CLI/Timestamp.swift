import Foundation

/// Formats the protocol's timestamps (ms since the epoch) for people: ISO 8601, UTC.
enum Timestamp {
    static func text(_ milliseconds: Int64) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.string(from: Date(timeIntervalSince1970: Double(milliseconds) / 1000))
    }
}
