import Foundation
import PodiumMessages

/// What `register` and `login` share: send a public request that answers with a
/// ``SessionGrant``, then keep the grant in the session file.
enum SessionStart {
    static func request<Payload>(
        _ definition: RequestDefinition<Payload, SessionGrant>, payload: Payload, gateway: GatewayOptions,
        file: SessionFile
    ) throws -> SessionGrant {
        let connection = try GatewayConnection(gateway)
        let (grant, _) = try connection.expectSuccess(definition, payload, credential: .anonymous)
        try file.save(grant)
        return grant
    }
}
