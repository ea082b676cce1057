import Testing

@testable import Gateway

/// The console's login throttle (SECURITY.md 3.4, as players' logins): per address, for the key
/// from everywhere, known addresses exempt from the second, the window sliding. Pure state.
@Suite("Console login throttle")
struct ConsoleLoginThrottleTests {
    static let minute: Int64 = 60_000

    @Test("five wrong keys from an address make it wait until the oldest leaves the window; others go on")
    func perAddress() {
        var throttle = ConsoleLoginThrottle()
        for i in 0..<5 {
            #expect(throttle.retryAfter(address: "a", now: Int64(i) * Self.minute) == nil)
            throttle.recordFailure(address: "a", now: Int64(i) * Self.minute)
        }
        #expect(throttle.retryAfter(address: "a", now: 5 * Self.minute) == 10 * Self.minute)
        #expect(throttle.retryAfter(address: "b", now: 5 * Self.minute) == nil, "another address is not held")
        // The oldest failure leaves the window: one more try.
        #expect(throttle.retryAfter(address: "a", now: 15 * Self.minute) == nil)
        throttle.recordFailure(address: "a", now: 15 * Self.minute)
        #expect(throttle.retryAfter(address: "a", now: 15 * Self.minute) == Self.minute)
    }

    @Test("a right key forgets its address's failures and makes the address known")
    func successForgets() {
        var throttle = ConsoleLoginThrottle()
        for _ in 0..<4 { throttle.recordFailure(address: "a", now: 0) }
        throttle.recordSuccess(address: "a", now: 1)
        for _ in 0..<4 { throttle.recordFailure(address: "a", now: 2) }
        #expect(throttle.retryAfter(address: "a", now: 3) == nil, "four since the success")
    }

    @Test("twenty wrong keys from many addresses hold every unknown address; a known one logs in")
    func fromEverywhere() {
        var throttle = ConsoleLoginThrottle()
        throttle.recordSuccess(address: "office", now: 0)
        for i in 0..<20 { throttle.recordFailure(address: "guesser-\(i)", now: Self.minute) }
        #expect(throttle.retryAfter(address: "new-address", now: 2 * Self.minute) == 14 * Self.minute)
        #expect(throttle.retryAfter(address: "office", now: 2 * Self.minute) == nil, "the operators' address")
        #expect(throttle.retryAfter(address: "new-address", now: 16 * Self.minute) == nil, "the window moved on")
        // Known for 30 days only.
        let later = ConsoleLoginThrottle.knownFor + 2 * Self.minute
        for i in 0..<20 { throttle.recordFailure(address: "guesser-\(i)", now: later) }
        #expect(throttle.retryAfter(address: "office", now: later) != nil)
    }
}
