import PodiumMessages

/// How long durable streams and request receipts are kept (docs/OPERATIONS.md "Retention").
///
/// | variable | default | meaning |
/// |---|---|---|
/// | `PODIUM_EVENT_RETENTION_SECONDS` | 2592000 (30 days) | the gateway's event log; 0 keeps it for ever |
/// | `PODIUM_OUTBOX_RETENTION_SECONDS` | 604800 (7 days) | each service's outbox; 0 keeps it for ever |
/// | `PODIUM_RECEIPT_RETENTION_SECONDS` | 604800 (7 days), at least 3600 | request receipts: the resend window |
/// | `PODIUM_RETENTION_INTERVAL_SECONDS` | 60 | how often each process prunes |
///
/// A stream is never pruned past the position of any of its readers (``StreamName/readers(of:)``)
/// nor of its newest message; the event log, which is also the receipt store of `event.publish`,
/// keeps every event at least as long as receipts are kept.
public struct RetentionSettings: Sendable, Equatable {
    /// Event log retention in milliseconds (0: for ever).
    public var eventMilliseconds: Int64
    /// Outbox retention in milliseconds (0: for ever).
    public var outboxMilliseconds: Int64
    /// Receipt retention in milliseconds (never 0).
    public var receiptMilliseconds: Int64
    /// Time between two pruning rounds.
    public var interval: Duration

    public static let day: Int64 = 86_400_000
    /// The shortest receipt retention allowed: a client may resend for at least this long.
    public static let minimumReceiptMilliseconds: Int64 = 3_600_000

    public init(
        eventMilliseconds: Int64 = 30 * day, outboxMilliseconds: Int64 = 7 * day, receiptMilliseconds: Int64 = 7 * day,
        interval: Duration = .seconds(60)
    ) {
        self.eventMilliseconds = eventMilliseconds
        self.outboxMilliseconds = outboxMilliseconds
        self.receiptMilliseconds = receiptMilliseconds
        self.interval = interval
    }

    /// Checks the settings as read from the environment (seconds).
    public static func checked(eventSeconds: Int, outboxSeconds: Int, receiptSeconds: Int, intervalSeconds: Int) throws
        -> Self
    {
        let maximum = 10 * 365 * 86_400
        guard eventSeconds == 0 || (3600...maximum).contains(eventSeconds) else {
            throw ConfigurationProblem("PODIUM_EVENT_RETENTION_SECONDS must be 0 (keep for ever) or 3600-\(maximum)")
        }
        guard outboxSeconds == 0 || (3600...maximum).contains(outboxSeconds) else {
            throw ConfigurationProblem("PODIUM_OUTBOX_RETENTION_SECONDS must be 0 (keep for ever) or 3600-\(maximum)")
        }
        guard (3600...maximum).contains(receiptSeconds) else {
            throw ConfigurationProblem(
                "PODIUM_RECEIPT_RETENTION_SECONDS must be 3600-\(maximum) (clients may resend for that long)")
        }
        guard (1...86_400).contains(intervalSeconds) else {
            throw ConfigurationProblem("PODIUM_RETENTION_INTERVAL_SECONDS must be 1-86400")
        }
        return Self(
            eventMilliseconds: Int64(eventSeconds) * 1000, outboxMilliseconds: Int64(outboxSeconds) * 1000,
            receiptMilliseconds: Int64(receiptSeconds) * 1000, interval: .seconds(intervalSeconds))
    }

    /// Events logged before this time may go (nil: keep them all). The event log answers resends
    /// of `event.publish`, so it is kept at least as long as receipts.
    public func eventCutoff(now: Int64) -> Int64? {
        eventMilliseconds == 0 ? nil : now - max(eventMilliseconds, receiptMilliseconds)
    }

    /// Outbox messages written before this time may go (nil: keep them all).
    public func outboxCutoff(now: Int64) -> Int64? { outboxMilliseconds == 0 ? nil : now - outboxMilliseconds }

    /// Receipts written before this time may go.
    public func receiptCutoff(now: Int64) -> Int64 { now - receiptMilliseconds }
}

/// Where each reader of one stream stands, learnt from its reads (`after` of `events.read` or
/// `<service>.outbox.read`: a follower asks at least once a second, from its applied position).
///
/// Kept in memory: after a restart nothing is pruned until every expected reader has read
/// again. A position only moves forward, so one learnt by another instance or before a reader
/// restored an older backup is at most too high by what that reader then finds missing
/// (``RetentionRule`` and the follower's recovery cover that).
public struct StreamReaders: Sendable, Equatable {
    private(set) var positions: [String: UInt64] = [:]

    public init() {}

    /// `reader` asked for the messages after `after`: it has applied everything up to there.
    public mutating func read(by reader: String, after: UInt64) {
        positions[reader] = max(positions[reader] ?? 0, after)
    }

    /// The lowest position among `expected` readers, or nil while one of them has not read yet.
    public func floor(expected: [String]) -> UInt64? {
        var lowest = UInt64.max
        for reader in expected {
            guard let position = positions[reader] else { return nil }
            lowest = min(lowest, position)
        }
        return lowest
    }
}

/// What a stream's store holds, for deciding what to prune.
public struct StreamBounds: Sendable, Equatable {
    /// The oldest sequence held (0 when empty).
    public var first: UInt64
    /// The newest sequence held (0 when empty).
    public var head: UInt64
    /// The newest sequence written before the cutoff (0 when none).
    public var agedThrough: UInt64

    public init(first: UInt64, head: UInt64, agedThrough: UInt64) {
        self.first = first
        self.head = head
        self.agedThrough = agedThrough
    }
}

/// The pruning rule of a durable stream, the same for every store.
public enum RetentionRule {
    /// The last sequence that may be deleted: old enough, already read by every expected reader
    /// (nil floor: one has not read yet, so nothing), and never the newest message (the next
    /// sequence is numbered after it). 0: nothing to prune.
    public static func pruneThrough(_ bounds: StreamBounds, readersFloor: UInt64?) -> UInt64 {
        guard let floor = readersFloor, bounds.head > 0 else { return 0 }
        let through = min(bounds.agedThrough, floor, bounds.head - 1)
        return through >= bounds.first ? through : 0
    }
}
