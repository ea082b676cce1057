import PodiumMessages
import PodiumRuntime

/// Completions follow the leaderboard's and the achievement service's outboxes: every message
/// once, in order, across restarts.
extension Challenges: DurableConsumer {
    func position(of stream: String) async throws -> UInt64 {
        try await store.position(of: stream)
    }

    func apply(_ message: StreamMessage, stream: String, sequence: UInt64, context: ServiceContext) async throws {
        try await apply(message.envelope, stream: stream, sequence: sequence, context: context)
    }

    func apply(batch: [(message: StreamMessage, sequence: UInt64)], stream: String, context: ServiceContext) async throws {
        try await apply(batch: batch.map { ($0.message.envelope, $0.sequence) }, stream: stream, context: context)
    }
}
