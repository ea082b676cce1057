import CZeroMQ
import Foundation

/// Connection events of one socket, as libzmq's socket monitor reports them.
public struct SocketEvent: Sendable, Equatable {
    public enum Kind: Sendable, Hashable {
        /// The security handshake of a connection failed; the peer's messages never arrive.
        /// `protocol`: malformed or wrong mechanism (a plain peer on a CURVE socket, a CURVE
        /// client with the wrong server key); `auth`: refused by the ZAP handler.
        case handshakeFailed(HandshakeFailure)
        case handshakeSucceeded
        case accepted
        case disconnected
        case other(Int32)
    }

    public enum HandshakeFailure: String, Sendable, Hashable {
        case noDetail = "no_detail"
        case `protocol`, auth
    }

    public var kind: Kind
    /// The event's value: for handshake failures the ZMTP error or ZAP status code.
    public var value: UInt32
    /// The socket's endpoint the event happened on.
    public var endpoint: String

    /// The events ``SocketMonitor`` asks for.
    static let mask: Int32 =
        ZMQ_EVENT_HANDSHAKE_FAILED_NO_DETAIL | ZMQ_EVENT_HANDSHAKE_FAILED_PROTOCOL | ZMQ_EVENT_HANDSHAKE_FAILED_AUTH
        | ZMQ_EVENT_HANDSHAKE_SUCCEEDED | ZMQ_EVENT_ACCEPTED | ZMQ_EVENT_DISCONNECTED

    /// Parses a monitor message: a 6-byte frame (event, 16 bits; value, 32 bits; both little
    /// endian as the host writes them) and the endpoint.
    static func parse(_ frames: [Data]) -> SocketEvent? {
        guard frames.count == 2, frames[0].count == 6 else { return nil }
        let bytes = [UInt8](frames[0])
        let event = Int32(UInt16(bytes[0]) | UInt16(bytes[1]) << 8)
        let value = UInt32(bytes[2]) | UInt32(bytes[3]) << 8 | UInt32(bytes[4]) << 16 | UInt32(bytes[5]) << 24
        let kind: Kind =
            switch event {
            case ZMQ_EVENT_HANDSHAKE_FAILED_NO_DETAIL: .handshakeFailed(.noDetail)
            case ZMQ_EVENT_HANDSHAKE_FAILED_PROTOCOL: .handshakeFailed(.protocol)
            case ZMQ_EVENT_HANDSHAKE_FAILED_AUTH: .handshakeFailed(.auth)
            case ZMQ_EVENT_HANDSHAKE_SUCCEEDED: .handshakeSucceeded
            case ZMQ_EVENT_ACCEPTED: .accepted
            case ZMQ_EVENT_DISCONNECTED: .disconnected
            default: .other(event)
            }
        return SocketEvent(kind: kind, value: value, endpoint: String(decoding: frames[1], as: UTF8.self))
    }
}

/// Reads the connection events of one socket (zmq_socket_monitor).
///
/// Start it with ``ZMQSocket/monitor(_:)`` (before the socket is handed to an ``AsyncSocket``
/// or ``ZMQProxy``, or with the `monitor` argument of ``AsyncSocket/init``), then read
/// ``events``.
public final class SocketMonitor: Sendable {
    /// The inproc endpoint libzmq publishes the events on.
    public let endpoint: String
    private let socket: AsyncSocket

    /// Connects to a monitor endpoint that a socket of the same context already publishes on.
    public init(context: ZMQContext, endpoint: String) throws {
        self.endpoint = endpoint
        socket = try AsyncSocket(
            context: context, type: .pair, name: "monitor", options: [.lingerMilliseconds(0)], connect: [endpoint])
    }

    /// A fresh inproc endpoint for one monitor.
    public static func makeEndpoint(_ name: String) -> String {
        "inproc://podium.monitor.\(name).\(UUID().uuidString)"
    }

    /// Calls `handle` for each event until ``close()``.
    public func run(_ handle: @Sendable (SocketEvent) async -> Void) async {
        while let frames = try? await socket.receive() {
            if let event = SocketEvent.parse(frames) { await handle(event) }
        }
    }

    public func close() async {
        await socket.close()
    }
}

extension ZMQSocket {
    /// Publishes this socket's connection events on an inproc endpoint for a ``SocketMonitor``.
    public func monitor(_ endpoint: String) throws {
        guard let handle = rawHandle else { throw ZMQError.socketClosed }
        if zmq_socket_monitor(handle, endpoint, SocketEvent.mask) != 0 {
            throw ZMQError.last("zmq_socket_monitor", endpoint)
        }
    }
}
