/// One leaderboard of a game, as the game's configuration file defines it (docs/GAME-CONFIG.md).
public struct LeaderboardDefinition: Codable, Sendable, Equatable {
    /// Which scores are better.
    public enum SortOrder: String, Codable, Sendable {
        /// Higher scores rank first (points).
        case higherIsBetter
        /// Lower scores rank first (fastest time).
        case lowerIsBetter
    }

    /// What a new score does to the player's entry.
    public enum SubmitOperator: String, Codable, Sendable {
        /// Keep the better of the old and new score.
        case best
        /// Keep the newest score.
        case latest
        /// Add the score to the entry.
        case increment
    }

    /// How clients should show the value.
    public enum Format: String, Codable, Sendable {
        case integer
        /// Milliseconds.
        case timeMilliseconds
        /// Millionths of a currency unit.
        case currencyMicros
    }

    /// Reverse-DNS style id, at most 100 characters (`com.example.dash.highscore`).
    public var id: String
    public var title: String
    public var sortOrder: SortOrder
    public var submitOperator: SubmitOperator
    public var format: Format
    /// Scores below are rejected.
    public var minimum: Int64?
    /// Scores above are rejected.
    public var maximum: Int64?
    /// Only the game server (server key) may submit.
    public var serverOnly: Bool
    /// For a recurring board: its periods. Each period starts empty; the final standings of
    /// every ended period stay queryable.
    public var recurrence: Recurrence?

    /// The periods of a recurring board: the first starts at `startsAt`, each lasts `durationMilliseconds`.
    public struct Recurrence: Codable, Sendable, Equatable {
        /// Start of period 0, ms since the epoch.
        public var startsAt: Int64
        /// Length of each period, ms (at least one minute).
        public var durationMilliseconds: Int64

        public init(startsAt: Int64, durationMilliseconds: Int64) {
            self.startsAt = startsAt
            self.durationMilliseconds = durationMilliseconds
        }
    }

    public init(
        id: String, title: String, sortOrder: SortOrder = .higherIsBetter, submitOperator: SubmitOperator = .best,
        format: Format = .integer, minimum: Int64? = nil, maximum: Int64? = nil, serverOnly: Bool = false,
        recurrence: Recurrence? = nil
    ) {
        self.recurrence = recurrence
        self.id = id
        self.title = title
        self.sortOrder = sortOrder
        self.submitOperator = submitOperator
        self.format = format
        self.minimum = minimum
        self.maximum = maximum
        self.serverOnly = serverOnly
    }

    private enum CodingKeys: String, CodingKey {
        case id, title, sortOrder, submitOperator, format, minimum, maximum, serverOnly, recurrence
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(String.self, forKey: .id)
        title = try container.decode(String.self, forKey: .title)
        sortOrder = try container.decodeIfPresent(SortOrder.self, forKey: .sortOrder) ?? .higherIsBetter
        submitOperator = try container.decodeIfPresent(SubmitOperator.self, forKey: .submitOperator) ?? .best
        format = try container.decodeIfPresent(Format.self, forKey: .format) ?? .integer
        minimum = try container.decodeIfPresent(Int64.self, forKey: .minimum)
        maximum = try container.decodeIfPresent(Int64.self, forKey: .maximum)
        serverOnly = try container.decodeIfPresent(Bool.self, forKey: .serverOnly) ?? false
        recurrence = try container.decodeIfPresent(Recurrence.self, forKey: .recurrence)
    }

    /// The recurring board's period containing `now` (nil before the first, or if not recurring).
    public func period(at now: Int64) -> Int64? {
        guard let recurrence, now >= recurrence.startsAt, recurrence.durationMilliseconds > 0 else { return nil }
        return (now - recurrence.startsAt) / recurrence.durationMilliseconds
    }

    /// Whether `candidate` ranks above `incumbent` on this board (ties: neither).
    public func isBetter(_ candidate: Int64, than incumbent: Int64) -> Bool {
        sortOrder == .higherIsBetter ? candidate > incumbent : candidate < incumbent
    }
}

/// A named group of a game's leaderboards (Game Center's leaderboard sets).
public struct LeaderboardSet: Codable, Sendable, Equatable {
    public var id: String
    public var title: String
    public var leaderboardIds: [String]

    public init(id: String, title: String, leaderboardIds: [String]) {
        self.id = id
        self.title = title
        self.leaderboardIds = leaderboardIds
    }
}

/// A game's configuration file: its leaderboards and sets, the events it sends and its achievements.
public struct GameConfiguration: Codable, Sendable, Equatable {
    public var gameId: String
    public var leaderboards: [LeaderboardDefinition]
    public var leaderboardSets: [LeaderboardSet]?
    /// The events the game sends (achievement rules may only use these and their attributes).
    public var events: [EventDeclaration]?
    public var achievements: [AchievementDefinition]?
    /// The challenges the studio defines (the challenge service's).
    public var challenges: [ChallengeDefinition]?

    public init(
        gameId: String, leaderboards: [LeaderboardDefinition] = [], leaderboardSets: [LeaderboardSet]? = nil,
        events: [EventDeclaration]? = nil, achievements: [AchievementDefinition]? = nil,
        challenges: [ChallengeDefinition]? = nil
    ) {
        self.challenges = challenges
        self.gameId = gameId
        self.leaderboards = leaderboards
        self.leaderboardSets = leaderboardSets
        self.events = events
        self.achievements = achievements
    }

    private enum CodingKeys: String, CodingKey {
        case gameId, leaderboards, leaderboardSets, events, achievements, challenges
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        gameId = try container.decode(String.self, forKey: .gameId)
        leaderboards = try container.decodeIfPresent([LeaderboardDefinition].self, forKey: .leaderboards) ?? []
        leaderboardSets = try container.decodeIfPresent([LeaderboardSet].self, forKey: .leaderboardSets)
        events = try container.decodeIfPresent([EventDeclaration].self, forKey: .events)
        achievements = try container.decodeIfPresent([AchievementDefinition].self, forKey: .achievements)
        challenges = try container.decodeIfPresent([ChallengeDefinition].self, forKey: .challenges)
    }
}
