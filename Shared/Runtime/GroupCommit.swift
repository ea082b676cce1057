import DequeModule
import Metrics
import PodiumMessages

/// Group commit: callers queue items and wait; one writer at a time takes everything queued (up
/// to ``maximumBatch``) and handles it as one batch, typically one transaction and one fsync.
/// Items that arrive while a batch is being written form the next batch, so under load batches
/// grow by themselves and an idle caller waits for no timer.
///
/// Each caller gets the outcome of its own item, in the order the items were queued. The writer
/// runs in a task of its own and never blocks a thread while it waits.
public final class GroupCommit<Item: Sendable, Outcome: Sendable>: Sendable {
    public typealias Writer = @Sendable ([Item]) async -> [Outcome]

    private struct Waiting {
        let item: Item
        let continuation: CheckedContinuation<Outcome, Never>
    }

    private struct State {
        var queue = Deque<Waiting>()
        var writing = false
        /// How long the last batch took to write, for ``BacklogLimit``.
        var lastBatchMilliseconds: Int64 = 0
    }

    /// The most items one batch takes.
    public let maximumBatch: Int
    private let write: Writer
    private let state = Locked(State())

    private let batchSizes: Recorder
    private let durations: Metrics.Timer

    /// `write` must return one outcome per item, in order. `service` and `queue` name the batches
    /// in the metrics (`podium_group_commit_batch_size`, `podium_group_commit_duration_seconds`).
    public init(maximumBatch: Int, service: String, queue: String, write: @escaping Writer) {
        precondition(maximumBatch > 0, "a batch holds at least one item")
        self.maximumBatch = maximumBatch
        self.write = write
        let dimensions = [("service", service), ("queue", queue)]
        batchSizes = Recorder(label: MetricNames.groupCommitBatchSize, dimensions: dimensions, aggregate: true)
        durations = Metrics.Timer(label: MetricNames.groupCommitDuration, dimensions: dimensions)
    }

    /// Items queued and not yet taken by the writer.
    public var waiting: Int { state.withLock { $0.queue.count } }

    /// Queues `item` and returns its outcome once its batch has been written.
    public func submit(_ item: Item) async -> Outcome {
        await withCheckedContinuation { continuation in
            let startWriter = state.withLock { state -> Bool in
                state.queue.append(Waiting(item: item, continuation: continuation))
                if state.writing { return false }
                state.writing = true
                return true
            }
            if startWriter { Task { await self.writeQueued() } }
        }
    }

    /// Queues `item` as ``submit(_:)`` does, unless the queue is behind by more than `limit`
    /// allows: then refuses at once with `overloaded` and a retry hint, queueing nothing.
    public func submit(_ item: Item, within limit: BacklogLimit) async throws(ErrorReply) -> Outcome {
        let refusal = state.withLock { state in
            limit.refusal(
                waiting: state.queue.count, batchSize: maximumBatch, lastBatchMilliseconds: state.lastBatchMilliseconds)
        }
        if let refusal { throw refusal }
        return await submit(item)
    }

    private func writeQueued() async {
        while true {
            let batch = state.withLock { state -> [Waiting] in
                let batch = Array(state.queue.prefix(maximumBatch))
                state.queue.removeFirst(batch.count)
                if batch.isEmpty { state.writing = false }
                return batch
            }
            if batch.isEmpty { return }
            let started = ContinuousClock.now
            let outcomes = await write(batch.map(\.item))
            let took = ContinuousClock.now - started
            batchSizes.record(batch.count)
            durations.record(duration: took)
            state.withLock { $0.lastBatchMilliseconds = took.milliseconds }
            precondition(outcomes.count == batch.count, "a group commit writer returns one outcome per item")
            for (waiting, outcome) in zip(batch, outcomes) { waiting.continuation.resume(returning: outcome) }
        }
    }
}
