import PodiumMessages
import PodiumRuntime

/// A stored entry (the player's current standing on one board).
public struct StoredEntry: Sendable, Equatable {
    public var value: Int64
    public var context: Int64?
    public var metadata: String?
    public var submittedAt: Int64
}

/// One accepted score, as the history keeps it.
public struct StoredScore: Sendable, Equatable {
    public var playerId: String
    public var value: Int64
    public var submittedAt: Int64
}

/// What a submission stores beside the entry, in the same transaction.
public struct SubmissionJournal: Sendable {
    /// The reply to keep as the request's receipt.
    public var reply: JSONValue
    /// The message that tells other services about the score (the outbox).
    public var accepted: (topic: Topic, envelope: Envelope<ScoreReceipt>)
}

/// How a submission ended in the store.
public enum SubmissionOutcome: Sendable {
    /// Applied: the entries before and after, and the history row's id.
    case applied(previous: StoredEntry?, current: StoredEntry?, version: Int64)
    /// A resend of a stored request: its stored reply.
    case replayed(JSONValue)
}

/// The leaderboard service's storage, behind a protocol so that PostgreSQL can back it later.
/// The store is the truth; the in-memory standings are rebuilt from it at start.
public protocol LeaderboardStore: Sendable {
    /// Applies a submission atomically: reads the current entry, lets `decide` compute the new
    /// one (or nil to keep it), writes it and the score history row. Returns both entries and
    /// the history row's id, which grows with every write (a version for ordering updates).
    ///
    /// With a request key, a key already stored returns its stored reply instead (nothing is
    /// applied), and otherwise `journal` says what to store with the change: the request's reply
    /// (its receipt) and the outbox messages it causes, in the same transaction.
    func submit(
        gameId: String, boardId: String, playerId: String, value: Int64, submittedAt: Int64, request: RequestKey?,
        decide: @Sendable (StoredEntry?) throws -> StoredEntry?,
        journal: @Sendable (_ previous: StoredEntry?, _ current: StoredEntry?) throws -> SubmissionJournal
    ) async throws -> SubmissionOutcome
    /// Every entry of a board with only what ranks it (player, value, time; as ``StoredScore``s):
    /// the standings are built from these, and a million of them take 32 MB rather than the
    /// several hundred that full entries would.
    func entryKeys(gameId: String, boardId: String) async throws -> [StoredScore]
    /// The entries of some players.
    func entries(gameId: String, boardId: String, playerIds: [String]) async throws -> [String: StoredEntry]
    /// Every score submitted since `since`, oldest first (to rebuild the day and week standings).
    func scores(gameId: String, boardId: String, since: Int64) async throws -> [StoredScore]
    /// A player's best scores on a board, best first (the local high-score table).
    func history(gameId: String, boardId: String, playerId: String, descending: Bool, limit: Int) async throws -> [StoredScore]
    /// Ranked entries straight from storage (for the frozen standings of ended periods).
    func ranked(gameId: String, boardId: String, descending: Bool, offset: Int, limit: Int) async throws
        -> [(playerId: String, entry: StoredEntry)]
    /// How many entries a board (or, with `prefix`, any of its periods) has.
    func entryCount(gameId: String, boardId: String, includingPeriods: Bool) async throws -> Int

    /// Definitions operators added or changed, on top of the configuration files.
    func savedDefinitions() async throws -> [(gameId: String, definition: LeaderboardDefinition)]
    func saveDefinition(_ definition: LeaderboardDefinition, gameId: String) async throws
    func deleteDefinition(boardId: String, gameId: String) async throws
    /// Boards operators removed.
    func removedDefinitions() async throws -> [(gameId: String, boardId: String)]
}

extension LeaderboardDefinition {
    /// Where a board's entries are stored: its id, or for a recurring board `<id>#<period>`.
    func storageID(period: Int64?) -> String {
        period.map { "\(id)#\($0)" } ?? id
    }
}
