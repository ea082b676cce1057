import Foundation
import PodiumMessages
import PodiumTesting
import Testing

extension TestClient {
    func report(_ game: String, _ reports: [JSONValue]) async throws -> RawEnvelope {
        try await request("achievement.report", gameId: game, payload: ["reports": .array(reports)])
    }
}

