import PodiumMessages

/// The time scopes every board is ranked in: today (UTC day), this week (ISO week, Monday 00:00
/// UTC) and all time.
public enum TimeScope: String, Codable, Sendable, CaseIterable {
    case today
    case week
    case allTime

    static let dayMilliseconds: Int64 = 86_400_000

    /// When the scope that contains `now` began (ms since the epoch); nil for all time.
    func start(containing now: Int64) -> Int64? {
        let day = Self.floorDivide(now, Self.dayMilliseconds)
        switch self {
        case .today:
            return day * Self.dayMilliseconds
        case .week:
            // 1970-01-01 was a Thursday: Monday-based weekday = (day + 3) mod 7.
            let weekday = ((day + 3) % 7 + 7) % 7
            return (day - weekday) * Self.dayMilliseconds
        case .allTime:
            return nil
        }
    }

    private static func floorDivide(_ a: Int64, _ b: Int64) -> Int64 {
        a >= 0 ? a / b : -((-a + b - 1) / b)
    }

    /// Parses the scope of a request payload (default all time).
    static func parse(_ value: JSONValue?) throws(ErrorReply) -> TimeScope {
        guard let value, value != .null else { return .allTime }
        guard let text = value.stringValue, let scope = TimeScope(rawValue: text) else {
            throw ErrorReply(code: .invalidField, message: "scope is today, week or allTime", field: "payload.scope")
        }
        return scope
    }
}
