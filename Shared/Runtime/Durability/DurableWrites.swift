import Foundation
import PodiumMessages

/// What must commit together with a service's state change, whatever the database: the
/// request's receipt, the messages for other services (the outbox) and the positions reached in
/// the streams the service follows. A store's write method takes the state change and these
/// as one unit of work and commits all of it in one transaction, or none of it.
public struct DurableWrites: Sendable {
    /// The answer to keep as the request's receipt.
    public struct Receipt: Sendable {
        public var key: RequestKey
        public var reply: JSONValue
        public var time: Int64
    }

    /// A message for the outbox: its topic and its encoded envelope (numbered when read).
    public struct OutboxMessage: Sendable, Equatable {
        public var topic: String
        public var envelope: Data
        /// When it was written (the envelope's timestamp, ms): retention's age.
        public var time: Int64
    }

    public private(set) var receipts: [Receipt] = []
    public private(set) var outbox: [OutboxMessage] = []
    /// The highest position reached per stream.
    public private(set) var positions: [String: UInt64] = [:]

    public init() {}

    public var isEmpty: Bool { receipts.isEmpty && outbox.isEmpty && positions.isEmpty }

    /// Keeps `reply` as the answer to the request with `key` (nothing when the request had no id).
    public mutating func recordReceipt(_ key: RequestKey?, reply: JSONValue, at time: Int64) {
        guard let key else { return }
        receipts.append(Receipt(key: key, reply: reply, time: time))
    }

    /// Queues a message for the outbox.
    public mutating func appendToOutbox<Payload: Encodable & Sendable>(_ envelope: Envelope<Payload>, on topic: Topic)
        throws
    {
        outbox.append(
            OutboxMessage(topic: topic.rawValue, envelope: try WireCodec.encode(envelope), time: envelope.timestamp))
    }

    /// Records that `stream` is applied up to `sequence` (never moves a position back).
    public mutating func advance(_ stream: String, to sequence: UInt64) {
        positions[stream] = max(positions[stream] ?? 0, sequence)
    }

    /// Writes that record `sequence` as the position of `stream`, or of each partition a consumer
    /// group's name lists (``StreamName/positionNames(of:)``).
    public static func position(_ stream: String, at sequence: UInt64) -> DurableWrites {
        var writes = DurableWrites()
        for name in StreamName.positionNames(of: stream) { writes.advance(name, to: sequence) }
        return writes
    }

    /// Adds another unit's writes after these.
    public mutating func append(_ other: DurableWrites) {
        receipts += other.receipts
        outbox += other.outbox
        for (stream, sequence) in other.positions { advance(stream, to: sequence) }
    }
}

/// Reads a service's receipts, for `<service>.receipt` (asked by the gateway for `receipt.get`).
public protocol ReceiptReader: Sendable {
    /// The stored answer for a request id in a scope, whatever its payload.
    func storedReply(scope: String, requestId: String) async throws -> StoredReply
}

/// Reads a service's outbox, for its relay and for `<service>.outbox.read`.
public protocol OutboxReader: Sendable {
    /// Messages after a sequence (stamped as `stream`'s, with their sequence), and the last sequence.
    func outboxPage(stream: String, after: UInt64, limit: Int) async throws -> StreamPage
    /// The outbox's last sequence (0 when empty).
    func outboxHead() async throws -> UInt64
}

/// Everything the runtime does with a service's durable tables: reads receipts and the outbox,
/// and prunes both by retention.
public typealias DurableTablesAccess = ReceiptReader & OutboxReader & StreamRetention & ReceiptRetention
