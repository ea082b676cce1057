/// `achievement.admin.rebuild`: recompute rule-based progress from the event log with the
/// rules as they are now (after a studio fixed one), and say what changed.
public struct RebuildRequest: Codable, Sendable, Equatable {
    /// Only this game (default: every game).
    public var gameId: String?
    /// Compute and report without changing anything.
    public var dryRun: Bool?

    public init(gameId: String? = nil, dryRun: Bool? = nil) {
        self.gameId = gameId
        self.dryRun = dryRun
    }
}

/// What a rebuild found (and, unless a dry run, changed).
public struct RebuildReport: Codable, Sendable, Equatable {
    /// One player's achievement whose standing differs from the replay.
    public struct Change: Codable, Sendable, Equatable {
        public var gameId: String
        public var playerId: String
        public var achievementId: String
        public var stepsBefore: Int64
        public var stepsAfter: Int64
        public var earnedBefore: Bool
        public var earnedAfter: Bool

        public init(
            gameId: String, playerId: String, achievementId: String, stepsBefore: Int64, stepsAfter: Int64,
            earnedBefore: Bool,
            earnedAfter: Bool
        ) {
            self.gameId = gameId
            self.playerId = playerId
            self.achievementId = achievementId
            self.stepsBefore = stepsBefore
            self.stepsAfter = stepsAfter
            self.earnedBefore = earnedBefore
            self.earnedAfter = earnedAfter
        }
    }

    /// Events read from the log (up to the position the service had applied).
    public var eventsReplayed: UInt64
    /// The log position the rebuild replayed to.
    public var position: UInt64
    /// Every record whose steps or earned state changed.
    public var changes: [Change]
    /// Achievements the replay earns that were not earned before (announced like any unlock).
    public var newlyEarned: Int
    /// Achievements earned before that the replay would not earn: players keep them (an
    /// unlock is never taken back), and they are listed in `changes`.
    public var keptEarned: Int
    public var dryRun: Bool
    public var durationMilliseconds: Int64

    public init(
        eventsReplayed: UInt64, position: UInt64, changes: [Change], newlyEarned: Int, keptEarned: Int, dryRun: Bool,
        durationMilliseconds: Int64
    ) {
        self.eventsReplayed = eventsReplayed
        self.position = position
        self.changes = changes
        self.newlyEarned = newlyEarned
        self.keptEarned = keptEarned
        self.dryRun = dryRun
        self.durationMilliseconds = durationMilliseconds
    }
}
