import DequeModule

/// Counts failed logins per username and per peer and says when to stop accepting more.
///
/// Pure state: the caller passes the time (from the injected clock). Kept in memory: a restart
/// of the auth service forgets it, which only ever lets an attacker start counting again.
public struct LoginThrottle: Sendable {
    /// Failures allowed within `window` before further attempts are refused.
    public var limit: Int
    /// The sliding window, ms.
    public var windowMilliseconds: Int64
    private var failures: [String: Deque<Int64>] = [:]

    public init(limit: Int, windowMilliseconds: Int64) {
        self.limit = limit
        self.windowMilliseconds = windowMilliseconds
    }

    /// How long `key` must wait before its next attempt, or nil if it may try now.
    public mutating func retryAfter(_ key: String, now: Int64) -> Int64? {
        prune(key, now: now)
        guard let recent = failures[key], recent.count >= limit, let oldest = recent.first else { return nil }
        return max(1, oldest + windowMilliseconds - now)
    }

    public mutating func recordFailure(_ key: String, now: Int64) {
        prune(key, now: now)
        failures[key, default: []].append(now)
        if failures.count > 100_000 { failures = failures.filter { !$0.value.isEmpty } }
    }

    public mutating func recordSuccess(_ key: String) {
        failures[key] = nil
    }

    private mutating func prune(_ key: String, now: Int64) {
        guard var recent = failures[key] else { return }
        while let oldest = recent.first, oldest + windowMilliseconds <= now { recent.removeFirst() }
        failures[key] = recent.isEmpty ? nil : recent
    }
}
