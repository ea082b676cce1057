import PodiumMessages
import PodiumRuntime

/// What one stream message does to challenges, decided before it is written.
public struct ChallengeTriggerPlan: Sendable {
    /// Receivers who completed a challenge, with the score that did it.
    public var completions: [(challengeId: String, receiver: String, value: Int64?)] = []
    /// Scores for running time-boxed challenges.
    /// Scores for running time-boxed challenges; `attempt`: a run of a defined challenge, counted
    /// against its attempts (past them it changes nothing).
    public var timedScores: [(challengeId: String, value: Int64, higherIsBetter: Bool, attempt: Bool)] = []
    /// Inbox items the message makes besides completions (an achievement earned, a player
    /// pushed out of a top 10), written in the same transaction.
    public var notices: [AddressedInboxItem] = []
    public var playerId: String
    public var time: Int64
    /// The message's `correlationId`: the request or event that caused it.
    public var cause: String?

    public init(playerId: String, time: Int64, cause: String? = nil) {
        self.playerId = playerId
        self.time = time
        self.cause = cause
    }
}

/// An inbox item for one player in one game.
public typealias AddressedInboxItem = (gameId: String, playerId: String, item: InboxItem)

/// A pending receiver of a score or achievement challenge, with what they must reach.
public typealias PendingReceiver = (
    challengeId: String, issuerValue: Int64?, higherIsBetter: Bool?, baseline: Int64?, expiresAt: Int64?,
    createdAt: Int64
)

/// The challenge service's storage: challenges and their receivers, inboxes, and the durable
/// tables (receipts, positions in the streams it follows). Every state change is conditional
/// (from the state the rules expect), so each transition happens once even if the message that
/// triggers it arrives twice.
public protocol ChallengeStore: ServiceStore {

    /// Writes the effects of consecutive stream messages, in order, and the position (`sequence`,
    /// the last of them) in each of `streams` (one stream, or the partitions a consumer group
    /// member applied them for) in one transaction: completions (each once), time-boxed scores,
    /// and the inbox items `notes` makes for each completion. Returns the inbox items written, to
    /// be sent as notifications.
    func apply(
        _ plans: [ChallengeTriggerPlan], streams: [String], through sequence: UInt64,
        notes:
            @escaping @Sendable (_ challenge: ChallengeDetail, _ receiver: String, _ value: Int64?, _ cause: String?) ->
            [AddressedInboxItem]
    ) async throws -> [AddressedInboxItem]
    /// The position applied in a followed stream.
    func position(of stream: String) async throws -> UInt64

    /// Every inbox item of a player that is not deleted, in every game, newest first (exports).
    func inboxItems(ofPlayer playerId: String) async throws -> [ChallengeExport.Item]

    // Account deletions: the `auth` stream's `auth.account-deleted` (docs/PROTOCOL.md 8.14).
    /// The challenges a player issued and those they take part in.
    func challengeIds(ofPlayer playerId: String) async throws -> (issued: [String], received: [String])
    /// Erases a deleted player in one transaction with the position (`sequence` in each of
    /// `streams`): in the challenges `issued` the pending receivers become invalid (with the inbox
    /// items `notes` makes for each), the issuer is named by the pseudonym and the message goes;
    /// the player leaves the challenges `received`; with `inbox`, the player's inbox items go and
    /// other players' items that name the player are deleted; the player's receipts go and the
    /// player is recorded as erased. Returns the inbox items written.
    func erase(
        _ erasure: AccountErasure, issued: [String], received: [String], inbox: Bool, streams: [String],
        through sequence: UInt64,
        notes: @escaping @Sendable (_ challenge: ChallengeDetail, _ receiver: String) -> [AddressedInboxItem]
    ) async throws -> [AddressedInboxItem]
    /// Stores a new challenge with its receivers (and their baselines), the inbox items that
    /// announce it and the request's receipt, in one transaction.
    func insert(
        _ challenge: ChallengeDetail, higherIsBetter: Bool?, baselines: [String: Int64], inbox: [AddressedInboxItem],
        request: RequestKey?
    ) async throws
    /// The challenge an earlier request with this id created (throws `id_reused` for another payload).
    func replay(_ key: RequestKey) async throws -> ChallengeDetail?
    func challenge(_ id: String) async throws -> ChallengeDetail?
    /// A game's challenges for operators, newest first: only the open ones (a running time-boxed
    /// challenge, or one with a receiver still pending), or all.
    func recent(gameId: String, openOnly: Bool, limit: Int) async throws -> [ChallengeDetail]
    /// Challenges a player received (optionally in one state) or issued, newest first, at most 200.
    func challenges(gameId: String, playerId: String, issued: Bool, state: ChallengeState?) async throws
        -> [ChallengeDetail]
    /// Pending receivers of a kind in a game for a player, with what they must reach.
    func pending(gameId: String, playerId: String, kind: ChallengeKind, target: String) async throws
        -> [PendingReceiver]
    /// ``pending(gameId:playerId:kind:target:)`` and, for scores,
    /// ``runningTimed(gameId:boardId:playerId:)`` of many triggers (a batch of stream messages)
    /// at once.
    func candidates(for triggers: Set<ChallengeTrigger>) async throws -> [ChallengeTrigger: TriggerCandidates]
    /// Moves a receiver from `from` to `to` if it is still in `from`; true if this call changed it.
    func transition(
        challengeId: String, playerId: String, from: ChallengeState, to: ChallengeState, at time: Int64, value: Int64?
    ) async throws -> Bool
    /// Pending receivers whose challenge expired by `now`: marks them invalid and returns them.
    func expire(now: Int64) async throws -> [(challengeId: String, gameId: String, playerId: String)]
    /// What pending score and achievement challenges refer to, per game.
    func pendingTargets() async throws -> [(gameId: String, kind: ChallengeKind, target: String)]
    /// Marks every pending receiver of challenges on a removed board or achievement invalid.
    func invalidate(gameId: String, kind: ChallengeKind, target: String, at time: Int64) async throws -> Int
    /// The windows of the running time-boxed challenges on a board that include the player
    /// (which of them a score counts for is ``ChallengeLifecycle/inWindow(_:at:)``'s call).
    func runningTimed(gameId: String, boardId: String, playerId: String) async throws -> [TimedWindow]
    /// Moves a running time-boxed challenge's end to `now` (an operator ends it early); false
    /// when it is not running or its time has already run out.
    func endTimedEarly(_ challengeId: String, now: Int64) async throws -> Bool
    /// The windows of every running time-boxed challenge (whether one has closed is
    /// ``ChallengeLifecycle/windowClosed(_:at:)``'s call).
    func runningTimedWindows() async throws -> [TimedWindow]
    /// Marks time-boxed challenges ended; returns those this call ended (each ends once).
    func endTimed(_ candidates: [String]) async throws -> [String]
    /// Adds a participant to a running time-boxed challenge at `at` (only their scores from then
    /// count), with the inbox items that announce it, in one transaction; false (and nothing
    /// written) when the player takes part already or the challenge is no longer running.
    func join(challengeId: String, playerId: String, at: Int64, inbox: [AddressedInboxItem]) async throws -> Bool
    func addToInbox(_ item: InboxItem, gameId: String, playerId: String) async throws
    /// Adds the item unless one with its id is kept already: nil if this call added it, else
    /// the item kept (as it is now, with its position).
    func addToInboxIfAbsent(_ item: InboxItem, gameId: String, playerId: String) async throws -> InboxItem?
    /// The player's items in a game (deleted ones never): newest first by position, below
    /// `before` if given; or, `after` a position, the later ones oldest first (a reconnecting
    /// client's catch-up). Only unread ones, only `kinds`, only kinds starting with
    /// `kindPrefix`, as asked; at most `limit`. Positions only grow and are never reused.
    func inbox(gameId: String, playerId: String, page: InboxPageRequest) async throws -> [InboxItem]
    /// The player's unread items in a game.
    func unreadCount(gameId: String, playerId: String) async throws -> Int
    /// Marks items read (nil: every item of the player in the game); returns how many changed.
    func markRead(gameId: String, playerId: String, ids: [String]?) async throws -> Int
    /// Deletes the player's items; returns how many there were.
    func deleteFromInbox(gameId: String, playerId: String, ids: [String]) async throws -> Int
    /// Deletes every item created before `time` (retention); returns how many.
    func pruneInbox(createdBefore time: Int64) async throws -> Int

    // Definitions operators changed (`challenge.admin.define|remove`), on top of the game files.
    /// Every one, per game and id: the definition now, or nil when it was removed.
    func operatorDefinitions() async throws -> [OperatorDefinition]
    /// Keeps a definition an operator added or changed (it replaces one with its id).
    func saveDefinition(_ definition: ChallengeDefinition, gameId: String) async throws
    /// Keeps that an operator removed a definition (a game file's one stays removed).
    func removeDefinition(_ definitionId: String, gameId: String) async throws
}

/// A definition as an operator left it: changed (`definition`) or removed (nil).
public struct OperatorDefinition: Sendable, Equatable {
    public var gameId: String
    public var definitionId: String
    public var definition: ChallengeDefinition?

    public init(gameId: String, definitionId: String, definition: ChallengeDefinition?) {
        self.gameId = gameId
        self.definitionId = definitionId
        self.definition = definition
    }
}

/// What one read of an inbox asks for (``ChallengeStore/inbox(gameId:playerId:page:)``).
public struct InboxPageRequest: Sendable, Equatable {
    public var after: Int64?
    public var before: Int64?
    public var unreadOnly: Bool
    public var kinds: [String]?
    public var kindPrefix: String?
    public var limit: Int

    public init(
        after: Int64? = nil, before: Int64? = nil, unreadOnly: Bool = false, kinds: [String]? = nil,
        kindPrefix: String? = nil,
        limit: Int = 200
    ) {
        self.after = after
        self.before = before
        self.unreadOnly = unreadOnly
        self.kinds = kinds
        self.kindPrefix = kindPrefix
        self.limit = limit
    }
}

extension ChallengeStore {
    func transition(challengeId: String, playerId: String, from: ChallengeState, to: ChallengeState, at time: Int64)
        async throws -> Bool
    {
        try await transition(challengeId: challengeId, playerId: playerId, from: from, to: to, at: time, value: nil)
    }
}

/// Opens a service's challenge store once its settings are known.
public typealias ChallengeStoreOpener = @Sendable (RuntimeSettings) async throws -> any ChallengeStore

extension ChallengeStore {
    /// Nothing to let go of (SQLite files close with their last reference).
    public func close() async {}
}

extension ChallengeStore {
    /// Where this service's instances lease their data (PostgreSQL); nil: one instance owns it all.
    public var leases: (any LeaseStore)? { nil }
}
