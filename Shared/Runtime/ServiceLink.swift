import Foundation
import PodiumMessages
import ZeroMQ

/// A service's connection to the gateway's service ROUTER: requests come in, replies and
/// announcements go out. The DEALER's routing id is the instance id.
public final class ServiceLink: Sendable {
    private let socket: AsyncSocket

    public init(context: ZMQContext, endpoint: String, instanceID: String, security: [SocketOption] = []) throws {
        socket = try AsyncSocket(
            context: context, type: .dealer, name: "service.link",
            options: [
                .routingID(Data(instanceID.utf8)),
                .heartbeatIntervalMilliseconds(1000), .heartbeatTimeoutMilliseconds(3000),
                .sendHighWaterMark(100_000), .receiveHighWaterMark(100_000), .lingerMilliseconds(1000),
            ] + security,
            connect: [endpoint])
    }

    /// Sends one envelope to the gateway.
    public func send<Payload>(_ envelope: Envelope<Payload>) async throws {
        try await socket.send([try WireCodec.encode(envelope)])
    }

    /// The next frame set from the gateway; `nil` once closed.
    public func receive() async throws -> [Data]? {
        try await socket.receive()
    }

    public func close() async {
        await socket.close()
    }
}
