import Foundation
import PodiumMessages

/// What an operator's ban must look like and when it holds (docs/PROTOCOL.md 22.1). Pure:
/// tested without a database.
public enum BanRules {
    public static let reasonLength = 1...500

    /// The reason as kept (trimmed), or `invalid_field`.
    public static func validReason(_ raw: String) throws(ErrorReply) -> String {
        let reason = raw.trimmingCharacters(in: .whitespacesAndNewlines)
        guard reasonLength.contains(reason.count),
            !reason.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
        else {
            throw ErrorReply(
                code: .invalidField,
                message:
                    "a ban's reason is \(reasonLength.lowerBound)-\(reasonLength.upperBound) characters without control characters",
                field: "payload.reason")
        }
        return reason
    }

    /// `until` if it is in the future (nil: until unbanned), or `invalid_field`.
    public static func validEnd(_ until: Int64?, now: Int64) throws(ErrorReply) -> Int64? {
        guard let until else { return nil }
        guard until > now else {
            throw ErrorReply(
                code: .invalidField, message: "until must be in the future (Unix milliseconds)", field: "payload.until")
        }
        return until
    }

    /// Whether a stored ban holds at `now`.
    public static func holds(_ ban: PlayerRecord.Ban?, now: Int64) -> Bool {
        ban?.holds(at: now) ?? false
    }

    /// The refusal a banned player gets.
    public static func refusal(_ ban: PlayerRecord.Ban) -> ErrorReply { ban.refusal }
}
