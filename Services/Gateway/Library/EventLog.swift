import Foundation
import GRDB
import Metrics
import PodiumMessages
import PodiumRuntime

/// The gateway's append-only event log (`gateway-events.sqlite`): every acknowledged
/// `event.publish`, numbered 1, 2, 3… for good. The number is the event's sequence on the bus
/// (publisher ``StreamName/events``), so services catch up from here (`events.read`).
///
/// Group commit: events arriving while a transaction is being written wait for the next one,
/// and each transaction is one fsync (SQLite WAL, `synchronous=FULL`). An event is acknowledged
/// only after its transaction committed. A request id already logged for the same game and
/// player returns the original acknowledgement and logs nothing.
final class EventLog: Sendable {
    /// One event waiting to be logged.
    struct Entry: Sendable {
        var gameId: String
        var playerId: String
        var requestId: String
        var fingerprint: String
        var topic: Topic
        var envelope: Envelope<GameEvent>
        /// Called once with the outcome, after the commit (or the failure).
        var done: @Sendable (Result<EventAcknowledgement, ErrorReply>) async -> Void
    }

    /// A committed event ready for the bus.
    struct Committed: Sendable {
        var topic: String
        var body: Data
    }

    let location: URL
    private let database: DatabasePool
    private let state: Locked<State>
    /// Most events in one transaction.
    static let maximumBatch = 2000

    private struct State {
        var queue: [Entry] = []
        var writing = false
        var closed = false
        var head: UInt64
    }
    /// Wakes the writer (``serve(publish:)``) when events are queued; several wake-ups coalesce.
    private let batchSizes = Recorder(
        label: MetricNames.groupCommitBatchSize, dimensions: [("service", "gateway"), ("queue", "events")], aggregate: true)
    private let commitDurations = Metrics.Timer(
        label: MetricNames.groupCommitDuration, dimensions: [("service", "gateway"), ("queue", "events")])
    private let accepted = Counter(label: MetricNames.eventsAccepted)
    private let work: AsyncStream<Void>
    private let wake: AsyncStream<Void>.Continuation

    init(path: URL) throws {
        database = try DurableDatabase.open(at: path)
        location = path
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1-event-log") { db in
            try db.create(table: "event") { table in
                table.primaryKey("seq", .integer)
                table.column("game_id", .text).notNull()
                table.column("player_id", .text).notNull()
                table.column("request_id", .text).notNull()
                table.column("fingerprint", .text).notNull()
                table.column("event_id", .text).notNull()
                table.column("topic", .text).notNull()
                table.column("accepted_at", .integer).notNull()
                table.column("envelope", .blob).notNull()
                table.uniqueKey(["game_id", "player_id", "request_id"])
            }
        }
        try migrator.migrate(database)
        let head = try database.read { db in try Int64.fetchOne(try db.cachedStatement(sql: "SELECT IFNULL(MAX(seq), 0) FROM event")) ?? 0 }
        state = Locked(State(head: UInt64(head)))
        (work, wake) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
    }

    /// The last sequence logged.
    var head: UInt64 { state.value.head }

    /// Whether nothing is queued or being written.
    var isIdle: Bool { state.withLock { $0.queue.isEmpty && !$0.writing } }

    /// Queues an event for the writer; `entry.done` is called after its transaction. Once the
    /// writer was told to stop (``finish()``), the event is refused at once, unlogged.
    func append(_ entry: Entry) {
        let accepted = state.withLock { state -> Bool in
            guard !state.closed else { return false }
            state.queue.append(entry)
            return true
        }
        if accepted {
            wake.yield()
        } else {
            Task {
                await entry.done(
                    .failure(ErrorReply(code: .serviceUnavailable, message: "the gateway is shutting down; retry with the same id")))
            }
        }
    }

    /// The writer: writes what is queued, in batches of up to ``maximumBatch`` events per
    /// transaction, until ``finish()``; then writes what is still queued and returns. `publish`
    /// gets each batch's new events, in sequence order, before their acknowledgements go out.
    func serve(publish: @escaping @Sendable ([Committed]) async -> Void) async {
        for await _ in work {
            await writeQueued(publish: publish)
        }
        await writeQueued(publish: publish)
    }

    /// Refuses further events and lets the writer end once the queue is written.
    func finish() {
        state.withLock { $0.closed = true }
        wake.finish()
    }

    private func writeQueued(publish: @escaping @Sendable ([Committed]) async -> Void) async {
        while true {
            let (batch, head) = state.withLock { state -> ([Entry], UInt64) in
                let batch = Array(state.queue.prefix(Self.maximumBatch))
                state.queue.removeFirst(batch.count)
                state.writing = !batch.isEmpty
                return (batch, state.head)
            }
            if batch.isEmpty { return }
            let outcomes: [Result<EventAcknowledgement, ErrorReply>]
            var committed: [Committed] = []
            do {
                let started = ContinuousClock.now
                let written = try await database.write { db in try Self.write(batch, after: head, in: db) }
                commitDurations.record(duration: ContinuousClock.now - started)
                batchSizes.record(batch.count)
                outcomes = written.outcomes
                committed = written.committed
                state.withLock { $0.head = written.head }
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
            for (entry, outcome) in zip(batch, outcomes) { await entry.done(outcome) }
        }
    }

    private static func write(_ batch: [Entry], after head: UInt64, in db: Database)
        throws -> (outcomes: [Result<EventAcknowledgement, ErrorReply>], committed: [Committed], head: UInt64)
    {
        var next = head
        var outcomes: [Result<EventAcknowledgement, ErrorReply>] = []
        var committed: [Committed] = []
        var inBatch: [String: (fingerprint: String, acknowledgement: EventAcknowledgement)] = [:]
        let insert = try db.cachedStatement(
            sql: """
                INSERT INTO event (seq, game_id, player_id, request_id, fingerprint, event_id, topic, accepted_at, envelope)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                """)
        for entry in batch {
            let key = "\(entry.gameId)\u{0}\(entry.playerId)\u{0}\(entry.requestId)"
            let earlier = try inBatch[key] ?? find(gameId: entry.gameId, playerId: entry.playerId, requestId: entry.requestId, in: db)
            if let earlier {
                guard earlier.fingerprint == entry.fingerprint else {
                    outcomes.append(.failure(RequestReceipts.reused(entry.requestId)))
                    continue
                }
                var repeated = earlier.acknowledgement
                repeated.duplicate = true
                outcomes.append(.success(repeated))
                continue
            }
            next += 1
            var envelope = entry.envelope
            envelope.publisher = StreamName.events
            envelope.sequence = next
            let body = try WireCodec.encode(envelope)
            try insert.execute(arguments: [
                Int64(next), entry.gameId, entry.playerId, entry.requestId, entry.fingerprint, envelope.id, entry.topic.rawValue,
                envelope.timestamp, body,
            ])
            let acknowledgement = EventAcknowledgement(
                eventId: envelope.id, topic: entry.topic.rawValue, publisher: StreamName.events, sequence: next,
                acceptedAt: envelope.timestamp)
            inBatch[key] = (entry.fingerprint, acknowledgement)
            outcomes.append(.success(acknowledgement))
            committed.append(Committed(topic: entry.topic.rawValue, body: body))
        }
        return (outcomes, committed, next)
    }

    private static func find(gameId: String, playerId: String, requestId: String, in db: Database) throws
        -> (fingerprint: String, acknowledgement: EventAcknowledgement)?
    {
        try Row.fetchOne(
            try db.cachedStatement(sql: "SELECT seq, fingerprint, event_id, topic, accepted_at FROM event WHERE game_id = ? AND player_id = ? AND request_id = ?"),
            arguments: [gameId, playerId, requestId]
        ).map { row in
            (
                row["fingerprint"],
                EventAcknowledgement(
                    eventId: row["event_id"], topic: row["topic"], publisher: StreamName.events, sequence: UInt64(row["seq"] as Int64),
                    acceptedAt: row["accepted_at"])
            )
        }
    }

    /// The acknowledgement of a logged request id, if any.
    func acknowledgement(gameId: String, playerId: String, requestId: String) async throws -> EventAcknowledgement? {
        try await database.read { db in try Self.find(gameId: gameId, playerId: playerId, requestId: requestId, in: db)?.acknowledgement }
    }

    /// Events after a sequence, as published.
    func page(after: UInt64, limit: Int) async throws -> StreamPage {
        try await database.read { db in
            let rows = try Row.fetchAll(
                try db.cachedStatement(sql: "SELECT topic, envelope FROM event WHERE seq > ? ORDER BY seq LIMIT ?"),
                arguments: [Int64(clamping: after), limit])
            let messages = try rows.map { row in
                StreamMessage(topic: row["topic"], envelope: try WireCodec.decode(RawEnvelope.self, from: row["envelope"] as Data))
            }
            let head = try Int64.fetchOne(try db.cachedStatement(sql: "SELECT IFNULL(MAX(seq), 0) FROM event")) ?? 0
            return StreamPage(messages: messages, head: UInt64(head))
        }
    }
}
