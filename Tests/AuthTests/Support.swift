import Foundation
import PodiumMessages
import PodiumTesting
import Testing

extension RawEnvelope {
    var grant: SessionGrant {
        get throws { try decodePayload(as: SessionGrant.self) }
    }
}

extension TestClient {
    func register(_ username: String, password: String = "correct horse battery") async throws -> RawEnvelope {
        try await request("auth.register", payload: ["username": .string(username), "password": .string(password)])
    }

    func login(_ username: String, password: String = "correct horse battery") async throws -> RawEnvelope {
        try await request("auth.login", payload: ["username": .string(username), "password": .string(password)])
    }

    /// Publishes an event as whoever the client's credential says.
    func publish(gameId: String = "dash", playerId: String? = nil, name: String = "cactus.hit") async throws -> RawEnvelope {
        try await request(.eventPublish, gameId: gameId, playerId: playerId, payload: ["name": .string(name), "value": 1])
    }
}

/// A fresh client that sends `token` with every request.
func client(_ stack: PodiumTestStack, token: String? = nil) throws -> TestClient {
    let client = try TestClient(endpoint: stack.endpoints.requests)
    if let token { client.use(.token(token)) }
    return client
}
