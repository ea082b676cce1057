import Foundation
import Logging
import PodiumMessages
import ZeroMQ

/// A message received from the bus.
public struct BusDelivery: Sendable {
    public var topic: Topic
    public var envelope: RawEnvelope
    /// How its sequence number relates to what was seen before from its publisher.
    public var observation: SequenceTracker.Observation
}

/// Receives bus messages for a set of topic prefixes and checks their sequence numbers.
///
/// It also subscribes to the gateway's `bus/tick` heartbeat: the first tick proves the
/// subscription has reached the gateway, and a missing tick shows up as a gap like any message.
public final class BusSubscriber: Sendable {
    /// The topic of the gateway's bus heartbeat.
    public static let tickTopic = "bus/tick"

    public let prefixes: [String]
    private let socket: AsyncSocket

    public convenience init(
        context: ZMQContext, endpoint: String, prefixes: [String], name: String, security: [SocketOption] = []
    ) throws {
        try self.init(context: context, endpoints: [endpoint], prefixes: prefixes, name: name, security: security)
    }

    /// A subscriber connected to every hub (one per gateway). Each message then arrives once
    /// per hub; the copies after the first are recognised by their publisher and sequence
    /// (``SequenceTracker``) and dropped.
    public init(
        context: ZMQContext, endpoints: [String], prefixes: [String], name: String, security: [SocketOption] = []
    ) throws {
        self.prefixes = prefixes
        let subscriptions = (prefixes + [Self.tickTopic]).map { SocketOption.subscribe(Data($0.utf8)) }
        socket = try AsyncSocket(
            context: context, type: .subscriber, name: name,
            options: [.receiveHighWaterMark(100_000)] + security + subscriptions,
            connect: endpoints)
    }

    /// Delivers every well-formed message to `handle` until the subscriber is closed.
    /// Malformed messages are logged and skipped.
    public func run(
        logger: Logger,
        onTick: @Sendable () -> Void,
        onGap: @Sendable (_ publisher: String, _ missing: ClosedRange<UInt64>) -> Void,
        handle: @Sendable (BusDelivery) async -> Void
    ) async {
        var tracker = SequenceTracker()
        while true {
            // Everything the socket read and holds, in one hand-over.
            let messages: [ZMQMessage]
            do {
                guard let next = try await socket.receiveBatch() else { return }
                messages = next
            } catch {
                logger.error("bus receive failed", metadata: ["error": "\(error)"])
                return
            }
            for message in messages {
                await deliver(
                    message.frames, tracker: &tracker, logger: logger, onTick: onTick, onGap: onGap, handle: handle)
            }
        }
    }

    private func deliver(
        _ frames: [Data], tracker: inout SequenceTracker, logger: Logger, onTick: @Sendable () -> Void,
        onGap: @Sendable (_ publisher: String, _ missing: ClosedRange<UInt64>) -> Void,
        handle: @Sendable (BusDelivery) async -> Void
    ) async {
        guard frames.count == 2, let topicText = String(data: frames[0], encoding: .utf8) else {
            logger.warning("bus message dropped: expected [topic, envelope]", metadata: ["frames": "\(frames.count)"])
            return
        }
        let envelope: RawEnvelope
        do {
            envelope = try WireCodec.decode(RawEnvelope.self, from: frames[1])
        } catch {
            logger.warning("bus message dropped: undecodable envelope", metadata: ["topic": "\(topicText)"])
            return
        }
        let topic = Topic(rawValue: topicText)
        var observation = SequenceTracker.Observation.first
        if let publisher = envelope.publisher, let sequence = envelope.sequence {
            let family = topicText.prefix(while: { $0 != "/" })
            observation = tracker.observe(publisher: "\(publisher)/\(family)", sequence: sequence)
            if case .gap(let missing) = observation {
                logger.warning(
                    "bus gap detected",
                    metadata: [
                        "bus.publisher": "\(publisher)", "bus.family": "\(family)",
                        "bus.missing.first": "\(missing.lowerBound)", "bus.missing.last": "\(missing.upperBound)",
                    ])
                onGap(publisher, missing)
            }
        }
        if topicText == Self.tickTopic {
            onTick()
            return
        }
        if observation == .duplicate { return }
        await handle(BusDelivery(topic: topic, envelope: envelope, observation: observation))
    }

    /// Closes the socket; `run` returns.
    public func close() async {
        await socket.close()
    }
}
