import DequeModule

/// How the console slows a guesser of the admin key, as the auth service slows a guesser of a
/// password (SECURITY.md 3.4): failed console logins are counted in a sliding window of 15
/// minutes per address (5: one address guessing) and from every address together (20: a guess
/// spread over many addresses). An address that logged in within 30 days is exempt from the
/// second, so that a guesser elsewhere cannot lock the operators out. Past a limit a login is
/// refused without being checked or counted, until the oldest counted failure leaves the window.
///
/// Pure state, the time passed in; each gateway keeps its own in memory (a restart forgets it,
/// which only lets a guesser start counting again).
struct ConsoleLoginThrottle: Sendable {
    static let window: Int64 = 15 * 60_000
    static let addressLimit = 5
    static let keyLimit = 20
    static let knownFor: Int64 = 30 * 86_400_000

    /// Each address's recent failures, oldest first (at most `addressLimit` kept).
    private var byAddress: [String: Deque<Int64>] = [:]
    /// The recent failures of unknown addresses, oldest first (at most `keyLimit` kept).
    private var fromAnywhere: Deque<Int64> = []
    /// Address → its last successful login.
    private var known: [String: Int64] = [:]

    /// How long a login from `address` must wait, or nil if it may try now.
    mutating func retryAfter(address: String, now: Int64) -> Int64? {
        prune(address, now: now)
        var waits: [Int64] = []
        if let failures = byAddress[address], failures.count >= Self.addressLimit, let oldest = failures.first {
            waits.append(oldest + Self.window - now)
        }
        if !isKnown(address, now: now), fromAnywhere.count >= Self.keyLimit, let oldest = fromAnywhere.first {
            waits.append(oldest + Self.window - now)
        }
        return waits.max().map { max(1, $0) }
    }

    /// A wrong key from `address`.
    mutating func recordFailure(address: String, now: Int64) {
        prune(address, now: now)
        var failures = byAddress[address] ?? []
        failures.append(now)
        while failures.count > Self.addressLimit { failures.removeFirst() }
        byAddress[address] = failures
        if !isKnown(address, now: now) {
            fromAnywhere.append(now)
            while fromAnywhere.count > Self.keyLimit { fromAnywhere.removeFirst() }
        }
    }

    /// The right key from `address`: its own failures are forgotten and it is known from now on;
    /// the count from every address stays (the operators' own logins give a guesser nothing).
    mutating func recordSuccess(address: String, now: Int64) {
        byAddress[address] = nil
        known[address] = now
        if known.count > 10_000 { known = known.filter { now - $0.value < Self.knownFor } }
    }

    private func isKnown(_ address: String, now: Int64) -> Bool {
        known[address].map { now - $0 < Self.knownFor } ?? false
    }

    /// Drops what has left the window: `address`'s old failures and the oldest from anywhere
    /// (and, past 10,000 addresses, every address with none left).
    private mutating func prune(_ address: String, now: Int64) {
        while let oldest = fromAnywhere.first, oldest + Self.window <= now { fromAnywhere.removeFirst() }
        if var failures = byAddress[address] {
            while let oldest = failures.first, oldest + Self.window <= now { failures.removeFirst() }
            byAddress[address] = failures.isEmpty ? nil : failures
        }
        if byAddress.count > 10_000 {
            byAddress = byAddress.filter { $0.value.contains { $0 + Self.window > now } }
        }
    }
}
