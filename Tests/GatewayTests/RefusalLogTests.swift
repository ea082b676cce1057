import Testing

@testable import Gateway

/// Which bus refusals the gateway logs: the first of each peer and reason, then one per interval
/// with the number held back.
@Suite("Refusal log")
struct RefusalLogTests {
    @Test("first logged, repeats within the interval held back and counted, then logged again")
    func throttles() {
        var log = RefusalLog()
        let interval = RefusalLog.interval
        #expect(log.record("unknown_key 10.0.0.5", at: 1000) == 0)
        #expect(log.record("unknown_key 10.0.0.5", at: 1001) == nil)
        #expect(log.record("unknown_key 10.0.0.5", at: 1000 + interval - 1) == nil)
        #expect(log.record("handshake tcp://0.0.0.0:5560", at: 1002) == 0, "another peer or reason is logged at once")
        #expect(log.record("unknown_key 10.0.0.5", at: 1000 + interval) == 2, "two held back since the last line")
        #expect(log.record("unknown_key 10.0.0.5", at: 1000 + interval + 1) == nil)
        #expect(log.record("unknown_key 10.0.0.5", at: 1000 + 3 * interval) == 1)
    }
}
