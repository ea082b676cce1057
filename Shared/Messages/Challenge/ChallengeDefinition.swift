/// A challenge a studio defines for its game (Game Center's `GKChallengeDefinition`, 2025): a
/// title and details, the leaderboard it is played on, the durations a player may pick, how many
/// attempts each participant has, whether a player may take it on again, and whether it is
/// released (docs/GAME-CONFIG.md, "Challenges").
public struct ChallengeDefinition: Codable, Sendable, Equatable {
    /// How many runs each participant has; the best of them counts.
    public enum Attempts: Sendable, Equatable, Codable {
        case limited(Int)
        case unlimited

        /// The attempts allowed, nil for unlimited.
        public var limit: Int? {
            if case .limited(let count) = self { return count }
            return nil
        }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let count = try? container.decode(Int.self) {
                self = .limited(count)
            } else if (try? container.decode(String.self)) == "unlimited" {
                self = .unlimited
            } else {
                throw DecodingError.dataCorruptedError(
                    in: container, debugDescription: "attempts is 1, 3 or \"unlimited\"")
            }
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            switch self {
            case .limited(let count): try container.encode(count)
            case .unlimited: try container.encode("unlimited")
            }
        }
    }

    /// Whether players may start it.
    public enum ReleaseState: String, Codable, Sendable {
        /// Every player may start it.
        case released
        /// Only a game server or an operator may start it (testing before release).
        case prerelease
    }

    public var id: String
    public var title: String
    public var details: String
    /// An image URL the game may show.
    public var image: String?
    /// The leaderboard of the same game it is played on.
    public var leaderboardId: String
    /// The durations a player may pick, ms (1 minute to 30 days each).
    public var durations: [Int64]
    public var attempts: Attempts
    /// Whether a player who took part in one that ended may take part in another.
    public var repeatable: Bool
    public var releaseState: ReleaseState
    /// The game event that is also a run (besides a `leaderboard.submit` tagged with the challenge).
    public var runEvent: RunEvent?

    /// A game event that counts as one run of a challenge of the definition: its `value`, or the
    /// integer attribute `measureAttribute`, is the run's value.
    public struct RunEvent: Codable, Sendable, Equatable {
        public var name: String
        public var measureAttribute: String?

        public init(name: String, measureAttribute: String? = nil) {
            self.name = name
            self.measureAttribute = measureAttribute
        }

        /// The run's value in `event`, nil when it carries none (then it is not a run).
        public func value(of event: GameEvent) -> Int64? {
            guard let measureAttribute else { return event.value }
            if case .integer(let number)? = event.attributes?[measureAttribute] { return number }
            return nil
        }
    }

    public init(
        id: String, title: String, details: String, image: String? = nil, leaderboardId: String, durations: [Int64],
        attempts: Attempts = .limited(1), repeatable: Bool = false, releaseState: ReleaseState = .released,
        runEvent: RunEvent? = nil
    ) {
        self.runEvent = runEvent
        self.id = id
        self.title = title
        self.details = details
        self.image = image
        self.leaderboardId = leaderboardId
        self.durations = durations
        self.attempts = attempts
        self.repeatable = repeatable
        self.releaseState = releaseState
    }

    enum CodingKeys: String, CodingKey {
        case id, title, details, image, leaderboardId, durations, attempts, repeatable, releaseState, runEvent
    }

    /// Absent `attempts` is 1, `repeatable` false, `releaseState` released.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(String.self, forKey: .id)
        title = try container.decode(String.self, forKey: .title)
        details = try container.decode(String.self, forKey: .details)
        image = try container.decodeIfPresent(String.self, forKey: .image)
        leaderboardId = try container.decode(String.self, forKey: .leaderboardId)
        durations = try container.decode([Int64].self, forKey: .durations)
        attempts = try container.decodeIfPresent(Attempts.self, forKey: .attempts) ?? .limited(1)
        repeatable = try container.decodeIfPresent(Bool.self, forKey: .repeatable) ?? false
        releaseState = try container.decodeIfPresent(ReleaseState.self, forKey: .releaseState) ?? .released
        runEvent = try container.decodeIfPresent(RunEvent.self, forKey: .runEvent)
    }
}

/// The reply to `challenge.definitions`.
public struct ChallengeDefinitionList: Codable, Sendable, Equatable {
    public var definitions: [ChallengeDefinition]
    public init(definitions: [ChallengeDefinition]) { self.definitions = definitions }
}

/// One participant's place in a time-boxed challenge (`challenge.standings`, `challenge.ended`).
public struct ChallengeStanding: Codable, Sendable, Equatable {
    public var rank: Int
    public var playerId: String
    public var value: Int64
    /// A defined challenge's runs counted for the player.
    public var attempts: Int?

    public init(rank: Int, playerId: String, value: Int64, attempts: Int? = nil) {
        self.rank = rank
        self.playerId = playerId
        self.value = value
        self.attempts = attempts
    }
}

/// The reply to `challenge.standings`: the live order of a time-boxed challenge.
public struct ChallengeStandingsReply: Codable, Sendable, Equatable {
    public var challengeId: String
    /// `running` or `ended`.
    public var state: ChallengeState
    public var endsAt: Int64?
    public var standings: [ChallengeStanding]

    public init(challengeId: String, state: ChallengeState, endsAt: Int64?, standings: [ChallengeStanding]) {
        self.challengeId = challengeId
        self.state = state
        self.endsAt = endsAt
        self.standings = standings
    }
}
