import PodiumMessages
import PodiumRuntime

/// What the challenge service asks the other services (through the gateway), typed: the
/// boards and entries it challenges on, and the achievements.
enum ServiceQuestions {
    /// The board `boardId` of the game, as the leaderboard service has it now.
    static func board(_ boardId: String, gameId: String, context: ServiceContext) async throws -> LeaderboardDefinition
    {
        let list = try await context.call(LeaderboardRequests.boards, EmptyPayload(), gameId: gameId).leaderboards
        guard let board = list.first(where: { $0.id == boardId }) else {
            throw ErrorReply(
                code: .unknownBoard, message: "game '\(gameId)' has no leaderboard '\(boardId)'",
                field: "payload.boardId")
        }
        return board
    }

    /// The player's value on the board (nil: no entry).
    static func entry(_ boardId: String, gameId: String, playerId: String, context: ServiceContext) async throws
        -> Int64?
    {
        try await context.call(
            LeaderboardRequests.entry, BoardQuery(boardId: boardId), gameId: gameId, playerId: playerId
        ).entry?.value
    }

    /// The player's standing on the achievement.
    static func achievement(_ achievementId: String, gameId: String, playerId: String, context: ServiceContext)
        async throws -> AchievementStatus
    {
        let list = try await context.call(AchievementRequests.list, EmptyPayload(), gameId: gameId, playerId: playerId)
        guard let status = list.achievements.first(where: { $0.id == achievementId }) else {
            throw ErrorReply(
                code: .unknownAchievement, message: "game '\(gameId)' has no achievement '\(achievementId)'",
                field: "payload.achievementId")
        }
        return status
    }

    /// Whether the achievement can be earned again (false when unknown or unanswered).
    static func isRepeatable(_ achievementId: String, gameId: String, context: ServiceContext) async throws -> Bool {
        let list =
            (try? await context.call(AchievementRequests.definitions, EmptyPayload(), gameId: gameId))?.achievements
            ?? []
        return list.first(where: { $0.id == achievementId })?.repeatable ?? false
    }
}
