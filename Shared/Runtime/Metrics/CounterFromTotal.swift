import Metrics

/// A counter fed from a running total kept elsewhere (a status struct's counter): each
/// ``update(to:)`` adds what the total grew since the last one. A total that went down (a restart
/// of whatever keeps it) starts over from there.
public final class CounterFromTotal: Sendable {
    private let counter: Counter
    private let last = Locked<UInt64>(0)

    public init(label: String, dimensions: [(String, String)] = []) {
        counter = Counter(label: label, dimensions: dimensions)
    }

    public func update(to total: UInt64) {
        let growth = last.withLock { last -> UInt64 in
            defer { last = total }
            return total >= last ? total - last : total
        }
        if growth > 0 { counter.increment(by: Int64(clamping: growth)) }
    }
}

/// The ``CounterFromTotal``s of one process, made on first use and kept, keyed by name and labels.
public final class SampledMetrics: Sendable {
    private let counters = Locked<[String: CounterFromTotal]>([:])

    public init() {}

    public func counter(_ label: String, _ dimensions: [(String, String)]) -> CounterFromTotal {
        let key = ([label] + dimensions.map { "\($0.0)=\($0.1)" }).joined(separator: "\u{0}")
        return counters.withLock { counters in
            if let existing = counters[key] { return existing }
            let made = CounterFromTotal(label: label, dimensions: dimensions)
            counters[key] = made
            return made
        }
    }
}
