import Logging
import PodiumMessages

/// Keeps one consumer applied, in order and without gaps, to one durable stream.
///
/// Live messages from the bus and pages read from the stream both go through here, one at a
/// time: a message at or below the position is a duplicate and skipped; one beyond the next
/// position first makes the follower read the missing range. A failed apply leaves the position
/// where it was, so the periodic ``catchUp()`` retries it.
final class StreamFollower: Sendable {
    let stream: String
    private let consumer: any DurableConsumer
    private let read: @Sendable (UInt64) async throws -> StreamPage
    private let context: ServiceContext
    private let lock = AsyncLock()
    private let state = Locked(State())

    struct State {
        var position: UInt64?
        var head: UInt64 = 0
        var applied: UInt64 = 0
        var duplicates: UInt64 = 0
        var refetched: UInt64 = 0
    }

    /// `read(after)` returns the stream's next page after a position.
    init(
        stream: String, consumer: any DurableConsumer, context: ServiceContext,
        read: @escaping @Sendable (UInt64) async throws -> StreamPage
    ) {
        self.stream = stream
        self.consumer = consumer
        self.context = context
        self.read = read
    }

    /// Where the follower stands: position, known head, counters.
    var status: StreamStatus {
        let state = state.value
        return StreamStatus(
            position: state.position ?? 0, head: max(state.head, state.position ?? 0), applied: state.applied,
            duplicatesSkipped: state.duplicates, refetched: state.refetched)
    }

    /// A live message from the bus.
    func deliver(_ message: StreamMessage) async {
        guard let sequence = message.envelope.sequence else { return }
        do {
            try await lock.withLock {
                let position = try await self.loadedPosition()
                if sequence <= position {
                    self.state.withLock { $0.duplicates += 1 }
                    return
                }
                if sequence > position + 1 {
                    self.context.logger.warning(
                        "stream gap: reading the missing range",
                        metadata: ["stream": "\(self.stream)", "stream.position": "\(position)", "stream.seq": "\(sequence)"])
                    try await self.fill(through: sequence - 1, counting: true)
                }
                if try await self.loadedPosition() == sequence - 1 {
                    try await self.apply(message, sequence: sequence)
                }
            }
        } catch {
            context.logger.error(
                "stream message not applied; will retry from the stream",
                metadata: ["stream": "\(stream)", "stream.seq": "\(sequence)", "error": "\(error)"])
        }
    }

    /// Runs `body` with the stream paused at its current position (live messages wait), for
    /// work that must see exactly what has been applied, such as a rebuild. The position is
    /// read from the consumer again afterwards, in case `body` moved it.
    func paused<Result: Sendable>(_ body: (UInt64) async throws -> Result) async throws -> Result {
        try await lock.withLock {
            let position = try await self.loadedPosition()
            defer { self.state.withLock { $0.position = nil } }
            return try await body(position)
        }
    }

    /// Reads and applies everything the stream has beyond the position.
    func catchUp() async {
        do {
            try await lock.withLock { try await self.fill(through: .max, counting: false) }
        } catch {
            context.logger.warning("stream catch-up failed; retrying", metadata: ["stream": "\(stream)", "error": "\(error)"])
        }
    }

    private func loadedPosition() async throws -> UInt64 {
        if let position = state.value.position { return position }
        let stored = try await consumer.position(of: stream)
        state.withLock { $0.position = stored }
        return stored
    }

    private func fill(through last: UInt64, counting: Bool) async throws {
        while true {
            let position = try await loadedPosition()
            guard position < last else { return }
            let page = try await read(position)
            state.withLock { $0.head = max($0.head, page.head) }
            let fresh = page.messages.filter { ($0.envelope.sequence ?? 0) > position }
            if fresh.isEmpty { return }
            for message in fresh {
                guard let sequence = message.envelope.sequence, sequence <= last else { return }
                try await apply(message, sequence: sequence)
                if counting { state.withLock { $0.refetched += 1 } }
            }
        }
    }

    private func apply(_ message: StreamMessage, sequence: UInt64) async throws {
        try await consumer.apply(message, stream: stream, sequence: sequence, context: context)
        state.withLock {
            $0.position = sequence
            $0.head = max($0.head, sequence)
            $0.applied += 1
        }
    }
}
