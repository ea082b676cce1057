import PodiumMessages
import PodiumRuntime

/// Rules follow the gateway's event log: every event once, in log order, across restarts.
extension Achievements: DurableConsumer {
    func position(of stream: String) async throws -> UInt64 {
        try await store.eventPosition()
    }

    func apply(_ message: StreamMessage, stream: String, sequence: UInt64, context: ServiceContext) async throws {
        try await apply(message.envelope, sequence: sequence, context: context)
    }

    func apply(batch: [(message: StreamMessage, sequence: UInt64)], stream: String, context: ServiceContext) async throws {
        try await apply(events: batch.map { ($0.message.envelope, $0.sequence) }, context: context)
    }
}
