import Foundation
import PodiumMessages
import PodiumTesting
import Testing

extension TestClient {
    /// Publishes events pipelined and waits for every acknowledgement.
    func play(_ game: String, _ events: [(String, Int64?, [String: JSONValue])]) async throws {
        let token: String?
        if case .token(let value) = currentCredential { token = value } else { token = nil }
        var ids = Set<String>()
        for (name, value, attributes) in events {
            var payload: [String: JSONValue] = ["name": .string(name), "attributes": .object(attributes)]
            if let value { payload["value"] = .integer(value) }
            let id = nextID()
            ids.insert(id)
            try await send(ClientRequest(type: .eventPublish, id: id, gameId: game, payload: .object(payload), token: token))
        }
        while !ids.isEmpty {
            let reply = try await nextReply()
            #expect(reply.type == .reply, "event refused: \(reply.payload)")
            ids.remove(reply.correlationId ?? "")
        }
    }

    func achievements(_ game: String) async throws -> AchievementList {
        try await request("achievement.list", gameId: game).decodePayload(as: AchievementList.self)
    }

    /// Waits until the achievement service has applied events so that `condition` holds.
    func waitForAchievements(_ game: String, _ condition: @escaping @Sendable (AchievementList) -> Bool) async throws -> AchievementList {
        let deadline = ContinuousClock.now + .seconds(15)
        var last = try await achievements(game)
        while !condition(last) && ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(25))
            last = try await achievements(game)
        }
        return last
    }

    func report(_ game: String, _ reports: [JSONValue]) async throws -> RawEnvelope {
        try await request("achievement.report", gameId: game, payload: ["reports": .array(reports)])
    }
}

extension AchievementList {
    func status(_ suffix: String) -> AchievementStatus? {
        achievements.first { $0.id.hasSuffix(suffix) }
    }
}

extension RawEnvelope {
    var outcomes: [ReportOutcome] {
        get throws { try decodePayload(as: [String: [ReportOutcome]].self)["outcomes"] ?? [] }
    }

    var errorCode: ErrorCode? {
        type == .error ? (try? decodePayload(as: ErrorReply.self))?.code : nil
    }
}
