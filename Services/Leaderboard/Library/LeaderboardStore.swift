import PodiumMessages
import PodiumRuntime

/// A stored entry (the player's current standing on one board).
public struct StoredEntry: Sendable, Equatable {
    public var value: Int64
    public var context: Int64?
    public var metadata: String?
    public var submittedAt: Int64

    public init(value: Int64, context: Int64?, metadata: String?, submittedAt: Int64) {
        self.value = value
        self.context = context
        self.metadata = metadata
        self.submittedAt = submittedAt
    }
}

/// One accepted score, as the history keeps it.
public struct StoredScore: Sendable, Equatable {
    public var playerId: String
    public var value: Int64
    public var submittedAt: Int64

    public init(playerId: String, value: Int64, submittedAt: Int64) {
        self.playerId = playerId
        self.value = value
        self.submittedAt = submittedAt
    }
}

/// What a submission stores beside the entry, in the same transaction.
public struct SubmissionJournal: Sendable {
    /// The reply to keep as the request's receipt.
    public var reply: JSONValue
    /// The message that tells other services about the score (the outbox).
    public var accepted: (topic: Topic, envelope: Envelope<ScoreReceipt>)
    /// A player the submission pushed out of the top, to be told once the batch is committed.
    public var leftTop: String?
    /// The message's payload as a value when the journal already has it (the receipt's value
    /// with `pushedOutOfTop`): the outbox message is written from it, not encoded again.
    public var acceptedPayload: JSONValue? = nil

    /// The outbox message as written: from ``acceptedPayload`` when given (the same bytes: the
    /// codec writes a typed value through the same value).
    public var acceptedForOutbox: Envelope<JSONValue>? {
        acceptedPayload.map { accepted.envelope.replacingPayload($0) }
    }
}

/// How a submission ended in the store.
public enum SubmissionOutcome: Sendable {
    /// Applied: the entries before and after, the history row's id, and what was journaled.
    case applied(previous: StoredEntry?, current: StoredEntry?, version: Int64, journal: SubmissionJournal)
    /// A resend of a stored request: its stored reply.
    case replayed(JSONValue)
}

/// One submission of a batch for ``LeaderboardStore/submit(_:)``.
public struct PendingSubmission: Sendable {
    public var gameId: String
    public var boardId: String
    public var playerId: String
    public var value: Int64
    public var submittedAt: Int64
    /// The request's idempotency key: a key already stored returns its stored reply instead.
    public var request: RequestKey?
    /// The new entry given the current one (nil keeps it); may refuse with an ``ErrorReply``.
    public var decide: @Sendable (StoredEntry?) throws -> StoredEntry?
    /// Called in the transaction once the entry and history are written: the receipt and the
    /// outbox message to store with them.
    public var journal: @Sendable (_ previous: StoredEntry?, _ current: StoredEntry?) throws -> SubmissionJournal

    public init(
        gameId: String, boardId: String, playerId: String, value: Int64, submittedAt: Int64, request: RequestKey?,
        decide: @escaping @Sendable (StoredEntry?) throws -> StoredEntry?,
        journal: @escaping @Sendable (_ previous: StoredEntry?, _ current: StoredEntry?) throws -> SubmissionJournal
    ) {
        self.gameId = gameId
        self.boardId = boardId
        self.playerId = playerId
        self.value = value
        self.submittedAt = submittedAt
        self.request = request
        self.decide = decide
        self.journal = journal
    }
}

/// The leaderboard service's storage. The store is the truth; the in-memory standings are
/// rebuilt from it at start.
public protocol LeaderboardStore: ServiceStore {

    /// Applies a batch of submissions, in order, in one transaction (one commit: group commit).
    /// For each: reads the current entry, lets `decide` compute the new one, writes it and the
    /// score history row, then the journal (receipt and outbox message).
    ///
    /// A submission refused before it wrote anything (its `decide` threw an ``ErrorReply``, or
    /// its request id came with another payload) fails alone; any other failure throws and
    /// nothing of the batch is written.
    func submit(_ batch: [PendingSubmission]) async throws -> [Result<SubmissionOutcome, ErrorReply>]
    /// Every entry of a board with only what ranks it (player, value, time; as ``StoredScore``s):
    /// the standings are built from these, and a million of them take 32 MB rather than the
    /// several hundred that full entries would.
    func entryKeys(gameId: String, boardId: String) async throws -> [StoredScore]
    /// The entries of some players.
    func entries(gameId: String, boardId: String, playerIds: [String]) async throws -> [String: StoredEntry]
    /// Every score submitted since `since`, oldest first (to rebuild the day and week standings).
    func scores(gameId: String, boardId: String, since: Int64) async throws -> [StoredScore]
    /// A player's best scores on a board, best first (the local high-score table).
    func history(gameId: String, boardId: String, playerId: String, descending: Bool, limit: Int) async throws
        -> [StoredScore]
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

    /// Deletes a player's entry on a board (a storage id) and their scores there, in one
    /// transaction; false when there was no entry.
    func removeEntry(gameId: String, boardId: String, playerId: String) async throws -> Bool
    /// Moves every entry of a board's standings (`storageID`) into a new archive of the board
    /// (`boardId`, numbered 1, 2, 3…) and records the reset, in one transaction.
    func archive(gameId: String, boardId: String, storageID: String, resetAt: Int64) async throws -> LeaderboardArchive
    /// A board's archives, newest first, with where each one's entries are stored.
    func archives(gameId: String, boardId: String) async throws -> [(archive: LeaderboardArchive, storageID: String)]
    /// When the standings stored under `storageID` were last reset, if ever.
    func lastReset(gameId: String, storageID: String) async throws -> Int64?
    /// Fence each write by the partitions of the boards it touches (``PartitionMap``).
    func partition(by map: PartitionMap)

    // Account deletions: the `auth` stream's `auth.account-deleted` (docs/PROTOCOL.md 8.14).
    /// The position applied in `stream` (`auth`, or a consumer group's partitions of it).
    func position(of stream: String) async throws -> UInt64
    /// The storage ids (current standings, periods, archives) where a player has an entry or
    /// scores, by game (a read: the tables have no index by player alone).
    func boards(ofPlayer playerId: String) async throws -> [(gameId: String, boardId: String)]
    /// In one transaction: deletes the erased player's entries and scores on `boards` and their
    /// receipts, rewrites outbox messages naming them with the pseudonym, records them as erased
    /// (``SQLiteDurable``/``PostgresDurable`` `erase`), and commits `durable` (the positions).
    /// With no erasure only `durable` is committed.
    func erase(_ erasure: AccountErasure?, boards: [(gameId: String, boardId: String)], durable: DurableWrites)
        async throws
    /// Every player erased so far (their submissions are refused).
    func erasedPlayers() async throws -> [String]
    /// A player's entries (every storage id) and their newest `limit` scores (a read).
    func export(playerId: String, limit: Int) async throws -> (
        entries: [LeaderboardExport.Entry], scores: [LeaderboardExport.Score]
    )
}

/// Opens a service's leaderboard store once its settings are known.
public typealias LeaderboardStoreOpener = @Sendable (RuntimeSettings) async throws -> any LeaderboardStore

extension LeaderboardDefinition {
    /// Where a board's entries are stored: its id, or for a recurring board `<id>#<period>`.
    public func storageID(period: Int64?) -> String {
        period.map { "\(id)#\($0)" } ?? id
    }
}

extension LeaderboardStore {
    /// Nothing to let go of (SQLite files close with their last reference).
    public func close() async {}
}

extension LeaderboardStore {
    /// Where this service's instances lease their data (PostgreSQL); nil: one instance owns it all.
    public var leases: (any LeaseStore)? { nil }
    /// The boards are split into partitions by `map` (several instances serving at once): fence
    /// each write with the leases of the boards it touches. Nothing to do without leases.
    public func partition(by map: PartitionMap) {}
}
