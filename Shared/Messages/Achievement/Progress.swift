/// One progress report (`achievement.report`): percent complete (0-100) or steps.
public struct ProgressReport: Codable, Sendable, Equatable {
    public var achievementId: String
    /// 0-100.
    public var percentComplete: Double?
    /// Steps out of the achievement's target.
    public var steps: Int64?
    /// The client's id for this report; the same id again changes nothing and returns the first outcome.
    public var reportId: String?

    public init(achievementId: String, percentComplete: Double? = nil, steps: Int64? = nil, reportId: String? = nil) {
        self.achievementId = achievementId
        self.percentComplete = percentComplete
        self.steps = steps
        self.reportId = reportId
    }
}

/// The payload of `achievement.report`: up to 100 reports, applied in order.
public struct ProgressReportBatch: Codable, Sendable, Equatable {
    public var reports: [ProgressReport]

    public init(reports: [ProgressReport]) { self.reports = reports }
}

/// What one report did.
public struct ReportOutcome: Codable, Sendable, Equatable {
    /// `progressed`, `earned`, `earned_again`, `ignored_lower` (not above the current progress),
    /// `ignored_earned` (already earned and not repeatable), or `duplicate` (this reportId was seen).
    public var status: String
    public var achievementId: String
    public var percentComplete: Double
    public var steps: Int64
    public var target: Int64
    public var earned: Bool
    public var timesEarned: Int

    public init(
        status: String, achievementId: String, percentComplete: Double, steps: Int64, target: Int64, earned: Bool,
        timesEarned: Int
    ) {
        self.status = status
        self.achievementId = achievementId
        self.percentComplete = percentComplete
        self.steps = steps
        self.target = target
        self.earned = earned
        self.timesEarned = timesEarned
    }
}

/// One entry of `achievement.list`: a definition merged with the player's progress. A hidden
/// achievement without progress shows only its id and `hidden: true`.
public struct AchievementStatus: Codable, Sendable, Equatable {
    public var id: String
    public var hidden: Bool
    public var title: String?
    /// The earned description once earned, the other one before.
    public var description: String?
    public var points: Int?
    public var image: String?
    public var percentComplete: Double?
    public var steps: Int64?
    public var target: Int64?
    public var earned: Bool
    /// When it was (last) earned, ms since the epoch.
    public var earnedAt: Int64?
    public var timesEarned: Int
    /// Of the players with any achievement record in this game, the percentage who earned it.
    public var percentOfPlayersEarned: Double?

    public init(
        id: String, hidden: Bool, title: String? = nil, description: String? = nil, points: Int? = nil,
        image: String? = nil,
        percentComplete: Double? = nil, steps: Int64? = nil, target: Int64? = nil, earned: Bool = false,
        earnedAt: Int64? = nil,
        timesEarned: Int = 0, percentOfPlayersEarned: Double? = nil
    ) {
        self.id = id
        self.hidden = hidden
        self.title = title
        self.description = description
        self.points = points
        self.image = image
        self.percentComplete = percentComplete
        self.steps = steps
        self.target = target
        self.earned = earned
        self.earnedAt = earnedAt
        self.timesEarned = timesEarned
        self.percentOfPlayersEarned = percentOfPlayersEarned
    }
}

/// The reply to `achievement.list`.
public struct AchievementList: Codable, Sendable, Equatable {
    public var achievements: [AchievementStatus]
    public var pointsEarned: Int
    public var pointsTotal: Int

    public init(achievements: [AchievementStatus], pointsEarned: Int, pointsTotal: Int) {
        self.achievements = achievements
        self.pointsEarned = pointsEarned
        self.pointsTotal = pointsTotal
    }
}

/// Published on `achievement/<gameId>/<achievementId>` (and sent to the player as a
/// notification) when an achievement is earned.
public struct AchievementEarned: Codable, Sendable, Equatable {
    public var achievementId: String
    public var title: String
    public var earnedDescription: String
    public var points: Int
    public var timesEarned: Int
    public var earnedAt: Int64

    public init(
        achievementId: String, title: String, earnedDescription: String, points: Int, timesEarned: Int, earnedAt: Int64
    ) {
        self.achievementId = achievementId
        self.title = title
        self.earnedDescription = earnedDescription
        self.points = points
        self.timesEarned = timesEarned
        self.earnedAt = earnedAt
    }
}
