import Foundation
import PodiumMessages
import ZeroMQ

/// A ZeroMQ DEALER used from its owner's thread only, blocking in `zmq_poll` while it waits: for
/// synchronous programs (the `podium` command), where blocking the thread blocks nothing else.
public final class BlockingDealerTransport: BlockingPodiumTransport {
    public let context: ZMQContext
    public let socket: ZMQSocket
    /// CURVE client options of this connection (empty without a server key): one key pair made
    /// for the connection, for other sockets of the same program to reuse (a subscriber).
    public let curveOptions: [SocketOption]

    /// Connects a DEALER; with `curveServerKey`, as a CURVE client with a fresh key pair.
    public init(endpoint: String, curveServerKey: CurveKey? = nil, options: [SocketOption] = []) throws {
        curveOptions = try curveServerKey.map { try CurveKeyPair.generate().clientOptions(server: $0) } ?? []
        context = try ZMQContext()
        socket = try context.makeSocket(.dealer)
        for option in options { try socket.set(option) }
        // Before connect: libzmq picks the security mechanism when the connection starts.
        for option in curveOptions { try socket.set(option) }
        try socket.connect(endpoint)
    }

    deinit { socket.close() }

    public func exchange(_ request: ClientRequest, timeout: Duration) throws -> ReceivedReply? {
        try send(request)
        let deadline = ContinuousClock.now + timeout
        while true {
            let remaining = deadline - ContinuousClock.now
            guard remaining > .zero, let body = try receive(timeout: remaining) else { return nil }
            if let reply = ReceivedReply(body: body), reply.envelope.correlationId == request.id { return reply }
        }
    }

    /// Sends a request without waiting (pipelining: read the replies with ``receive(timeout:)``).
    public func send(_ request: ClientRequest) throws {
        try socket.send([try WireCodec.encode(request)])
    }

    /// Sends bytes exactly as given, as one frame.
    public func sendRaw(_ body: Data) throws {
        try socket.send([body])
    }

    /// The last frame of the next message as received, or nil if none arrives within `timeout`.
    public func receive(timeout: Duration) throws -> Data? {
        let ready = try ZMQSocket.poll([(socket, .readable)], timeoutMilliseconds: timeout.pollMilliseconds)
        guard ready[0].contains(.readable), let frames = try socket.receive(wait: false) else { return nil }
        return frames.last ?? Data()
    }
}
