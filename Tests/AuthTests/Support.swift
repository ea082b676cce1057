import Foundation
import PodiumClient
import PodiumMessages
import PodiumTesting
import Testing

extension PodiumReply where Value == SessionGrant {
    var grant: SessionGrant {
        get throws { try value() }
    }
}

extension TestClient {
    func register(_ username: String, password: String = "correct horse battery") async throws -> PodiumReply<
        SessionGrant
    > {
        try await exchange(AuthRequests.register, Registration(username: username, password: password))
    }

    func login(_ username: String, password: String = "correct horse battery") async throws -> PodiumReply<SessionGrant>
    {
        try await exchange(AuthRequests.login, PasswordLogin(username: username, password: password))
    }

    /// Publishes an event as whoever the client's credential says.
    func publish(gameId: String = "dash", playerId: String? = nil, name: String = "cactus.hit") async throws
        -> PodiumReply<EventAcknowledgement>
    {
        try await exchange(GatewayRequests.publish, GameEvent(name: name, value: 1), gameId: gameId, playerId: playerId)
    }
}

/// A fresh client that sends `token` with every request.
func client(_ stack: PodiumTestStack, token: String? = nil) throws -> TestClient {
    let client = try TestClient(endpoint: stack.endpoints.requests)
    if let token { client.use(.token(token)) }
    return client
}
