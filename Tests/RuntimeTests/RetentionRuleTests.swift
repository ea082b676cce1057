import PodiumMessages
import PodiumRuntime
import Testing

/// Retention's rules as values: what may be pruned, given a stream's bounds and its readers.
@Suite("Retention rules")
struct RetentionRuleTests {
    @Test("nothing is pruned until every expected reader has read; then never past the slowest")
    func readersHoldTheStream() {
        var readers = StreamReaders()
        #expect(readers.floor(expected: ["challenge"]) == nil)
        readers.read(by: "achievement", after: 90)
        #expect(readers.floor(expected: ["achievement", "challenge"]) == nil, "challenge has not read since the start")
        readers.read(by: "challenge", after: 40)
        #expect(readers.floor(expected: ["achievement", "challenge"]) == 40)
        readers.read(by: "challenge", after: 10)
        #expect(
            readers.floor(expected: ["achievement", "challenge"]) == 40,
            "a position never moves back (a rebuild reads from 0)")
        #expect(readers.floor(expected: []) == .max, "a stream nobody follows is held by age only")
    }

    @Test("pruned through the oldest of: age, the readers' floor, the message before the newest")
    func pruneThrough() {
        let bounds = StreamBounds(first: 1, head: 100, agedThrough: 60)
        #expect(RetentionRule.pruneThrough(bounds, readersFloor: nil) == 0)
        #expect(RetentionRule.pruneThrough(bounds, readersFloor: 100) == 60, "age")
        #expect(RetentionRule.pruneThrough(bounds, readersFloor: 30) == 30, "the slowest reader")
        #expect(
            RetentionRule.pruneThrough(StreamBounds(first: 1, head: 100, agedThrough: 100), readersFloor: 100) == 99,
            "never the newest")
        #expect(
            RetentionRule.pruneThrough(StreamBounds(first: 61, head: 100, agedThrough: 60), readersFloor: 100) == 0,
            "already pruned")
        #expect(
            RetentionRule.pruneThrough(StreamBounds(first: 0, head: 0, agedThrough: 0), readersFloor: 0) == 0, "empty")
        #expect(
            RetentionRule.pruneThrough(StreamBounds(first: 5, head: 5, agedThrough: 5), readersFloor: 5) == 0,
            "only the newest left")
    }

    @Test("the event log is kept at least as long as receipts; 0 keeps a stream for ever; bad settings are refused")
    func settings() throws {
        let now: Int64 = 10_000_000_000
        let short = try RetentionSettings.checked(
            eventSeconds: 3600, outboxSeconds: 7200, receiptSeconds: 86_400, intervalSeconds: 60)
        #expect(short.eventCutoff(now: now) == now - 86_400_000, "events answer resends of event.publish")
        #expect(short.outboxCutoff(now: now) == now - 7_200_000)
        #expect(short.receiptCutoff(now: now) == now - 86_400_000)
        let forever = try RetentionSettings.checked(
            eventSeconds: 0, outboxSeconds: 0, receiptSeconds: 3600, intervalSeconds: 1)
        #expect(forever.eventCutoff(now: now) == nil && forever.outboxCutoff(now: now) == nil)
        let defaults = RetentionSettings()
        #expect(
            defaults.eventMilliseconds == 30 * RetentionSettings.day
                && defaults.receiptMilliseconds == 7 * RetentionSettings.day)
        for (event, outbox, receipt, interval) in [
            (60, 0, 3600, 60), (0, 10, 3600, 60), (0, 0, 0, 60), (0, 0, 3599, 60), (0, 0, 3600, 0), (-1, 0, 3600, 60),
        ] {
            #expect(throws: ConfigurationProblem.self) {
                try RetentionSettings.checked(
                    eventSeconds: event, outboxSeconds: outbox, receiptSeconds: receipt, intervalSeconds: interval)
            }
        }
    }

    @Test("each service's followed streams name it as their reader")
    func readersOfTheStreams() {
        #expect(StreamName.readers(of: StreamName.events) == ["achievement", "challenge"])
        #expect(StreamName.readers(of: StreamName.leaderboard) == ["challenge"])
        #expect(StreamName.readers(of: StreamName.achievement) == ["challenge"])
        #expect(StreamName.readers(of: StreamName.auth) == ["achievement", "challenge", "leaderboard"])
        #expect(StreamName.readers(of: "unknown").isEmpty)
    }
}
