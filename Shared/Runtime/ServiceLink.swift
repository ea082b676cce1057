import Foundation
import PodiumMessages
import ZeroMQ

/// A service's connection to one gateway's service ROUTER: requests come in, replies and
/// announcements go out. The DEALER's routing id is the instance id. With several gateways a
/// service has one link to each, and answers each request on the link it came from.
public final class ServiceLink: Sendable {
    /// The gateway endpoint this link connects to.
    public let endpoint: String
    private let socket: AsyncSocket
    /// What goes to the gateway (replies, questions, announcements), handed over in batches.
    private let sends: SendQueue
    private let monitor: SocketMonitor
    private let connected = Locked(false)

    public init(context: ZMQContext, endpoint: String, instanceID: String, security: [SocketOption] = []) throws {
        self.endpoint = endpoint
        let monitorEndpoint = SocketMonitor.makeEndpoint("service.link")
        socket = try AsyncSocket(
            context: context, type: .dealer, name: "service.link",
            options: [
                .routingID(Data(instanceID.utf8)),
                .heartbeatIntervalMilliseconds(1000), .heartbeatTimeoutMilliseconds(3000),
                .sendHighWaterMark(100_000), .receiveHighWaterMark(100_000), .lingerMilliseconds(1000),
            ] + security,
            connect: [endpoint], monitor: monitorEndpoint)
        monitor = try SocketMonitor(context: context, endpoint: monitorEndpoint)
        sends = SendQueue(socket: socket)
    }

    /// Whether the connection to the gateway is up (its handshake done, not disconnected since),
    /// as far as ``watch()`` has seen.
    public var isConnected: Bool { connected.value }

    /// Follows the connection's state until the link is closed or the task cancelled.
    public func watch() async {
        await monitor.run { [connected] event in
            switch event.kind {
            case .handshakeSucceeded: connected.withLock { $0 = true }
            case .disconnected, .handshakeFailed: connected.withLock { $0 = false }
            default: break
            }
        }
    }

    /// Sends one envelope to the gateway: queued, and handed to the socket with whatever else
    /// is queued (``SendQueue``). Throws only if it cannot be encoded.
    public func send<Payload>(_ envelope: Envelope<Payload>) async throws {
        sends.send([try WireCodec.encode(envelope)])
    }

    /// Everything the gateway sent that is waiting (at least one message); `nil` once closed.
    public func receiveBatch(maximum: Int = 256) async throws -> [ZMQMessage]? {
        try await socket.receiveBatch(maximum: maximum)
    }

    /// Closes the link once what is queued for the gateway has left (at most 2 s).
    public func close() async {
        await sends.waitUntilSent()
        await socket.close()
        await monitor.close()
    }
}
