/// The payload of the board reads (`leaderboard.top`, `around`, `entry`, `history`): which board,
/// which scope, and where in it.
public struct BoardQuery: Codable, Sendable, Equatable {
    public var boardId: String
    /// `allTime` (default), `today`, `week`, or `{"period": n}` on a recurring board.
    public var scope: JSONValue?
    public var offset: Int?
    public var limit: Int?
    public var cursor: String?
    public var radius: Int?
    public var friendsOnly: Bool?
    /// A recurring board's period (0, 1, 2…) to read its final standings.
    public var period: Int64?
    /// An archive (1, 2, 3…) of the board to read: the standings a reset ended.
    public var archive: Int64?

    public init(
        boardId: String, scope: JSONValue? = nil, offset: Int? = nil, limit: Int? = nil,
        cursor: String? = nil,
        radius: Int? = nil, friendsOnly: Bool? = nil, period: Int64? = nil, archive: Int64? = nil
    ) {
        self.boardId = boardId
        self.scope = scope
        self.offset = offset
        self.limit = limit
        self.cursor = cursor
        self.radius = radius
        self.friendsOnly = friendsOnly
        self.period = period
        self.archive = archive
    }
}

/// The reply to `leaderboard.entry`: the player's entry, `null` when they have none.
public struct EntryReply: Codable, Sendable, Equatable {
    public var entry: LeaderboardEntry?

    public init(entry: LeaderboardEntry?) { self.entry = entry }

    enum CodingKeys: String, CodingKey { case entry }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        // Always present: `"entry": null` says "no entry" (docs/PROTOCOL.md 10.4).
        try container.encode(entry, forKey: .entry)
    }
}

/// The reply to `leaderboard.boards`: a game's boards.
public struct BoardList: Codable, Sendable, Equatable {
    public var leaderboards: [LeaderboardDefinition]
    public init(leaderboards: [LeaderboardDefinition]) { self.leaderboards = leaderboards }
}

/// The reply to `leaderboard.admin.games`: every game the leaderboard service knows, by id.
public struct GameList: Codable, Sendable, Equatable {
    /// One game: its id and how many boards it has.
    public struct Game: Codable, Sendable, Equatable {
        public var gameId: String
        public var leaderboards: Int
        public init(gameId: String, leaderboards: Int) {
            self.gameId = gameId
            self.leaderboards = leaderboards
        }
    }

    public var games: [Game]
    public init(games: [Game]) { self.games = games }
}

/// The reply to `leaderboard.sets`: a game's sets of boards.
public struct BoardSetList: Codable, Sendable, Equatable {
    public var leaderboardSets: [LeaderboardSet]
    public init(leaderboardSets: [LeaderboardSet]) { self.leaderboardSets = leaderboardSets }
}

/// The payload and the reply of `leaderboard.admin.define`.
public struct LeaderboardDefinitionChange: Codable, Sendable, Equatable {
    public var definition: LeaderboardDefinition
    public init(definition: LeaderboardDefinition) { self.definition = definition }
}

/// The payload of `leaderboard.admin.remove`.
public struct BoardRemoval: Codable, Sendable, Equatable {
    public var boardId: String
    public init(boardId: String) { self.boardId = boardId }
}

/// The reply to `leaderboard.admin.remove`: the board removed.
public struct BoardRemoved: Codable, Sendable, Equatable {
    public var removed: String
    public init(removed: String) { self.removed = removed }
}
