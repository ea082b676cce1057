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

    public init(
        id: String, title: String, sortOrder: SortOrder = .higherIsBetter, submitOperator: SubmitOperator = .best,
        format: Format = .integer, minimum: Int64? = nil, maximum: Int64? = nil, serverOnly: Bool = false
    ) {
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
        case id, title, sortOrder, submitOperator, format, minimum, maximum, serverOnly
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
    }

    /// Whether `candidate` ranks above `incumbent` on this board (ties: neither).
    public func isBetter(_ candidate: Int64, than incumbent: Int64) -> Bool {
        sortOrder == .higherIsBetter ? candidate > incumbent : candidate < incumbent
    }
}

/// A game's configuration file: its leaderboards (and, later, its achievements).
public struct GameConfiguration: Codable, Sendable, Equatable {
    public var gameId: String
    public var leaderboards: [LeaderboardDefinition]

    public init(gameId: String, leaderboards: [LeaderboardDefinition]) {
        self.gameId = gameId
        self.leaderboards = leaderboards
    }
}
