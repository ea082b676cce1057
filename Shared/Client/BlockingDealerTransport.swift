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
        let deadline = ContinuousClock.now + timeout
        // Not taken within the timeout (no connection to a gateway): no reply either.
        guard try send([try WireCodec.encode(request)], within: timeout) else { return nil }
        while true {
            let remaining = deadline - ContinuousClock.now
            guard remaining > .zero, let body = try receive(timeout: remaining) else { return nil }
            if let reply = ReceivedReply(body: body), reply.envelope.correlationId == request.id { return reply }
        }
    }

    /// How long a send waits for the socket to take a message before it fails.
    public var sendTimeout: Duration = .seconds(10)

    /// Sends a request without waiting for its reply (pipelining: read the replies with
    /// ``receive(timeout:)``); fails if the socket takes nothing within ``sendTimeout``.
    public func send(_ request: ClientRequest) throws {
        guard try send([try WireCodec.encode(request)], within: sendTimeout) else {
            throw NotTaken(timeout: sendTimeout)
        }
    }

    /// Sends bytes exactly as given, as one frame (fails like ``send(_:)``).
    public func sendRaw(_ body: Data) throws {
        guard try send([body], within: sendTimeout) else { throw NotTaken(timeout: sendTimeout) }
    }

    /// The socket took no message in time: a DEALER with no connection (a gateway that is not
    /// there, or a CURVE handshake it refused) has nowhere to queue one, and a blocking send would
    /// wait for a connection for ever.
    public struct NotTaken: Error, CustomStringConvertible {
        public let timeout: Duration
        public var description: String {
            "the gateway took no message within \(timeout) (is it there, and is the key right?)"
        }
    }

    /// Sends `frames` once the socket takes them, waiting at most `timeout`; false if it did not.
    private func send(_ frames: [Data], within timeout: Duration) throws -> Bool {
        let deadline = ContinuousClock.now + timeout
        while true {
            if try socket.send(frames, wait: false) { return true }
            let remaining = deadline - ContinuousClock.now
            guard remaining > .zero else { return false }
            _ = try ZMQSocket.poll(
                [(socket, .writable)], timeoutMilliseconds: min(remaining, .milliseconds(100)).pollMilliseconds)
        }
    }

    /// The last frame of the next message as received, or nil if none arrives within `timeout`.
    public func receive(timeout: Duration) throws -> Data? {
        let ready = try ZMQSocket.poll([(socket, .readable)], timeoutMilliseconds: timeout.pollMilliseconds)
        guard ready[0].contains(.readable), let frames = try socket.receive(wait: false) else { return nil }
        return frames.last ?? Data()
    }
}
