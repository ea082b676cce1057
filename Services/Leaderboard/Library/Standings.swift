import PodiumMessages
import PodiumRuntime

/// Every board's standings in memory, all time and for the current day and week.
///
/// Rebuilt from the store at start; updated after each stored submission (under the scoreboard's
/// submission lock, so in the store's order). The day and week standings restart empty when the
/// injected clock crosses their boundary.
final class Standings: Sendable {
    struct BoardKey: Hashable, Sendable {
        let gameId: String
        let boardId: String
    }

    struct ScopeStandings: Sendable {
        var start: Int64
        var index: RankIndex
    }

    struct Board: Sendable {
        let definition: LeaderboardDefinition
        /// For a recurring board, the period these standings belong to.
        var period: Int64?
        var allTime: RankIndex
        var scoped: [TimeScope: ScopeStandings]

        /// Starts a recurring board's new period empty (the old one stays in the store, frozen).
        mutating func rollOver(now: Int64) {
            guard definition.recurrence != nil else { return }
            let current = definition.period(at: now)
            guard current != period else { return }
            period = current
            allTime = RankIndex(descending: allTime.descending)
            scoped = [:]
        }
    }

    private let boards = Locked([BoardKey: Board]())

    /// Loads a board from the store.
    func load(_ definition: LeaderboardDefinition, gameId: String, store: any LeaderboardStore, now: Int64) async throws {
        var allTime = RankIndex(descending: definition.sortOrder == .higherIsBetter)
        let period = definition.period(at: now)
        let storageID = definition.storageID(period: period)
        for (playerId, entry) in try await store.entries(gameId: gameId, boardId: storageID) {
            allTime.upsert(RankIndex.Entry(playerId: playerId, value: entry.value, submittedAt: entry.submittedAt))
        }
        var scoped: [TimeScope: ScopeStandings] = [:]
        let weekStart = TimeScope.week.start(containing: now) ?? now
        let recent = try await store.scores(gameId: gameId, boardId: storageID, since: weekStart)
        for scope in [TimeScope.today, .week] {
            let start = scope.start(containing: now) ?? now
            var standings = ScopeStandings(start: start, index: RankIndex(descending: allTime.descending))
            for score in recent where score.submittedAt >= start {
                Self.apply(definition, score, to: &standings.index)
            }
            scoped[scope] = standings
        }
        let board = Board(definition: definition, period: period, allTime: allTime, scoped: scoped)
        boards.withLock { $0[BoardKey(gameId: gameId, boardId: definition.id)] = board }
    }

    /// Forgets a removed board.
    func unload(gameId: String, boardId: String) {
        _ = boards.withLock { $0.removeValue(forKey: BoardKey(gameId: gameId, boardId: boardId)) }
    }

    /// What recording a submission changed.
    struct Outcome: Sendable {
        /// Scopes in which the score beat the player's previous standing there (or was the first).
        var scopesBeaten: [TimeScope]
        /// The player this submission pushed out of the all-time top ``topSize``, if any.
        var pushedOutOfTop: String?
    }

    /// The size of the top whose leavers are told.
    static let topSize = 10

    /// Records a stored submission.
    func record(
        gameId: String, boardId: String, score: StoredScore, allTimeEntry: StoredEntry, now: Int64
    ) -> Outcome {
        mutate(BoardKey(gameId: gameId, boardId: boardId)) { board -> Outcome in
            board.rollOver(now: now)
            let previousAllTime = board.allTime.entry(of: score.playerId)
            let lastInTop = board.allTime.entries(offset: Self.topSize - 1, limit: 1).first
            board.allTime.upsert(
                RankIndex.Entry(playerId: score.playerId, value: allTimeEntry.value, submittedAt: allTimeEntry.submittedAt))
            var beaten: [TimeScope] = []
            if previousAllTime.map({ board.definition.isBetter(score.value, than: $0.value) }) ?? true { beaten.append(.allTime) }
            for scope in [TimeScope.today, .week] {
                Self.rollScope(&board, scope, now: now)
                let definition = board.definition
                let previous = board.scoped[scope]?.index.entry(of: score.playerId)
                if board.scoped[scope] != nil { Self.apply(definition, score, to: &board.scoped[scope]!.index) }
                if previous.map({ definition.isBetter(score.value, than: $0.value) }) ?? true { beaten.insert(scope, at: 0) }
            }
            var pushed: String?
            if let lastInTop, lastInTop.playerId != score.playerId, board.allTime.rank(of: lastInTop.playerId) == Self.topSize + 1 {
                pushed = lastInTop.playerId
            }
            return Outcome(scopesBeaten: beaten, pushedOutOfTop: pushed)
        } ?? Outcome(scopesBeaten: [], pushedOutOfTop: nil)
    }

    /// Reads one scope's standings under the lock (rolled over first if its period ended).
    /// Readers never copy the standings, so a write never has to copy them either.
    func read<Result>(gameId: String, boardId: String, scope: TimeScope, now: Int64, _ body: (RankIndex) throws -> Result) rethrows
        -> Result?
    {
        try mutate(BoardKey(gameId: gameId, boardId: boardId)) { board -> Result in
            board.rollOver(now: now)
            if scope == .allTime { return try body(board.allTime) }
            Self.rollScope(&board, scope, now: now)
            return try body(board.scoped[scope]!.index)
        }
    }

    /// Runs `body` on a board in place (never on a copy: a copy of a million entries is slow).
    private func mutate<Result>(_ key: BoardKey, _ body: (inout Board) throws -> Result) rethrows -> Result? {
        try boards.withLock { boards -> Result? in
            guard boards[key] != nil else { return nil }
            return try body(&boards[key]!)
        }
    }

    /// Starts a day or week scope afresh if its period has ended.
    private static func rollScope(_ board: inout Board, _ scope: TimeScope, now: Int64) {
        let start = scope.start(containing: now) ?? 0
        if board.scoped[scope]?.start != start {
            board.scoped[scope] = ScopeStandings(start: start, index: RankIndex(descending: board.allTime.descending))
        }
    }

    /// Applies one score to a scope's standings with the board's submit operator.
    private static func apply(_ definition: LeaderboardDefinition, _ score: StoredScore, to index: inout RankIndex) {
        let previous = index.entry(of: score.playerId)
        let entry = RankIndex.Entry(playerId: score.playerId, value: score.value, submittedAt: score.submittedAt)
        switch definition.submitOperator {
        case .best:
            if previous.map({ definition.isBetter(score.value, than: $0.value) }) ?? true { index.upsert(entry) }
        case .latest:
            index.upsert(entry)
        case .increment:
            let (sum, overflow) = (previous?.value ?? 0).addingReportingOverflow(score.value)
            index.upsert(RankIndex.Entry(playerId: score.playerId, value: overflow ? (previous?.value ?? 0) : sum, submittedAt: score.submittedAt))
        }
    }
}
