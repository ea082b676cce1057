import Metrics
import Synchronization

/// Counters and timers made once per label set and kept. Making one asks the metrics backend's
/// registry, which locks and hashes the labels, on every call: a cost per request where a hot
/// path counts and times each one. Label sets must be bounded (known request types, error
/// codes, transports), as every label set a backend exports is.
public final class MetricHandles: Sendable {
    /// The label and dimensions as given (hashed in place: no array made per look-up).
    private struct Key: Hashable {
        let label: String
        let dimensions: [(String, String)]

        init(_ label: String, _ dimensions: [(String, String)]) {
            self.label = label
            self.dimensions = dimensions
        }

        static func == (a: Key, b: Key) -> Bool {
            a.label == b.label && a.dimensions.elementsEqual(b.dimensions) { $0.0 == $1.0 && $0.1 == $1.1 }
        }

        func hash(into hasher: inout Hasher) {
            hasher.combine(label)
            for (name, value) in dimensions {
                hasher.combine(name)
                hasher.combine(value)
            }
        }
    }

    private let counters = Mutex<[Key: Counter]>([:])
    private let timers = Mutex<[Key: Metrics.Timer]>([:])

    public init() {}

    /// The counter of `label` with `dimensions`, made on first use.
    public func counter(_ label: String, _ dimensions: [(String, String)]) -> Counter {
        let key = Key(label, dimensions)
        if let counter = counters.withLock({ $0[key] }) { return counter }
        let made = Counter(label: label, dimensions: dimensions)
        return counters.withLock { counters in
            if let existing = counters[key] { return existing }
            counters[key] = made
            return made
        }
    }

    /// The timer of `label` with `dimensions`, made on first use.
    public func timer(_ label: String, _ dimensions: [(String, String)]) -> Metrics.Timer {
        let key = Key(label, dimensions)
        if let timer = timers.withLock({ $0[key] }) { return timer }
        let made = Metrics.Timer(label: label, dimensions: dimensions)
        return timers.withLock { timers in
            if let existing = timers[key] { return existing }
            timers[key] = made
            return made
        }
    }
}
