import Foundation
import PodiumMessages

/// Conveniences for tests that play games through the gateway.
extension TestClient {
    /// Publishes events pipelined and waits for every acknowledgement; throws the first refusal.
    public func play(_ game: String, _ events: [(String, Int64?, [String: JSONValue])]) async throws {
        var ids = Set<String>()
        for (name, value, attributes) in events {
            let request = try client.request(
                GatewayRequests.publish, GameEvent(name: name, value: value, attributes: attributes), gameId: game)
            ids.insert(request.id)
            try await send(request)
        }
        while !ids.isEmpty {
            let reply = try await nextReply()
            if reply.type == .error { throw try reply.decodePayload(as: ErrorReply.self) }
            ids.remove(reply.correlationId ?? "")
        }
    }

    /// The player's achievements in a game.
    public func achievements(_ game: String) async throws -> AchievementList {
        try await call(AchievementRequests.list, gameId: game)
    }

    /// Waits (up to 15 s) until the achievement service has applied events so that `condition` holds.
    public func waitForAchievements(_ game: String, _ condition: @escaping @Sendable (AchievementList) -> Bool)
        async throws
        -> AchievementList
    {
        let deadline = ContinuousClock.now + .seconds(15)
        var last = try await achievements(game)
        while !condition(last) && ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(25))
            last = try await achievements(game)
        }
        return last
    }
}

extension AchievementList {
    /// The status of the achievement whose id ends with `suffix`.
    public func status(_ suffix: String) -> AchievementStatus? {
        achievements.first { $0.id.hasSuffix(suffix) }
    }
}

extension RawEnvelope {
    /// The error code of an `error` reply, or nil for a reply.
    public var errorCode: ErrorCode? {
        type == .error ? (try? decodePayload(as: ErrorReply.self))?.code : nil
    }
}
