/// A sustained rate and a burst: the two numbers of a token bucket.
public struct RateLimit: Sendable, Equatable {
    /// Tokens added per second: the rate a client may keep up forever.
    public var perSecond: Double
    /// The bucket's size: how many requests may arrive at once after a quiet spell.
    public var burst: Double

    public init(perSecond: Double, burst: Double) {
        self.perSecond = perSecond
        self.burst = burst
    }
}

/// Token buckets, one per key (a connection, a player), in bounded memory.
///
/// Pure state: time is passed in as monotonic milliseconds, so tests move it by hand. A key
/// with no bucket behaves like a full bucket, which is why full buckets can be forgotten at no
/// cost to accuracy. Past ``capacity`` keys, full buckets are forgotten first; if every bucket
/// is still refilling, the quarter least recently used is forgotten (those keys get a fresh
/// burst: memory stays bounded at the price of some leniency toward the idlest keys).
struct RateLimiter<Key: Hashable & Sendable>: Sendable {
    /// The outcome of ``admit(_:now:)``.
    enum Decision: Sendable, Equatable {
        case allowed
        /// Refused; a token is back after this many milliseconds (at least 1).
        case limited(retryAfterMilliseconds: Int64)
    }

    private struct Bucket: Sendable {
        var tokens: Double
        var updatedAt: Int64
    }

    /// Floating-point slack, in tokens.
    private static var tolerance: Double { 1e-9 }

    let limit: RateLimit
    /// Most keys tracked at once.
    let capacity: Int
    private var buckets: [Key: Bucket] = [:]

    init(limit: RateLimit, capacity: Int = 100_000) {
        precondition(
            limit.perSecond > 0 && limit.burst >= 1 && capacity > 0,
            "a rate limit needs a rate, a burst of one or more and room")
        self.limit = limit
        self.capacity = capacity
    }

    /// How many keys have a bucket now.
    var trackedKeys: Int { buckets.count }

    /// Takes one token from the key's bucket, or says how long until one is there.
    /// A refused request takes nothing, so a client that keeps retrying is not pushed back further.
    mutating func admit(_ key: Key, now: Int64) -> Decision {
        var bucket = buckets[key].map { refilled($0, now: now) } ?? Bucket(tokens: limit.burst, updatedAt: now)
        // Refusals store nothing, so rounding cannot pile up while a client waits; the tolerance
        // absorbs what piles up over allowed requests, so "retry after N ms" is true at N ms.
        guard bucket.tokens >= 1 - Self.tolerance else {
            let missing = 1 - bucket.tokens
            let wait = missing * 1000 / limit.perSecond - Self.tolerance * 1000
            return .limited(retryAfterMilliseconds: max(1, Int64(wait.rounded(.up))))
        }
        bucket.tokens = max(0, bucket.tokens - 1)
        if buckets[key] == nil && buckets.count >= capacity { makeRoom(now: now) }
        buckets[key] = bucket
        return .allowed
    }

    /// Takes `count` tokens for requests admitted elsewhere (another gateway, ``RateSharing``):
    /// the bucket may go into debt down to minus one burst, so a key that was flooding through
    /// other gateways waits here too, and never longer than two bursts' worth.
    mutating func consume(_ key: Key, count: Double, now: Int64) {
        guard count > 0 else { return }
        var bucket = buckets[key].map { refilled($0, now: now) } ?? Bucket(tokens: limit.burst, updatedAt: now)
        bucket.tokens = max(-limit.burst, bucket.tokens - count)
        if buckets[key] == nil && buckets.count >= capacity { makeRoom(now: now) }
        buckets[key] = bucket
    }

    private func refilled(_ bucket: Bucket, now: Int64) -> Bucket {
        // A clock that went backwards (it should not: it is monotonic) refills nothing.
        let elapsed = Double(max(0, now - bucket.updatedAt))
        return Bucket(
            tokens: min(limit.burst, bucket.tokens + elapsed * limit.perSecond / 1000),
            updatedAt: max(now, bucket.updatedAt))
    }

    private mutating func makeRoom(now: Int64) {
        buckets = buckets.filter { refilled($0.value, now: now).tokens < limit.burst }
        guard buckets.count >= capacity else { return }
        let stalest = buckets.sorted { $0.value.updatedAt < $1.value.updatedAt }.prefix(max(1, buckets.count / 4))
        for (key, _) in stalest { buckets.removeValue(forKey: key) }
    }
}
