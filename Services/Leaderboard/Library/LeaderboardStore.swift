import PodiumMessages

/// A stored entry (the player's current standing on one board).
public struct StoredEntry: Sendable, Equatable {
    public var value: Int64
    public var context: Int64?
    public var metadata: String?
    public var submittedAt: Int64
}

/// The leaderboard service's storage, behind a protocol so that PostgreSQL can back it later.
public protocol LeaderboardStore: Sendable {
    /// Applies a submission atomically: reads the current entry, lets `decide` compute the new
    /// one (or nil to keep it), writes it and the score history row, and returns both.
    func submit(
        gameId: String, boardId: String, playerId: String, value: Int64, submittedAt: Int64,
        decide: @Sendable (StoredEntry?) throws -> StoredEntry?
    ) async throws -> (previous: StoredEntry?, current: StoredEntry?)
    /// The entry's rank (1-based): better values first, then earlier submissions, then player id.
    func rank(gameId: String, boardId: String, playerId: String, sortOrder: LeaderboardDefinition.SortOrder) async throws -> Int?
    /// The best `limit` entries from rank `offset + 1`.
    func top(gameId: String, boardId: String, sortOrder: LeaderboardDefinition.SortOrder, offset: Int, limit: Int) async throws
        -> [(playerId: String, entry: StoredEntry)]
}
