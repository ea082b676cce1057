import PodiumMessages
import PodiumRuntime

/// Rules follow the gateway's event log: every event once, in log order, across restarts.
extension Achievements: DurableConsumer {
    func position(of stream: String) async throws -> UInt64 {
        try await store.eventPosition(of: stream)
    }

    func apply(_ message: StreamMessage, stream: String, sequence: UInt64, context: ServiceContext) async throws {
        try await apply(message.envelope, sequence: sequence, context: context)
    }

    func apply(batch: [(message: StreamMessage, sequence: UInt64)], stream: String, context: ServiceContext)
        async throws
    {
        try await apply(events: batch.map { ($0.message.envelope, $0.sequence) }, stream: stream, context: context)
    }

    /// Events were pruned before this service applied them (its database restored from a backup
    /// older than the retained log). The event log is the only record of what they reported, so
    /// there is no state to rebuild their rule progress from: the position moves past them (one
    /// transaction), the loss is logged and counted, and players keep the progress and unlocks
    /// they have. Unlocks reported directly (`achievement.report`) are unaffected.
    func record(positions: [String: UInt64], context: ServiceContext) async throws {
        var durable = DurableWrites()
        for (stream, sequence) in positions { durable.advance(stream, to: sequence) }
        try await store.replace([:], durable: durable)
    }

    func recover(stream: String, lost: ClosedRange<UInt64>, context: ServiceContext) async throws {
        var durable = DurableWrites()
        durable.advance(stream, to: lost.upperBound)
        try await store.replace([:], durable: durable)
    }
}
