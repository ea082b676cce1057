import DequeModule
import Histogram

/// The requests the gateway answered lately, in slots of a few seconds: how many, how many
/// failed, and how long they took (an HdrHistogram per slot, so percentiles are exact to 1 %).
/// The console's overview draws it with a time axis. A pure value: the caller passes the time.
struct RequestTimeline: Sendable {
    /// One slot's numbers as the overview shows them; latencies in milliseconds, nil without requests.
    struct Point: Codable, Sendable, Equatable {
        /// The slot's start, Unix ms.
        var at: Int64
        var requests: Int
        var errors: Int
        var p50: Double?
        var p95: Double?
        var p99: Double?
        var max: Double?
    }

    private struct Slot: Sendable {
        var start: Int64
        var requests = 0
        var errors = 0
        var latency = Histogram<UInt32>(
            lowestDiscernibleValue: 1, highestTrackableValue: Self.highestMicroseconds,
            numberOfSignificantValueDigits: .two)

        /// An hour, in microseconds: longer requests count as an hour.
        static let highestMicroseconds: UInt64 = 3_600_000_000
    }

    /// The length of a slot, ms.
    let slotMilliseconds: Int64
    /// How many slots are kept (the window is `slotMilliseconds × slotCount`).
    let slotCount: Int
    private var slots: Deque<Slot> = []

    init(slotMilliseconds: Int64 = 5_000, slotCount: Int = 120) {
        precondition(slotMilliseconds > 0 && slotCount > 0)
        self.slotMilliseconds = slotMilliseconds
        self.slotCount = slotCount
    }

    /// Counts one answered request, at `now` (Unix ms), that took `microseconds`.
    mutating func record(at now: Int64, microseconds: UInt64, failed: Bool) {
        let start = now - now % slotMilliseconds
        // A clock that stepped back adds to the newest slot rather than reopening an old one.
        if slots.last.map({ $0.start < start }) ?? true {
            slots.append(Slot(start: start))
            while let first = slots.first, first.start <= start - Int64(slotCount) * slotMilliseconds {
                slots.removeFirst()
            }
        }
        slots[slots.count - 1].requests += 1
        if failed { slots[slots.count - 1].errors += 1 }
        _ = slots[slots.count - 1].latency.record(min(microseconds, Slot.highestMicroseconds))
    }

    /// Every slot of the window that ends with the slot of `now`, oldest first; a slot without
    /// requests is a point with zero counts, so the time axis has no holes.
    func points(now: Int64) -> [Point] {
        let newest = now - now % slotMilliseconds
        let oldest = newest - Int64(slotCount - 1) * slotMilliseconds
        var byStart: [Int64: Slot] = [:]
        for slot in slots where slot.start >= oldest { byStart[slot.start] = slot }
        return stride(from: oldest, through: newest, by: Int(slotMilliseconds)).map { start in
            guard let slot = byStart[start], slot.requests > 0 else {
                return Point(at: start, requests: 0, errors: 0)
            }
            func milliseconds(_ microseconds: UInt64) -> Double { Double(microseconds) / 1000 }
            return Point(
                at: start, requests: slot.requests, errors: slot.errors,
                p50: milliseconds(slot.latency.valueAtPercentile(50)),
                p95: milliseconds(slot.latency.valueAtPercentile(95)),
                p99: milliseconds(slot.latency.valueAtPercentile(99)), max: milliseconds(slot.latency.max))
        }
    }
}
