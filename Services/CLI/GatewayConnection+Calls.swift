import Foundation
import PodiumMessages

extension GatewayConnection {
    /// Sends a request and returns its reply; no reply in time is a ``CommandFailure``.
    func expectReply(_ request: ClientRequest, gateway: GatewayOptions) throws -> Reply {
        guard let reply = try call(request, timeoutMilliseconds: gateway.timeoutMilliseconds) else {
            throw CommandFailure.noReply(from: gateway.endpoint, within: gateway.timeout)
        }
        return reply
    }

    /// Sends a request and decodes its successful reply; an error reply is a ``ReplyFailure``.
    func expectSuccess<Value: Decodable>(
        _ request: ClientRequest, as type: Value.Type, gateway: GatewayOptions
    ) throws -> (Value, Reply) {
        let reply = try expectReply(request, gateway: gateway)
        guard reply.isSuccess else { throw ReplyFailure(reply) }
        guard let value = try? reply.envelope?.decodePayload(as: type) else {
            throw CommandFailure("the reply to \(request.type) is not a \(type): \(reply.text)")
        }
        return (value, reply)
    }
}
