import Foundation
import PodiumClient
import PodiumMessages
import PodiumTesting
import Testing

extension TestClient {
    func report(_ game: String, _ reports: [ProgressReport], playerId: String? = nil) async throws -> PodiumReply<
        ProgressReportReply
    > {
        try await exchange(
            AchievementRequests.report, ProgressReportBatch(reports: reports), gameId: game, playerId: playerId)
    }

    /// A batch as hand-built JSON, for reports no typed one can express (wrong types, missing fields).
    func reportMalformed(_ game: String, _ reports: [JSONValue]) async throws -> RawEnvelope {
        try await request(AchievementRequests.report.type, gameId: game, payload: ["reports": .array(reports)])
    }
}

extension PodiumReply where Value == ProgressReportReply {
    /// The outcomes of a successful report (an error reply throws).
    var outcomes: [ReportOutcome] {
        get throws { try value().outcomes }
    }
}
