import Foundation
import Testing

@testable import Gateway

/// The token bucket limiter, on time the test moves by hand (monotonic milliseconds).
@Suite("Rate limiter")
struct RateLimiterTests {
    @Test("a burst is allowed, the next request is refused with the time until a token is back")
    func burstThenRefusal() {
        var limiter = RateLimiter<String>(limit: RateLimit(perSecond: 10, burst: 3))
        for _ in 0..<3 { #expect(limiter.admit("ann", now: 1000) == .allowed) }
        #expect(limiter.admit("ann", now: 1000) == .limited(retryAfterMilliseconds: 100))
        #expect(limiter.admit("ann", now: 1040) == .limited(retryAfterMilliseconds: 60))
        #expect(limiter.admit("ann", now: 1100) == .allowed)
        #expect(limiter.admit("ann", now: 1100) == .limited(retryAfterMilliseconds: 100))
    }

    @Test("tokens taken for requests admitted elsewhere: the bucket goes into debt, at most one burst deep")
    func consumedElsewhere() {
        var limiter = RateLimiter<String>(limit: RateLimit(perSecond: 10, burst: 3))
        limiter.consume("ann", count: 2, now: 1000)
        #expect(limiter.admit("ann", now: 1000) == .allowed, "one of three left")
        #expect(limiter.admit("ann", now: 1000) == .limited(retryAfterMilliseconds: 100))
        limiter.consume("ann", count: 50, now: 1000)
        // Debt of one burst (-3): four tokens to earn back before the next request, 400 ms.
        #expect(limiter.admit("ann", now: 1000) == .limited(retryAfterMilliseconds: 400))
        #expect(limiter.admit("ann", now: 1400) == .allowed)
        limiter.consume("bob", count: 0, now: 1000)
        #expect(limiter.trackedKeys == 1, "nothing consumed, nothing tracked")
    }

    @Test("a refused request takes no token: retrying when told succeeds")
    func refusalsAreFree() {
        var limiter = RateLimiter<String>(limit: RateLimit(perSecond: 2, burst: 1))
        #expect(limiter.admit("bob", now: 0) == .allowed)
        for now in stride(from: Int64(0), to: 500, by: 50) {
            #expect(limiter.admit("bob", now: now) == .limited(retryAfterMilliseconds: 500 - now))
        }
        #expect(limiter.admit("bob", now: 500) == .allowed)
    }

    @Test("the bucket never holds more than the burst, however long the quiet")
    func refillIsCapped() {
        var limiter = RateLimiter<String>(limit: RateLimit(perSecond: 1000, burst: 2))
        #expect(limiter.admit("cy", now: 0) == .allowed)
        let later: Int64 = 86_400_000
        #expect(limiter.admit("cy", now: later) == .allowed)
        #expect(limiter.admit("cy", now: later) == .allowed)
        if case .allowed = limiter.admit("cy", now: later) {
            Issue.record("a third request in the same instant was allowed")
        }
    }

    @Test("keys are independent")
    func independentKeys() {
        var limiter = RateLimiter<Data>(limit: RateLimit(perSecond: 1, burst: 1))
        #expect(limiter.admit(Data([1]), now: 0) == .allowed)
        #expect(limiter.admit(Data([1]), now: 0) != .allowed)
        #expect(limiter.admit(Data([2]), now: 0) == .allowed)
    }

    @Test("slow rates give whole milliseconds, at least one")
    func retryRounding() {
        var slow = RateLimiter<String>(limit: RateLimit(perSecond: 0.001, burst: 1))
        #expect(slow.admit("d", now: 0) == .allowed)
        #expect(slow.admit("d", now: 0) == .limited(retryAfterMilliseconds: 1_000_000))
        var fast = RateLimiter<String>(limit: RateLimit(perSecond: 1_000_000, burst: 1))
        #expect(fast.admit("e", now: 0) == .allowed)
        #expect(fast.admit("e", now: 0) == .limited(retryAfterMilliseconds: 1))
    }

    @Test("memory is bounded: full buckets are forgotten first, then the least recently used")
    func boundedKeys() {
        var limiter = RateLimiter<Int>(limit: RateLimit(perSecond: 1, burst: 1), capacity: 8)
        for key in 0..<8 { #expect(limiter.admit(key, now: 0) == .allowed) }
        #expect(limiter.trackedKeys == 8)
        // Nobody has refilled: the stalest quarter goes to make room.
        #expect(limiter.admit(100, now: 10) == .allowed)
        #expect(limiter.trackedKeys <= 8)
        // Two seconds on, every bucket is full again and can be forgotten at no cost.
        for key in 200..<1200 { #expect(limiter.admit(key, now: 2000 + Int64(key)) == .allowed) }
        #expect(limiter.trackedKeys <= 8)
        // A key still refilling is not forgotten while full ones can go instead.
        var busy = RateLimiter<Int>(limit: RateLimit(perSecond: 1, burst: 1), capacity: 4)
        #expect(busy.admit(-1, now: 5000) == .allowed)
        for key in 0..<3 { #expect(busy.admit(key, now: 0) == .allowed) }
        #expect(busy.admit(3, now: 5000) == .allowed)
        #expect(busy.admit(-1, now: 5000) != .allowed)
    }
}
