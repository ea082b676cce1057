import Foundation
import PodiumMessages
import PodiumRuntime
import Testing

@testable import Gateway

/// The event log's batch rules for stores that number a batch in one statement (PostgreSQL),
/// without a database: the same outcomes as ``EventNumbering`` applied one entry at a time.
@Suite("Event batch")
struct EventBatchTests {
    static func entry(_ requestId: String, player: String = "p1", value: Int64 = 1) -> EventLogEntry {
        let event = GameEvent(name: "tick", value: value)
        return EventLogEntry(
            gameId: "dash", playerId: player, requestId: requestId,
            fingerprint: "payload-\(value)",
            topic: .gameEvent(gameId: "dash", name: "tick"),
            envelope: Envelope(
                type: .eventPublish, id: "event-\(requestId)-\(player)", timestamp: 1_000, payload: event))
    }

    /// The outcomes EventNumbering gives for the same entries after `head`, one at a time.
    static func oneAtATime(_ entries: [EventLogEntry], head: UInt64, earlier: [Int: EventNumbering.Earlier])
        throws -> [EventLogOutcome]
    {
        var numbering = EventNumbering(head: head)
        return try entries.enumerated().map { index, entry in
            try numbering.admit(entry, earlier: numbering.earlierInBatch(entry) == nil ? earlier[index] : nil).outcome
        }
    }

    static func summary(_ outcomes: [EventLogOutcome]) -> [String] {
        outcomes.map { outcome in
            switch outcome {
            case .logged(let ack, let event):
                let envelope = try! WireCodec.decode(RawEnvelope.self, from: event.body)
                return
                    "logged \(ack.sequence) \(ack.eventId) bus:\(envelope.publisher ?? "-")/\(envelope.sequence ?? 0)"
            case .repeated(let ack): return "repeated \(ack.sequence) \(ack.duplicate == true)"
            case .refused(let error): return "refused \(error.code.rawValue)"
            }
        }
    }

    @Test("new events are numbered after the head in order; resends in the batch repeat, another payload is id_reused")
    func sameAsOneAtATime() throws {
        let logged = EventAcknowledgement(
            eventId: "old", topic: "game.dash.event.tick", publisher: StreamName.events, sequence: 7, acceptedAt: 5)
        let entries = [
            Self.entry("a"), Self.entry("b"), Self.entry("a"), Self.entry("a", value: 2), Self.entry("old"),
            Self.entry("old", value: 9), Self.entry("c", player: "p2"),
        ]
        let fingerprint = entries[4].fingerprint
        let earlier: [Int: EventNumbering.Earlier] = [4: (fingerprint, logged), 5: (fingerprint, logged)]
        let batch = try EventBatch(entries, earlier: earlier)
        #expect(batch.rows.map(\.entry.requestId) == ["a", "b", "c"])
        let outcomes = Self.summary(try batch.outcomes(after: 41))
        #expect(
            outcomes == [
                "logged 42 event-a-p1 bus:events/42", "logged 43 event-b-p1 bus:events/43", "repeated 42 true",
                "refused id_reused", "repeated 7 true", "refused id_reused", "logged 44 event-c-p2 bus:events/44",
            ])
        #expect(outcomes == Self.summary(try Self.oneAtATime(entries, head: 41, earlier: earlier)))
    }

    @Test("stored rows carry no sequence: the reader stamps the row's number")
    func rowsWithoutSequence() throws {
        let batch = try EventBatch([Self.entry("a")], earlier: [:])
        let stored = try WireCodec.decode(RawEnvelope.self, from: batch.rows[0].body)
        #expect(stored.sequence == nil)
        #expect(stored.publisher == StreamName.events)
    }
}

@Suite("Backlog limit")
struct BacklogLimitTests {
    let limit = BacklogLimit(maximumWaiting: 100, maximumWaitMilliseconds: 1_000)

    @Test(
        "a queue within its limits admits; too many waiting or too long a wait refuses with overloaded and a hint; less than a batch queued never refuses"
    )
    func refusals() throws {
        #expect(limit.refusal(waiting: 0, batchSize: 10, lastBatchMilliseconds: 0) == nil)
        #expect(limit.refusal(waiting: 99, batchSize: 10, lastBatchMilliseconds: 100) == nil)  // 10 batches x 100 ms
        let full = try #require(limit.refusal(waiting: 100, batchSize: 1000, lastBatchMilliseconds: 1))
        #expect(full.code == .overloaded)
        #expect(full.retryAfterMilliseconds == 50)
        let slow = try #require(limit.refusal(waiting: 30, batchSize: 10, lastBatchMilliseconds: 400))
        #expect(slow.code == .overloaded)
        #expect(slow.retryAfterMilliseconds == 1_200)  // 3 full batches ahead x 400 ms
        let stuck = try #require(limit.refusal(waiting: 10, batchSize: 10, lastBatchMilliseconds: 60_000))
        #expect(stuck.retryAfterMilliseconds == 5_000)
        // After an outage the last batch took a minute; with less than a batch queued writes
        // still queue (refusing them all would never write a batch and never renew that figure).
        #expect(limit.refusal(waiting: 0, batchSize: 10, lastBatchMilliseconds: 60_000) == nil)
        #expect(limit.refusal(waiting: 9, batchSize: 10, lastBatchMilliseconds: 60_000) == nil)
    }
}
