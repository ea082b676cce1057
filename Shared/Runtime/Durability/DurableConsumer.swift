import PodiumMessages

/// A service whose state follows durable streams (the event log, other services' outboxes).
///
/// The runtime hands it each stream's messages in sequence order, exactly once per position:
/// after a restart or a lost message it reads the missing range from the stream first. The
/// consumer makes that exact by recording the position in the same transaction as the change.
public protocol DurableConsumer: Sendable {
    /// The last sequence applied from `stream` (0 when none), as stored with the state.
    func position(of stream: String) async throws -> UInt64

    /// Applies the message at `sequence` and records `sequence` as the stream's position, in one
    /// transaction, even when the message changes nothing. A message that is invalid for this
    /// service is logged and recorded as applied; throw only when the change could not be stored
    /// (the runtime then retries from the stream later, so nothing is skipped).
    func apply(_ message: StreamMessage, stream: String, sequence: UInt64, context: ServiceContext) async throws
}
