/// `leaderboard.submit`: a score for the acting player (or, with a server key, for `playerId`).
public struct ScoreSubmission: Codable, Sendable, Equatable {
    public var boardId: String
    /// The score, a 64-bit integer.
    public var value: Int64
    /// An optional 64-bit number the game attaches (a level, a seed).
    public var context: Int64?
    /// A small JSON object (at most 1024 bytes encoded).
    public var metadata: [String: JSONValue]?
    /// The defined challenge this score is a run of (PROTOCOL 12.12): it counts as one of the
    /// player's attempts there.
    public var challengeId: String?

    public init(
        boardId: String, value: Int64, context: Int64? = nil, metadata: [String: JSONValue]? = nil,
        challengeId: String? = nil
    ) {
        self.challengeId = challengeId
        self.boardId = boardId
        self.value = value
        self.context = context
        self.metadata = metadata
    }

    private enum CodingKeys: String, CodingKey { case boardId, value, context, metadata, challengeId }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        boardId = try container.decode(String.self, forKey: .boardId)
        value = try Self.integer(container, .value)
        context =
            try container.decodeIfPresent(JSONValue.self, forKey: .context) == nil
            ? nil : try Self.integer(container, .context)
        metadata = try container.decodeIfPresent([String: JSONValue].self, forKey: .metadata)
        challengeId = try container.decodeIfPresent(String.self, forKey: .challengeId)
    }

    /// Decoded through JSONValue so that 1.5, "3" or 2^63 is a type mismatch of that field.
    private static func integer(_ container: KeyedDecodingContainer<CodingKeys>, _ key: CodingKeys) throws -> Int64 {
        guard case .integer(let number) = try container.decode(JSONValue.self, forKey: key) else {
            throw DecodingError.typeMismatch(
                Int64.self,
                DecodingError.Context(
                    codingPath: container.codingPath + [key],
                    debugDescription: "\(key.stringValue) must be a 64-bit integer"))
        }
        return number
    }
}

/// One player's entry on a board.
public struct LeaderboardEntry: Codable, Sendable, Equatable {
    public var playerId: String
    /// The player's display name, when the auth service could be asked.
    public var displayName: String?
    public var value: Int64
    public var rank: Int
    public var context: Int64?
    public var metadata: [String: JSONValue]?
    /// When the entry's value was submitted, ms since the epoch.
    public var submittedAt: Int64

    public init(
        playerId: String, displayName: String? = nil, value: Int64, rank: Int, context: Int64?,
        metadata: [String: JSONValue]?,
        submittedAt: Int64
    ) {
        self.playerId = playerId
        self.displayName = displayName
        self.value = value
        self.rank = rank
        self.context = context
        self.metadata = metadata
        self.submittedAt = submittedAt
    }
}

/// The reply to `leaderboard.submit`.
public struct ScoreReceipt: Codable, Sendable, Equatable {
    public var boardId: String
    public var playerId: String
    /// Whether the player's entry changed.
    public var improved: Bool
    /// The entry's value before, if there was one.
    public var previousValue: Int64?
    /// The entry now.
    public var entry: LeaderboardEntry
    /// The time scopes (`today`, `week`, `allTime`) in which this score beat the player's
    /// previous standing, as Google Play Games reports.
    public var scopesBeaten: [String]
    /// The score this submission carried (the entry may keep a better, older one).
    public var submittedValue: Int64?
    /// True when this answers a resend of an already applied request id: nothing was applied
    /// again; `entry.rank` is the current rank and `scopesBeaten` is empty.
    public var duplicate: Bool?
    /// The defined challenge the submission named as its run.
    public var challengeId: String?
    /// Only in the `leaderboard.score-accepted` message, never in the reply: the player this
    /// score pushed from rank 10 to 11 of the all-time board, whom the inbox tells.
    public var pushedOutOfTop: String?

    public init(
        boardId: String, playerId: String, improved: Bool, previousValue: Int64?, entry: LeaderboardEntry,
        scopesBeaten: [String] = [],
        submittedValue: Int64? = nil
    ) {
        self.scopesBeaten = scopesBeaten
        self.submittedValue = submittedValue
        self.boardId = boardId
        self.playerId = playerId
        self.improved = improved
        self.previousValue = previousValue
        self.entry = entry
    }
}

/// A page of a board: the reply to `leaderboard.top`, `leaderboard.around` and `leaderboard.friends`.
public struct LeaderboardPage: Codable, Sendable, Equatable {
    public var boardId: String
    /// `today`, `week` or `allTime`.
    public var scope: String
    public var entries: [LeaderboardEntry]
    /// Entries in the scope (for a `friendsOnly` page: the friends with an entry, and the player).
    public var total: Int
    /// Pass as `cursor` for the next page; absent on the last page.
    public var nextCursor: String?

    public init(boardId: String, scope: String, entries: [LeaderboardEntry], total: Int, nextCursor: String?) {
        self.boardId = boardId
        self.scope = scope
        self.entries = entries
        self.total = total
        self.nextCursor = nextCursor
    }
}

/// The reply to `leaderboard.history`: a player's own best scores on a board (at most 10).
public struct ScoreHistory: Codable, Sendable, Equatable {
    public struct Score: Codable, Sendable, Equatable {
        public var value: Int64
        public var submittedAt: Int64

        public init(value: Int64, submittedAt: Int64) {
            self.value = value
            self.submittedAt = submittedAt
        }
    }

    public var boardId: String
    public var playerId: String
    public var scores: [Score]

    public init(boardId: String, playerId: String, scores: [Score]) {
        self.boardId = boardId
        self.playerId = playerId
        self.scores = scores
    }
}
