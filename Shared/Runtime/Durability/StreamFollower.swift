import Logging
import Metrics
import PodiumMessages

/// Keeps one consumer applied, in order and without gaps, to one durable stream.
///
/// Live messages from the bus and pages read from the stream both go through here, in order: a
/// message at or below the position is a duplicate and skipped; one beyond the next position
/// first makes the follower read the missing range. A failed apply leaves the position where it
/// was, so the periodic ``catchUp()`` retries it.
///
/// Live messages are queued and applied by a drain task in batches (whatever arrived while the
/// previous batch was applied, at most ``batchLimit``), so a busy stream costs one transaction
/// per batch rather than per message. Beyond ``queueLimit`` waiting messages, live ones are
/// dropped: they are in the stream, and the next gap or catch-up reads them.
final class StreamFollower: Sendable {
    let stream: String
    private let consumer: any DurableConsumer
    private let read: @Sendable (UInt64) async throws -> StreamPage
    private let context: ServiceContext
    private let lock = AsyncLock()
    private let state = Locked(State())

    struct State {
        var position: UInt64?
        /// The consumer's ``DurableConsumer/positionBasis`` when the position was read.
        var basis: [Int]?
        var head: UInt64 = 0
        var applied: UInt64 = 0
        var duplicates: UInt64 = 0
        var refetched: UInt64 = 0
        var lost: UInt64 = 0
        var queue: [StreamMessage] = []
        var draining = false
    }

    /// The most messages applied as one batch.
    static let batchLimit = 500
    /// The most live messages waiting to be applied.
    static let queueLimit = 20_000

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
        var status = StreamStatus(
            position: state.position ?? 0, head: max(state.head, state.position ?? 0), applied: state.applied,
            duplicatesSkipped: state.duplicates, refetched: state.refetched, lost: state.lost == 0 ? nil : state.lost)
        if let group = consumer as? PartitionedConsumer {
            status.partitions = Dictionary(
                uniqueKeysWithValues: group.positions(of: stream).map { (String($0.key), $0.value) })
        }
        return status
    }

    /// A live message from the bus: queued, applied soon by the drain task.
    func deliver(_ message: StreamMessage) async {
        guard message.envelope.sequence != nil else { return }
        let startDrain = state.withLock { state -> Bool in
            guard state.queue.count < Self.queueLimit else { return false }
            state.queue.append(message)
            if state.draining { return false }
            state.draining = true
            return true
        }
        if startDrain { Task { await self.drain() } }
    }

    private func drain() async {
        while true {
            let batch = state.withLock { state -> [StreamMessage] in
                let batch = Array(state.queue.prefix(Self.batchLimit))
                state.queue.removeFirst(batch.count)
                if batch.isEmpty { state.draining = false }
                return batch
            }
            if batch.isEmpty { return }
            do {
                try await lock.withLock { try await self.applyLive(batch) }
            } catch let behind as PartitionBehind {
                // A partition just gained: the next catch-up reads the stream from its position.
                context.logger.notice("\(behind)", metadata: ["stream": "\(stream)"])
            } catch {
                context.logger.error(
                    "stream messages not applied; will retry from the stream",
                    metadata: [
                        "stream": "\(stream)", "stream.seq": "\(batch.first?.envelope.sequence ?? 0)",
                        "count": "\(batch.count)",
                        "error": "\(error)",
                    ])
            }
        }
    }

    /// Applies live messages in order: duplicates skipped, gaps read from the stream first,
    /// each run of consecutive messages as one batch.
    private func applyLive(_ messages: [StreamMessage]) async throws {
        var run: [(message: StreamMessage, sequence: UInt64)] = []
        var next = try await loadedPosition() + 1
        for message in messages {
            guard let sequence = message.envelope.sequence else { continue }
            if sequence < next {
                state.withLock { $0.duplicates += 1 }
                continue
            }
            if sequence > next {
                try await applyBatch(run)
                run.removeAll()
                let position = try await loadedPosition()
                context.logger.warning(
                    "stream gap: reading the missing range",
                    metadata: ["stream": "\(stream)", "stream.position": "\(position)", "stream.seq": "\(sequence)"])
                try await fill(through: sequence - 1, counting: true)
                guard try await loadedPosition() == sequence - 1 else { return }  // the stream did not have it yet
            }
            run.append((message, sequence))
            next = sequence + 1
        }
        try await applyBatch(run)
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

    /// Forgets the position and the queued live messages (ownership changed: another instance
    /// may have moved the position in the store); the next catch-up reads it again.
    func forgetPosition() {
        state.withLock {
            $0.position = nil
            $0.queue.removeAll()
        }
    }

    /// Reads and applies everything the stream has beyond the position.
    func catchUp() async {
        do {
            try await lock.withLock { try await self.fill(through: .max, counting: false) }
        } catch {
            context.logger.warning(
                "stream catch-up failed; retrying", metadata: ["stream": "\(stream)", "error": "\(error)"])
        }
    }

    /// The position, read from the consumer when not known or when what it depends on changed
    /// (the partitions served: the follower must go back for a gained one that stands behind).
    private func loadedPosition() async throws -> UInt64 {
        let basis = consumer.positionBasis
        let known = state.value
        if let position = known.position, known.basis == basis { return position }
        let stored = try await consumer.position(of: stream)
        state.withLock {
            $0.position = stored
            $0.basis = basis
        }
        return stored
    }

    private func fill(through last: UInt64, counting: Bool) async throws {
        while true {
            let position = try await loadedPosition()
            guard position < last else { return }
            let page = try await read(position)
            state.withLock { $0.head = max($0.head, page.head) }
            if let first = page.first, first > position + 1 {
                try await recover(lost: (position + 1)...(first - 1))
                continue
            }
            // The page is the stream: its messages in order, whatever their numbers.
            var run: [(message: StreamMessage, sequence: UInt64)] = []
            var reachedLast = false
            for message in page.messages {
                guard let sequence = message.envelope.sequence, sequence > (run.last?.sequence ?? position) else {
                    continue
                }
                guard sequence <= last else {
                    reachedLast = true
                    break
                }
                run.append((message, sequence))
            }
            if run.isEmpty { return }
            try await applyBatch(run)
            if counting { state.withLock { $0.refetched += UInt64(run.count) } }
            if reachedLast { return }
        }
    }

    /// The stream pruned `lost` before this consumer read it: the consumer rebuilds from the
    /// state and moves its position past the range; loudly, never silently.
    private func recover(lost: ClosedRange<UInt64>) async throws {
        context.logger.error(
            "stream messages were pruned before this service read them; recovering from the state",
            metadata: ["stream": "\(stream)", "lost.first": "\(lost.lowerBound)", "lost.last": "\(lost.upperBound)"])
        do {
            try await consumer.recover(stream: stream, lost: lost, context: context)
        } catch {
            state.withLock { $0.position = nil }
            throw error
        }
        let count = lost.upperBound - lost.lowerBound + 1
        state.withLock {
            $0.position = nil  // re-read: the consumer recorded it
            $0.lost += count
        }
        Counter(
            label: MetricNames.streamMessagesLost,
            dimensions: [("service", context.settings.service), ("stream", stream)]
        )
        .increment(by: Int64(count))
    }

    private func applyBatch(_ run: [(message: StreamMessage, sequence: UInt64)]) async throws {
        guard let last = run.last?.sequence else { return }
        do {
            try await consumer.apply(batch: run, stream: stream, context: context)
        } catch {
            state.withLock { $0.position = nil }  // re-read: part of the batch may be stored
            throw error
        }
        state.withLock {
            $0.position = last
            $0.head = max($0.head, last)
            $0.applied += UInt64(run.count)
        }
    }
}
