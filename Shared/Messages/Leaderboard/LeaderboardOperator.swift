/// `leaderboard.admin.remove-score`: one player's entry on one board (docs/PROTOCOL.md 22.3).
public struct ScoreRemoval: Codable, Sendable, Equatable {
    public var boardId: String
    public var playerId: String
    public init(boardId: String, playerId: String) {
        self.boardId = boardId
        self.playerId = playerId
    }
}

/// The reply to `leaderboard.admin.remove-score`.
public struct ScoreRemovalReceipt: Codable, Sendable, Equatable {
    public var boardId: String
    public var playerId: String
    /// False when the player had no entry.
    public var removed: Bool
    public init(boardId: String, playerId: String, removed: Bool) {
        self.boardId = boardId
        self.playerId = playerId
        self.removed = removed
    }
}

/// `leaderboard.admin.reset` and `leaderboard.archives`: a board.
public struct BoardTarget: Codable, Sendable, Equatable {
    public var boardId: String
    public init(boardId: String) { self.boardId = boardId }
}

/// One archive of a board: the standings a reset ended (docs/PROTOCOL.md 22.4).
public struct LeaderboardArchive: Codable, Sendable, Equatable {
    public var boardId: String
    /// 1, 2, 3… per board.
    public var archive: Int64
    public var resetAt: Int64
    /// Entries archived.
    public var entries: Int
    public init(boardId: String, archive: Int64, resetAt: Int64, entries: Int) {
        self.boardId = boardId
        self.archive = archive
        self.resetAt = resetAt
        self.entries = entries
    }
}

/// The reply to `leaderboard.archives`, newest first.
public struct LeaderboardArchiveList: Codable, Sendable, Equatable {
    public var boardId: String
    public var archives: [LeaderboardArchive]
    public init(boardId: String, archives: [LeaderboardArchive]) {
        self.boardId = boardId
        self.archives = archives
    }
}
