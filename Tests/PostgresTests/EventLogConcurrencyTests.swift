import Foundation
import Gateway
import GatewayPostgres
import Logging
import PodiumMessages
import PodiumPostgres
import PodiumRuntime
import Testing

/// The event log on a real PostgreSQL server with several writers at once (as several gateways
/// would be): sequences have no gaps and no repeats, follow the order batches committed, and a
/// request id logged by one writer is a duplicate for the others. (In the serialized suite of
/// the outage test, which stops the server.)
extension PostgresServerTests {
    static func entry(_ requestId: String, player: String = "p1") -> EventLogEntry {
        let event = GameEvent(name: "concurrency.test")
        return EventLogEntry(
            gameId: "dash", playerId: player, requestId: requestId, fingerprint: "fp-\(requestId)",
            topic: Topic.gameEvent(gameId: "dash", name: event.name),
            envelope: Envelope(
                type: .gameEvent, correlationId: requestId, gameId: "dash", playerId: player, timestamp: 1,
                payload: event))
    }

    @Test(
        "the event log: four writers with their own pools append 800 events: sequences 1...800 exactly once, in commit order"
    )
    func concurrentWriters() async throws {
        let settings = try await PostgresCluster.settings(schema: "eventlog_\(UInt32.random(in: 0 ... .max))")
        var stores: [GatewayStorage] = []
        for _ in 0..<4 { stores.append(try await GatewayStorage.postgres(settings, logger: Logger(label: "test"))) }
        defer { for store in stores { Task { await store.eventLog.close() } } }
        let logs = stores.map(\.eventLog)
        let acknowledged = try await withThrowingTaskGroup(of: [UInt64].self) { group in
            for (writer, log) in logs.enumerated() {
                group.addTask {
                    var sequences: [UInt64] = []
                    for batch in 0..<20 {
                        let entries = (0..<10).map { Self.entry("w\(writer)-b\(batch)-e\($0)") }
                        for outcome in try await log.append(entries) {
                            guard case .logged(let acknowledgement, _) = outcome else {
                                Issue.record("a new request id was not logged: \(outcome)")
                                continue
                            }
                            sequences.append(acknowledgement.sequence)
                        }
                    }
                    // Within one writer, later batches get later sequences.
                    #expect(sequences == sequences.sorted())
                    return sequences
                }
            }
            var all: [UInt64] = []
            for try await sequences in group { all += sequences }
            return all
        }
        #expect(acknowledged.sorted() == Array(1...800), "every sequence from 1 to 800 exactly once")
        #expect(try await logs[0].head() == 800)
        let page = try await logs[1].page(after: 0, limit: 1000)
        #expect(page.messages.map { $0.envelope.sequence } == (1...800).map { UInt64($0) })

        // A request id one writer logged is a duplicate for another, with the original sequence.
        let original = try #require(
            try await logs[2].acknowledgement(gameId: "dash", playerId: "p1", requestId: "w0-b0-e0"))
        let again = try await logs[3].append([Self.entry("w0-b0-e0")])
        guard case .repeated(let repeated) = again.first else {
            Issue.record("a logged request id was logged again: \(again)")
            return
        }
        #expect(repeated.sequence == original.sequence)
        #expect(repeated.duplicate == true)
        var changed = Self.entry("w0-b0-e0")
        changed.fingerprint = "another payload"
        guard case .refused(let refusal) = try await logs[3].append([changed]).first else {
            Issue.record("the same id with another payload was not refused")
            return
        }
        #expect(refusal.code == .idReused)
        #expect(try await logs[3].head() == 800)
    }
}
