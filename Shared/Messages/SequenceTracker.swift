/// Follows each publisher's sequence numbers on the bus and says when messages went missing.
///
/// Every published message carries `publisher` and `sequence` (1, 2, 3…). A subscriber that
/// sees 7 after 5 knows 6 was lost (a slow subscriber, a full queue, a reconnect). The first
/// message seen from a publisher only sets the starting point: a subscriber that joins late has
/// not lost what was sent before it joined.
public struct SequenceTracker: Sendable {
    /// What one observed sequence number means.
    public enum Observation: Sendable, Equatable {
        /// The first message seen from this publisher.
        case first
        /// The expected next number.
        case inOrder
        /// Numbers between the last one seen and this one never arrived.
        case gap(missing: ClosedRange<UInt64>)
        /// Already seen (a duplicate or a replay); ignore it.
        case duplicate
        /// The publisher started again from 1.
        case restarted
    }

    private var lastSeen: [String: UInt64] = [:]

    public init() {}

    /// The highest sequence seen from a publisher.
    public func lastSequence(of publisher: String) -> UInt64? { lastSeen[publisher] }

    /// Records a message and classifies it.
    public mutating func observe(publisher: String, sequence: UInt64) -> Observation {
        guard let last = lastSeen[publisher] else {
            lastSeen[publisher] = sequence
            return .first
        }
        if sequence == last &+ 1 {
            lastSeen[publisher] = sequence
            return .inOrder
        }
        if sequence > last {
            lastSeen[publisher] = sequence
            return .gap(missing: (last + 1)...(sequence - 1))
        }
        // A second copy of message 1 (from a second hub) is a duplicate, not a restart.
        if sequence == 1 && last != 1 {
            lastSeen[publisher] = sequence
            return .restarted
        }
        return .duplicate
    }
}
