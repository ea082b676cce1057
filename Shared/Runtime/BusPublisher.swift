import Foundation
import PodiumMessages
import Synchronization
import ZeroMQ

/// Publishes envelopes on the bus, stamping each with this process's publisher id and the next
/// sequence number of its topic family.
///
/// Sequence numbers count per publisher and per topic family (the topic's first segment:
/// `event`, `notify`, `bus`), so a subscriber to a whole family sees 1, 2, 3… and can tell a
/// lost message from one it filtered out. The socket is an XPUB connected to the gateway's
/// XSUB: subscriptions flowing back up tell it when someone downstream is listening.
public actor BusPublisher {
    /// This publisher's id, stamped on every message.
    public nonisolated let publisherID: String
    private let socket: AsyncSocket
    private let clock: any PodiumClock
    private var sequences: [Substring: UInt64] = [:]
    private let downstream = Locked(false)

    /// `security`: CURVE client options for a bus that has them (``BusSecurity/memberOptions``).
    public init(
        context: ZMQContext, endpoint: String, publisherID: String, clock: any PodiumClock,
        security: [SocketOption] = []
    ) throws {
        try self.init(
            context: context, endpoints: [endpoint], publisherID: publisherID, clock: clock, security: security)
    }

    /// A publisher connected to every hub (one per gateway): each message goes to each hub, whose
    /// subscribers drop the second copy by its sequence number.
    public init(
        context: ZMQContext, endpoints: [String], publisherID: String, clock: any PodiumClock,
        security: [SocketOption] = []
    ) throws {
        self.publisherID = publisherID
        self.clock = clock
        self.socket = try AsyncSocket(
            context: context, type: .extendedPublisher, name: "bus.publisher",
            options: [.sendHighWaterMark(100_000), .lingerMilliseconds(1000)] + security,
            connect: endpoints)
    }

    /// Notices downstream subscriptions until the publisher is closed (a loop of its own: run it
    /// as a ``LoopService``, or beside whatever uses the publisher).
    public nonisolated func watchSubscriptions() async {
        while let frames = try? await socket.receive() {
            if frames.first?.first == 1 { downstream.withLock { $0 = true } }
        }
    }

    /// Whether at least one subscription from downstream has reached this publisher.
    public nonisolated var hasSubscribers: Bool { downstream.withLock { $0 } }

    /// Stamps and publishes one message; returns the envelope as published.
    @discardableResult
    public func publish<Payload>(_ envelope: Envelope<Payload>, on topic: Topic) async throws -> Envelope<Payload> {
        var stamped = envelope
        let family = topic.rawValue.prefix(while: { $0 != "/" })
        let next = (sequences[family] ?? 0) + 1
        sequences[family] = next
        stamped.publisher = publisherID
        stamped.sequence = next
        let body = try WireCodec.encode(stamped)
        // The send is queued before this actor can run another publish, so wire order is sequence order.
        try await socket.send([topic.frame, body])
        return stamped
    }

    /// Publishes messages already stamped by a durable stream (the event log, an outbox), whose
    /// sequence is their position in that stream rather than this publisher's count: in order,
    /// with one hand-over to the socket. Returns how many the socket refused (only when closed).
    @discardableResult
    public func publishRaw(_ messages: [(topic: String, body: Data)]) async -> Int {
        await socket.send(batch: messages.map { [Data($0.topic.utf8), $0.body] }).count
    }

    /// Builds, stamps and publishes a message.
    @discardableResult
    public func publish<Payload>(
        type: MessageType, topic: Topic, payload: Payload, gameId: String? = nil, playerId: String? = nil,
        correlationId: String? = nil
    ) async throws -> Envelope<Payload> {
        let envelope = Envelope(
            type: type, correlationId: correlationId, gameId: gameId, playerId: playerId,
            timestamp: clock.nowMilliseconds, payload: payload)
        return try await publish(envelope, on: topic)
    }

    /// Closes the socket; messages already queued get the socket's linger to leave.
    public func close() async {
        await socket.close()
    }
}
