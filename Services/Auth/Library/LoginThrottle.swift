import DequeModule

/// Counts failed logins per key within a sliding window and says when a key must wait.
///
/// Pure state: the caller passes the time (from the injected clock). Kept in memory: a restart
/// of the auth service forgets it, which only ever lets an attacker start counting again.
public struct LoginThrottle: Sendable {
    /// Failures allowed within `window` before further attempts are refused.
    public var limit: Int
    /// The sliding window, ms.
    public var windowMilliseconds: Int64
    /// Each key's recent failures, oldest first; never more than `limit` are kept, since the
    /// oldest of the last `limit` is all that decides the wait.
    private var failures: [String: Deque<Int64>] = [:]

    public init(limit: Int, windowMilliseconds: Int64) {
        self.limit = max(1, limit)
        self.windowMilliseconds = windowMilliseconds
    }

    /// How long `key` must wait before its next attempt, or nil if it may try now.
    public mutating func retryAfter(_ key: String, now: Int64) -> Int64? {
        prune(key, now: now)
        guard let recent = failures[key], recent.count >= limit, let oldest = recent.first else { return nil }
        return max(1, oldest + windowMilliseconds - now)
    }

    /// The failures of `key` still within the window.
    public func count(_ key: String, now: Int64) -> Int {
        failures[key]?.count(where: { $0 + windowMilliseconds > now }) ?? 0
    }

    public mutating func recordFailure(_ key: String, now: Int64) {
        prune(key, now: now)
        var recent = failures[key] ?? []
        recent.append(now)
        while recent.count > limit { recent.removeFirst() }
        failures[key] = recent
        if failures.count > 100_000 {
            failures = failures.filter { $0.value.contains { $0 + windowMilliseconds > now } }
        }
    }

    /// Forgets `key`'s failures; true if it had any.
    @discardableResult
    public mutating func clear(_ key: String) -> Bool {
        failures.removeValue(forKey: key) != nil
    }

    /// Forgets the failures of every key `matches` accepts; how many keys had some.
    public mutating func clear(where matches: (String) -> Bool) -> Int {
        let doomed = failures.keys.filter(matches)
        for key in doomed { failures[key] = nil }
        return doomed.count
    }

    /// The keys that must wait at `now`, with their failures and wait.
    public func blocked(now: Int64) -> [(key: String, failures: Int, retryAfterMilliseconds: Int64)] {
        failures.compactMap { key, recent in
            let live = recent.filter { $0 + windowMilliseconds > now }
            guard live.count >= limit, let oldest = live.first else { return nil }
            return (key, live.count, max(1, oldest + windowMilliseconds - now))
        }
    }

    private mutating func prune(_ key: String, now: Int64) {
        guard var recent = failures[key] else { return }
        while let oldest = recent.first, oldest + windowMilliseconds <= now { recent.removeFirst() }
        failures[key] = recent.isEmpty ? nil : recent
    }
}
