import Foundation
import Metrics
import PodiumMessages
import PodiumRuntime

/// The gateway's append-only event log (kept by an ``EventLogStore``): every acknowledged
/// `event.publish`, numbered 1, 2, 3… for good. The number is the event's sequence on the bus
/// (publisher ``StreamName/events``), so services catch up from here (`events.read`).
///
/// Group commit: events arriving while a transaction is being written wait for the next one,
/// and each transaction is one commit (one fsync). An event is acknowledged
/// only after its transaction committed. A request id already logged for the same game and
/// player returns the original acknowledgement and logs nothing.
final class EventLog: Sendable {
    /// One event waiting to be logged.
    struct Entry: Sendable {
        var event: EventLogEntry
        /// Called once with the outcome, after the commit (or the failure).
        var done: @Sendable (Result<EventAcknowledgement, ErrorReply>) async -> Void
    }

    let store: any EventLogStore
    private let state: Locked<State>
    /// Most events in one transaction.
    static let maximumBatch = 2000
    /// How far the log may fall behind its database before new events are refused with
    /// `overloaded` (well inside the clients' usual timeouts).
    static let backlog = BacklogLimit(maximumWaiting: 8 * maximumBatch, maximumWaitMilliseconds: 2_000)

    private struct State {
        var queue: [Entry] = []
        var writing = false
        var closed = false
        var head: UInt64
        /// How long the last batch took, for ``backlog``.
        var lastBatchMilliseconds: Int64 = 0
    }
    /// Wakes the writer (``serve(publish:)``) when events are queued; several wake-ups coalesce.
    private let batchSizes = Recorder(
        label: MetricNames.groupCommitBatchSize, dimensions: [("service", "gateway"), ("queue", "events")],
        aggregate: true)
    private let commitDurations = Metrics.Timer(
        label: MetricNames.groupCommitDuration, dimensions: [("service", "gateway"), ("queue", "events")])
    private let accepted = Counter(label: MetricNames.eventsAccepted)
    private let work: AsyncStream<Void>
    private let wake: AsyncStream<Void>.Continuation

    init(store: any EventLogStore) async throws {
        self.store = store
        let head = try await store.head()
        state = Locked(State(head: head))
        (work, wake) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
    }

    /// The last sequence logged.
    var head: UInt64 { state.value.head }

    /// Whether nothing is queued or being written.
    var isIdle: Bool { state.withLock { $0.queue.isEmpty && !$0.writing } }

    /// Queues an event for the writer; `entry.done` is called after its transaction. Once the
    /// writer was told to stop (``finish()``), or while the log is behind its database by more
    /// than ``backlog`` allows (`overloaded`, with a retry hint), the event is refused at once, unlogged.
    func append(_ entry: Entry) {
        let refusal = state.withLock { state -> ErrorReply? in
            guard !state.closed else {
                return ErrorReply(
                    code: .serviceUnavailable, message: "the gateway is shutting down; retry with the same id")
            }
            if let refusal = Self.backlog.refusal(
                waiting: state.queue.count, batchSize: Self.maximumBatch,
                lastBatchMilliseconds: state.lastBatchMilliseconds)
            {
                return refusal
            }
            state.queue.append(entry)
            return nil
        }
        if let refusal {
            Task { await entry.done(.failure(refusal)) }
        } else {
            wake.yield()
        }
    }

    /// The writer: writes what is queued, in batches of up to ``maximumBatch`` events per
    /// transaction, until ``finish()``; then writes what is still queued and returns. `publish`
    /// gets each batch's new events, in sequence order, before their acknowledgements go out.
    func serve(publish: @escaping @Sendable ([CommittedEvent]) async -> Void) async {
        var acknowledging: Task<Void, Never>?
        for await _ in work {
            acknowledging = await writeQueued(publish: publish, after: acknowledging)
        }
        acknowledging = await writeQueued(publish: publish, after: acknowledging)
        // Every acknowledgement is out before the writer says it is done.
        await acknowledging?.value
    }

    /// Refuses further events and lets the writer end once the queue is written.
    func finish() {
        state.withLock { $0.closed = true }
        wake.finish()
    }

    /// Writes what is queued; each batch's acknowledgements go out on a task of their own (after
    /// the previous batch's, so they leave in log order) while the next batch is written. Returns
    /// the last of those tasks.
    private func writeQueued(
        publish: @escaping @Sendable ([CommittedEvent]) async -> Void, after previous: Task<Void, Never>?
    ) async -> Task<Void, Never>? {
        var acknowledging = previous
        while true {
            let batch = state.withLock { state -> [Entry] in
                let batch = Array(state.queue.prefix(Self.maximumBatch))
                state.queue.removeFirst(batch.count)
                state.writing = !batch.isEmpty
                return batch
            }
            if batch.isEmpty { return acknowledging }
            let outcomes: [Result<EventAcknowledgement, ErrorReply>]
            var committed: [CommittedEvent] = []
            do {
                let started = ContinuousClock.now
                let written = try await store.append(batch.map(\.event))
                let took = ContinuousClock.now - started
                commitDurations.record(duration: took)
                state.withLock { $0.lastBatchMilliseconds = took.milliseconds }
                batchSizes.record(batch.count)
                var head: UInt64 = 0
                outcomes = written.map { outcome in
                    switch outcome {
                    case .logged(let acknowledgement, let event):
                        committed.append(event)
                        head = max(head, acknowledgement.sequence)
                        return .success(acknowledgement)
                    case .repeated(let acknowledgement): return .success(acknowledgement)
                    case .refused(let error): return .failure(error)
                    }
                }
                state.withLock { $0.head = max($0.head, head) }
                if !committed.isEmpty { accepted.increment(by: committed.count) }
            } catch let error as ErrorReply {
                outcomes = batch.map { _ in .failure(error) }
            } catch {
                let refusal = ErrorReply(
                    code: .storageUnavailable,
                    message: "the event log could not be written; nothing was acknowledged, retry with the same id")
                outcomes = batch.map { _ in .failure(refusal) }
            }
            if !committed.isEmpty { await publish(committed) }
            let before = acknowledging
            acknowledging = Task {
                await before?.value
                for (entry, outcome) in zip(batch, outcomes) { await entry.done(outcome) }
            }
        }
    }

    /// The acknowledgement of a logged request id, if any.
    func acknowledgement(gameId: String, playerId: String, requestId: String) async throws -> EventAcknowledgement? {
        try await store.acknowledgement(gameId: gameId, playerId: playerId, requestId: requestId)
    }

    /// Events after a sequence, as published.
    func page(after: UInt64, limit: Int) async throws -> StreamPage {
        try await store.page(after: after, limit: limit)
    }
}
