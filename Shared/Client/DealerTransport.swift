import Foundation
import PodiumMessages
import ZeroMQ

/// A ZeroMQ DEALER connected to the gateway's request endpoint, driven by its own thread
/// (``AsyncSocket``), so that waiting for a reply never blocks Swift's cooperative pool.
public final class DealerTransport: PodiumTransport {
    public let socket: AsyncSocket

    /// Connects a DEALER; with `curveServerKey`, as a CURVE client with a fresh key pair.
    public init(
        endpoint: String, context: ZMQContext? = nil, curveServerKey: CurveKey? = nil, name: String = "podium.client",
        options: [SocketOption] = [.lingerMilliseconds(0)]
    ) throws {
        let curve = try curveServerKey.map { try CurveKeyPair.generate().clientOptions(server: $0) } ?? []
        socket = try AsyncSocket(
            context: try context ?? ZMQContext(), type: .dealer, name: name, options: options + curve,
            connect: [endpoint])
    }

    public func exchange(_ request: ClientRequest, timeout: Duration) async throws -> ReceivedReply? {
        try await send(request)
        let deadline = ContinuousClock.now + timeout
        while true {
            guard let reply = try await nextReply(until: deadline) else { return nil }
            if reply.envelope.correlationId == request.id { return reply }
        }
    }

    /// Sends a request without waiting (pipelining: read the replies with ``nextReply(until:)``).
    public func send(_ request: ClientRequest) async throws {
        try await socket.send([try WireCodec.encode(request)])
    }

    /// The next reply, whatever it answers; nil when none arrives by `deadline`. A message that
    /// is not one envelope frame is skipped.
    public func nextReply(until deadline: ContinuousClock.Instant) async throws -> ReceivedReply? {
        while true {
            guard let frames = try await nextFrames(until: deadline) else { return nil }
            if frames.count == 1, let reply = ReceivedReply(body: frames[0]) { return reply }
        }
    }

    /// The next message's frames as received; nil when none arrives by `deadline`.
    public func nextFrames(until deadline: ContinuousClock.Instant) async throws -> [Data]? {
        let socket = self.socket
        return try await withThrowingTaskGroup(of: Received.self) { group in
            group.addTask {
                guard let frames = try await socket.receive() else { throw Closed(name: socket.name) }
                return .frames(frames)
            }
            group.addTask {
                try await Task.sleep(until: deadline)
                return .timedOut
            }
            let first = try await group.next()
            group.cancelAll()
            if case .frames(let frames) = first { return frames }
            // Timed out: a message the receiver took meanwhile is returned, not lost.
            while let next = try? await group.next() {
                if case .frames(let frames) = next { return frames }
            }
            return nil
        }
    }

    public func close() async { await socket.close() }

    /// The socket was closed while a reply was awaited.
    public struct Closed: Error, Sendable, CustomStringConvertible {
        public let name: String
        public var description: String { "the socket \(name) is closed" }
    }

    private enum Received: Sendable {
        case frames([Data])
        case timedOut
    }
}
