import Testing

@testable import Gateway

/// The overview's timeline of requests (``RequestTimeline``): slots on a continuous time axis,
/// errors apart, latency percentiles from an HdrHistogram per slot. Pure state.
@Suite("Request timeline")
struct RequestTimelineTests {
    static let start: Int64 = 1_800_000_000_000  // a slot boundary (a multiple of 5 000)

    @Test("every slot of the window is a point, oldest first, with nothing missing between")
    func continuousAxis() {
        var timeline = RequestTimeline(slotMilliseconds: 5_000, slotCount: 120)
        timeline.record(at: Self.start + 1_000, microseconds: 2_000, failed: false)
        timeline.record(at: Self.start + 21_000, microseconds: 3_000, failed: true)
        let points = timeline.points(now: Self.start + 24_999)
        #expect(points.count == 120)
        #expect(points.last?.at == Self.start + 20_000)
        #expect(zip(points, points.dropFirst()).allSatisfy { $1.at - $0.at == 5_000 })
        let busy = points.filter { $0.requests > 0 }
        #expect(busy.map(\.at) == [Self.start, Self.start + 20_000])
        #expect(busy.map(\.errors) == [0, 1])
        let quiet = points.first { $0.at == Self.start + 10_000 }
        #expect(quiet?.requests == 0 && quiet?.p50 == nil, "a quiet slot has counts of zero and no latency")
    }

    @Test("percentiles are those of the slot's requests, to 1 %, in milliseconds")
    func percentiles() throws {
        var timeline = RequestTimeline()
        for millisecond in 1...100 {  // 1 ms … 100 ms, one request each
            timeline.record(
                at: Self.start + Int64(millisecond), microseconds: UInt64(millisecond) * 1_000, failed: false)
        }
        timeline.record(at: Self.start + 200, microseconds: 40_000_000, failed: false)  // one slow one: 40 s
        let point = try #require(timeline.points(now: Self.start + 300).last)
        #expect(point.requests == 101)
        let p50 = try #require(point.p50)
        let p95 = try #require(point.p95)
        let p99 = try #require(point.p99)
        #expect(abs(p50 - 51) <= 0.51, "p50 \(p50)")
        #expect(abs(p95 - 96) <= 0.96, "p95 \(p95)")
        #expect(abs(p99 - 100) <= 1, "p99 \(p99)")
        #expect(abs((point.max ?? 0) - 40_000) <= 400, "max \(point.max ?? 0)")
    }

    @Test("slots older than the window are dropped; a clock that steps back counts in the newest slot")
    func window() {
        var timeline = RequestTimeline(slotMilliseconds: 1_000, slotCount: 3)
        timeline.record(at: Self.start, microseconds: 10, failed: false)
        timeline.record(at: Self.start + 5_000, microseconds: 10, failed: false)
        var points = timeline.points(now: Self.start + 5_000)
        #expect(points.map(\.at) == [Self.start + 3_000, Self.start + 4_000, Self.start + 5_000])
        #expect(points.map(\.requests) == [0, 0, 1], "the slot five seconds back is outside a three-second window")
        timeline.record(at: Self.start + 2_000, microseconds: 10, failed: true)  // the clock stepped back
        points = timeline.points(now: Self.start + 5_000)
        #expect(points.last?.requests == 2 && points.last?.errors == 1)
        // A request far later leaves only itself.
        timeline.record(at: Self.start + 60_000, microseconds: 10, failed: false)
        #expect(timeline.points(now: Self.start + 60_000).map(\.requests) == [0, 0, 1])
    }

    @Test("a request longer than an hour counts as an hour")
    func longest() throws {
        var timeline = RequestTimeline()
        timeline.record(at: Self.start, microseconds: 7_200_000_000, failed: false)
        let point = try #require(timeline.points(now: Self.start).last)
        #expect(point.requests == 1)
        #expect(abs((point.p50 ?? 0) - 3_600_000) <= 36_000)
    }
}
