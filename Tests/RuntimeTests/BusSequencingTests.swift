import Foundation
import Logging
import PodiumMessages
import PodiumRuntime
import Testing
import ZeroMQ

/// The bus publisher and subscriber over real sockets and a real XSUB/XPUB hub.
@Suite("Bus sequencing")
struct BusSequencingTests {
    final class Hub: Sendable {
        let context: ZMQContext
        let proxy: ZMQProxy
        let input: String
        let output: String

        init() throws {
            context = try ZMQContext()
            let id = UUID().uuidString
            input = "inproc://test.bus.in.\(id)"
            output = "inproc://test.bus.out.\(id)"
            let xsub = try context.makeSocket(.extendedSubscriber)
            let xpub = try context.makeSocket(.extendedPublisher)
            try xsub.bind(input)
            try xpub.bind(output)
            proxy = try ZMQProxy(context: context, name: "test", frontend: xsub, backend: xpub)
        }
    }

    struct Received: Sendable {
        var deliveries: [BusDelivery] = []
        var gaps: [ClosedRange<UInt64>] = []
        var ticks = 0
    }

    @Test("messages arrive in order with contiguous sequences per family, and a skipped number is reported as a gap")
    func sequencesAndGaps() async throws {
        let hub = try Hub()
        let publisher = try BusPublisher(
            context: hub.context, endpoint: hub.input, publisherID: "pub-1", clock: SystemClock())
        let watch = Task { await publisher.watchSubscriptions() }
        let subscriber = try BusSubscriber(
            context: hub.context, endpoint: hub.output, prefixes: ["event/", "notify/"], name: "test")
        let received = Locked(Received())
        let logger = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })
        let consumer = Task {
            await subscriber.run(
                logger: logger,
                onTick: { received.withLock { $0.ticks += 1 } },
                onGap: { _, missing in received.withLock { $0.gaps.append(missing) } },
                handle: { delivery in received.withLock { $0.deliveries.append(delivery) } })
        }
        // Wait until the subscription has reached the publisher (ticks prove the path end to end).
        for _ in 0..<400 where !publisher.hasSubscribers { try await Task.sleep(for: .milliseconds(10)) }
        try #require(publisher.hasSubscribers)
        var published: [Envelope<GameEvent>] = []
        for index in 1...5 {
            published.append(
                try await publisher.publish(
                    type: .gameEvent, topic: .gameEvent(gameId: "g", name: "e"),
                    payload: GameEvent(name: "e", value: Int64(index)),
                    gameId: "g", playerId: "p"))
        }
        let note = try await publisher.publish(
            type: .notification, topic: .notification(gameId: "g", playerId: "p"),
            payload: PlayerNotification(kind: "k", message: "m"), gameId: "g", playerId: "p")
        #expect(published.map(\.sequence) == [1, 2, 3, 4, 5])
        #expect(published.allSatisfy { $0.publisher == "pub-1" })
        #expect(note.sequence == 1, "each topic family counts on its own")

        // A raw publisher that skips sequence 2 → the subscriber reports the gap.
        let raw = try hub.context.makeSocket(.publisher)
        defer { raw.close() }
        try raw.connect(hub.input)
        try await Task.sleep(for: .milliseconds(200))
        for sequence: UInt64 in [1, 3] {
            let envelope = Envelope(
                type: .gameEvent, id: "raw-\(sequence)", timestamp: 0, publisher: "raw", sequence: sequence,
                payload: GameEvent(name: "x"))
            try raw.send([Data("event/g/x".utf8), try WireCodec.encode(envelope)])
        }
        let settled = await waitFor { received.value.deliveries.count == 8 }
        #expect(settled)
        await subscriber.close()
        await consumer.value
        await publisher.close()
        await watch.value
        await hub.proxy.stop()

        let result = received.value
        #expect(result.deliveries.prefix(5).map(\.envelope.sequence) == [1, 2, 3, 4, 5])
        #expect(result.deliveries[5].topic.rawValue == "notify/g/p")
        #expect(result.gaps == [2...2])
        #expect(result.deliveries.last?.observation == .gap(missing: 2...2))
    }

    private func waitFor(_ condition: () -> Bool) async -> Bool {
        for _ in 0..<500 {
            if condition() { return true }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return condition()
    }
}
