import Foundation
import PodiumMessages

/// What `register` and `login` share: send a public request that answers with a
/// ``SessionGrant``, then keep the grant in the session file.
enum SessionStart {
    static func request(
        _ type: MessageType, payload: some Encodable, gateway: GatewayOptions, file: SessionFile
    ) throws -> SessionGrant {
        let connection = try GatewayConnection(gateway)
        let request = ClientRequest(type: type, id: connection.nextRequestID(), payload: try WireCodec.jsonValue(payload))
        let (grant, _) = try connection.expectSuccess(request, as: SessionGrant.self, gateway: gateway)
        try file.save(grant)
        return grant
    }
}
