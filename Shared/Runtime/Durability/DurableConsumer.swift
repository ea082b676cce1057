import PodiumMessages

/// A service whose state follows durable streams (the event log, other services' outboxes).
///
/// The runtime hands it each stream's messages in sequence order, exactly once per position:
/// after a restart or a lost message it reads the missing range from the stream first. The
/// consumer makes that exact by recording the position in the same transaction as the change.
public protocol DurableConsumer: Sendable {
    /// The last sequence applied from `stream` (0 when none), as stored with the state.
    func position(of stream: String) async throws -> UInt64

    /// Applies the message at `sequence` and records `sequence` as the stream's position in the
    /// same transaction as the change. A message that changes nothing (or is invalid for this
    /// service, which is logged) may skip the write: after a restart it is read again and again
    /// changes nothing. Throw only when a change could not be stored (the runtime then retries
    /// from the stream later, so nothing is skipped).
    func apply(_ message: StreamMessage, stream: String, sequence: UInt64, context: ServiceContext) async throws

    /// Applies consecutive messages (each with its sequence, in order) and records the last
    /// changing one's sequence, ideally in one transaction (the default applies them one by one).
    /// Throwing means none of them may be assumed applied beyond the stored position.
    func apply(batch: [(message: StreamMessage, sequence: UInt64)], stream: String, context: ServiceContext)
        async throws

    /// The stream no longer holds `lost` (retention pruned it before this service read it, for
    /// example after the service's database was restored from an old backup): rebuild from the
    /// producers' current state what those messages would have changed, as far as the service
    /// can, and record `lost.upperBound` as the stream's position. Throwing leaves the position
    /// where it was; the runtime tries again at the next catch-up.
    func recover(stream: String, lost: ClosedRange<UInt64>, context: ServiceContext) async throws

    /// Records positions reached without a change to store (the messages up to them changed
    /// nothing for these streams), in one transaction. A consumer group member does this for
    /// its partitions after each batch, so that each partition's position says how far its
    /// messages were considered, not only where the last one that changed something was.
    func record(positions: [String: UInt64], context: ServiceContext) async throws

    /// What the position depends on besides the store: a consumer group member's served
    /// partitions. When it changes, the follower reads the position again (a partition gained
    /// after the position was read may stand behind it, with nothing new arriving to show it).
    var positionBasis: [Int]? { get }
}

extension DurableConsumer {
    public var positionBasis: [Int]? { nil }
}

extension DurableConsumer {
    /// Nothing recorded: the positions move with the next change.
    public func record(positions: [String: UInt64], context: ServiceContext) async throws {}

    public func apply(batch: [(message: StreamMessage, sequence: UInt64)], stream: String, context: ServiceContext)
        async throws
    {
        for (message, sequence) in batch {
            try await apply(message, stream: stream, sequence: sequence, context: context)
        }
    }
}
