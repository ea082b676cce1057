/// The reply to `achievement.report`: what each report did; `duplicate: true` when the request id
/// was applied before and this is its original answer (docs/PROTOCOL.md 4.2).
public struct ProgressReportReply: Codable, Sendable, Equatable {
    public var outcomes: [ReportOutcome]
    public var duplicate: Bool?

    public init(outcomes: [ReportOutcome], duplicate: Bool? = nil) {
        self.outcomes = outcomes
        self.duplicate = duplicate
    }
}

/// The reply to `achievement.definitions`: a game's achievements (hidden ones left out for players).
public struct AchievementDefinitionList: Codable, Sendable, Equatable {
    public var achievements: [AchievementDefinition]
    public init(achievements: [AchievementDefinition]) { self.achievements = achievements }
}

/// The payload of `achievement.reset`: the confirmation, naming the game again. Kept as sent:
/// anything but `{"confirm": true, "gameId": <the request's game>}` is `confirmation_required`
/// (docs/PROTOCOL.md 11.3), whatever its JSON type.
public struct AchievementResetConfirmation: Codable, Sendable, Equatable {
    public var confirm: JSONValue?
    public var gameId: JSONValue?

    public init(confirm: Bool?, gameId: String?) {
        self.confirm = confirm.map(JSONValue.bool)
        self.gameId = gameId.map(JSONValue.string)
    }

    /// Whether it confirms a reset of `gameId`'s achievements.
    public func confirms(gameId expected: String?) -> Bool {
        confirm == .bool(true) && gameId?.stringValue != nil && gameId?.stringValue == expected
    }
}

/// The reply to `achievement.reset`: how many achievements the player's progress was removed from.
public struct AchievementResetReceipt: Codable, Sendable, Equatable {
    public var resetAchievements: Int
    public init(resetAchievements: Int) { self.resetAchievements = resetAchievements }
}

/// The payload and the reply of `achievement.admin.define`.
public struct AchievementDefinitionChange: Codable, Sendable, Equatable {
    public var definition: AchievementDefinition
    public init(definition: AchievementDefinition) { self.definition = definition }
}
