import Foundation
import PodiumMessages
import PodiumRuntime

/// The event log's rules (those of ``EventNumbering``) for a store that numbers a whole batch in
/// one statement (PostgreSQL): the batch is decided before the store's lock is taken, given what
/// the log already holds for its request ids; the store then inserts ``rows`` numbered
/// `head + 1, head + 2, …` in the order given, and ``outcomes(after:)`` builds the replies and the
/// events to publish once the head is known. The rows are stored without their sequence (the
/// reader stamps it from the row's number), so nothing is encoded while the lock is held.
public struct EventBatch: Sendable {
    enum Planned: Sendable {
        /// The `ordinal`-th new row (from 0).
        case new(ordinal: Int)
        /// A resend of an earlier row of this batch, with the same payload.
        case repeatsNew(ordinal: Int)
        /// A request id logged before with the same payload: its acknowledgement.
        case repeated(EventAcknowledgement)
        case refused(ErrorReply)
    }

    /// A row to insert: the entry and its envelope encoded without a sequence.
    public struct Row: Sendable {
        public var entry: EventLogEntry
        public var body: Data
    }

    private(set) var planned: [Planned] = []
    /// The new events, in the order they take their sequences.
    public private(set) var rows: [Row] = []

    /// Decides each entry: `earlier` holds what the log stores for an entry's request id, by
    /// the entry's position in `entries`.
    public init(_ entries: [EventLogEntry], earlier: [Int: EventNumbering.Earlier]) throws {
        var inBatch: [String: (fingerprint: String, ordinal: Int)] = [:]
        planned.reserveCapacity(entries.count)
        for (index, entry) in entries.enumerated() {
            let key = EventNumbering.key(entry)
            if let stored = earlier[index] {
                guard stored.fingerprint == entry.fingerprint else {
                    planned.append(.refused(RequestReceipts.reused(entry.requestId)))
                    continue
                }
                var repeated = stored.acknowledgement
                repeated.duplicate = true
                planned.append(.repeated(repeated))
            } else if let new = inBatch[key] {
                planned.append(
                    new.fingerprint == entry.fingerprint
                        ? .repeatsNew(ordinal: new.ordinal) : .refused(RequestReceipts.reused(entry.requestId)))
            } else {
                var envelope = entry.envelope
                envelope.publisher = StreamName.events
                envelope.sequence = nil
                inBatch[key] = (entry.fingerprint, rows.count)
                planned.append(.new(ordinal: rows.count))
                rows.append(Row(entry: entry, body: try WireCodec.encode(envelope)))
            }
        }
    }

    /// The outcomes, once the rows are numbered after `head`: the new events' envelopes encoded
    /// with their sequences, for the bus.
    public func outcomes(after head: UInt64) throws -> [EventLogOutcome] {
        let logged = try rows.enumerated().map { ordinal, row -> (EventAcknowledgement, CommittedEvent) in
            let sequence = head + UInt64(ordinal) + 1
            var envelope = row.entry.envelope
            envelope.publisher = StreamName.events
            envelope.sequence = sequence
            let acknowledgement = EventAcknowledgement(
                eventId: envelope.id, topic: row.entry.topic.rawValue, publisher: StreamName.events,
                sequence: sequence, acceptedAt: envelope.timestamp)
            return (
                acknowledgement, CommittedEvent(topic: row.entry.topic.rawValue, body: try WireCodec.encode(envelope))
            )
        }
        return planned.map { planned in
            switch planned {
            case .new(let ordinal): .logged(logged[ordinal].0, event: logged[ordinal].1)
            case .repeatsNew(let ordinal):
                .repeated(
                    {
                        var acknowledgement = logged[ordinal].0
                        acknowledgement.duplicate = true
                        return acknowledgement
                    }())
            case .repeated(let acknowledgement): .repeated(acknowledgement)
            case .refused(let refusal): .refused(refusal)
            }
        }
    }
}
