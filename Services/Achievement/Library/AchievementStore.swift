import PodiumMessages
import PodiumRuntime

/// A player's standing on one achievement.
public struct ProgressRecord: Sendable, Equatable {
    public var steps: Int64 = 0
    /// The highest percent reported directly (percent reports are kept as given).
    public var percent: Double = 0
    public var timesEarned: Int = 0
    public var earnedAt: Int64?
    /// The rule's memory, for rule-based achievements.
    public var ruleState: RuleState?

    public init(
        steps: Int64 = 0, percent: Double = 0, timesEarned: Int = 0, earnedAt: Int64? = nil, ruleState: RuleState? = nil
    ) {
        self.steps = steps
        self.percent = percent
        self.timesEarned = timesEarned
        self.earnedAt = earnedAt
        self.ruleState = ruleState
    }

    /// Percent complete, 0-100.
    func percentComplete(target: Int64) -> Double {
        min(100, max(percent, Double(steps) * 100 / Double(max(1, target))))
    }

    var hasProgress: Bool { steps > 0 || percent > 0 || timesEarned > 0 }
}

/// One report's receipt, by its `reportId`: the outcome it had (JSON of a ``ReportOutcome``).
public struct ReportReceipt: Sendable, Equatable {
    public var achievementId: String
    public var reportId: String
    public var outcome: String
}

/// What a change to achievements stores beside the progress records, in the same transaction.
public struct AchievementJournal: Sendable {
    /// Per-report receipts of `reportId`s.
    public var reportReceipts: [ReportReceipt] = []
    /// What a logged event did (kept for `receipt.get` of the event), by its sequence.
    public var eventEffects: (sequence: UInt64, outcomes: [ReportOutcome])?
    /// The request's receipt, the `achievement.earned` messages and the event log position.
    public var durable = DurableWrites()

    public init() {}
}

/// One player's changed records and what the change journals.
public struct AchievementChange: Sendable {
    public let gameId: String
    public let playerId: String
    public let records: [String: ProgressRecord]
    public let journal: AchievementJournal
}

/// Every stored record of some games, by game, player and achievement.
public typealias ProgressByGame = [String: [String: [String: ProgressRecord]]]

/// The achievement service's storage: progress records, report receipts, what logged events
/// did, operator-made definitions, and the durable tables (receipts, outbox, event log position).
public protocol AchievementStore: ServiceStore {

    /// One player's records in one game, by achievement.
    func progress(gameId: String, playerId: String) async throws -> [String: ProgressRecord]
    /// Every stored record of some games.
    func progress(gameIds: [String]) async throws -> ProgressByGame
    /// Writes several changes, in order, in one transaction (records, report receipts, event
    /// effects and each journal's durable writes).
    func save(_ changes: [AchievementChange]) async throws
    /// Replaces records (a rebuild) with `durable` (the unlocks' messages, the event log
    /// position), in one transaction.
    func replace(_ records: ProgressByGame, durable: DurableWrites) async throws
    /// The position applied in `stream` (the event log, or one partition's share of it:
    /// ``StreamName/partition(_:_:)``).
    func eventPosition(of stream: String) async throws -> UInt64
    /// What a logged event did (nil: nothing, or not applied yet).
    func effects(sequence: UInt64) async throws -> [ReportOutcome]?
    /// The stored reply of a request id, checked against its payload (throws `id_reused`).
    func replay(_ key: RequestKey) async throws -> JSONValue?
    /// The stored outcome of a report id.
    func receipt(gameId: String, playerId: String, achievementId: String, reportId: String) async throws -> String?
    /// How many players earned each achievement, and how many players have any record in the game.
    func earnedShares(gameId: String) async throws -> (earned: [String: Int], players: Int)
    /// Deletes one player's achievements in one game; returns how many records went.
    func reset(gameId: String, playerId: String) async throws -> Int
    /// Definitions operators created or changed, in game and id order.
    func savedDefinitions() async throws -> [(gameId: String, definition: AchievementDefinition)]
    func saveDefinition(_ definition: AchievementDefinition, gameId: String) async throws

    // Account deletions: the `auth` stream's `auth.account-deleted` (docs/PROTOCOL.md 8.14).
    /// The games in which a player has records, report receipts or event effects (a read: the
    /// tables have no index by player alone).
    func games(ofPlayer playerId: String) async throws -> [String]
    /// In one transaction: deletes the erased player's records, report receipts and event
    /// effects in `games` and their request receipts, rewrites outbox messages naming them with
    /// the pseudonym, records them as erased, and commits `durable` (the positions). With no
    /// erasure only `durable` is committed.
    func erase(_ erasure: AccountErasure?, games: [String], durable: DurableWrites) async throws
    /// Every player erased so far (their events are passed over, their reports refused).
    func erasedPlayers() async throws -> [String]
}

extension AchievementStore {
    /// Writes one player's changed records and what the change journals, in one transaction.
    func save(gameId: String, playerId: String, records: [String: ProgressRecord], journal: AchievementJournal)
        async throws
    {
        try await save([AchievementChange(gameId: gameId, playerId: playerId, records: records, journal: journal)])
    }
}

/// Opens a service's achievement store once its settings are known.
public typealias AchievementStoreOpener = @Sendable (RuntimeSettings) async throws -> any AchievementStore

extension AchievementStore {
    /// Nothing to let go of (SQLite files close with their last reference).
    public func close() async {}
}

extension AchievementStore {
    /// Where this service's instances lease their data (PostgreSQL); nil: one instance owns it all.
    public var leases: (any LeaseStore)? { nil }
}
