import PodiumMessages
import PodiumRuntime

/// Every board's standings in memory, all time and for the current day and week.
///
/// Rebuilt from the store at start; updated after each stored submission (under the scoreboard's
/// submission lock, so in the store's order). The day and week standings restart empty when the
/// injected clock crosses their boundary. Player ids are interned once for the whole service
/// (``PlayerTable``), so a player in several boards and scopes costs their id once.
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

    struct State: Sendable {
        var players = PlayerTable()
        var boards: [BoardKey: Board] = [:]
    }

    private let state = Locked(State())

    /// Loads a board from the store.
    ///
    /// The ids are interned under the lock; the index is sorted outside it with a copy of the
    /// table. Loads run before the service serves or under the scoreboard's submission lock, so
    /// nothing interns meanwhile and the copy never has to be duplicated.
    func load(_ definition: LeaderboardDefinition, gameId: String, store: any LeaderboardStore, now: Int64) async throws
    {
        let period = definition.period(at: now)
        let storageID = definition.storageID(period: period)
        var stored = try await store.entryKeys(gameId: gameId, boardId: storageID)
        // The day and week standings hold scores since their start, and never from before a reset.
        let weekStart = max(
            TimeScope.week.start(containing: now) ?? now,
            try await store.lastReset(gameId: gameId, storageID: storageID) ?? 0)
        let recent = try await store.scores(gameId: gameId, boardId: storageID, since: weekStart)
        let (players, slots, recentPlayers) = state.withLock { state in
            state.players.reserve(players: stored.count, bytes: stored.reduce(0) { $0 + $1.playerId.utf8.count })
            let slots = stored.map {
                RankSlot(player: state.players.intern($0.playerId), value: $0.value, submittedAt: $0.submittedAt)
            }
            return (state.players, slots, recent.map { state.players.intern($0.playerId) })
        }
        stored = []
        let allTime = RankIndex(descending: definition.sortOrder == .higherIsBetter, loading: slots, players: players)
        var scoped: [TimeScope: ScopeStandings] = [:]
        for scope in [TimeScope.today, .week] {
            let start = scope.start(containing: now) ?? now
            var standings = ScopeStandings(start: start, index: RankIndex(descending: allTime.descending))
            for (score, player) in zip(recent, recentPlayers) where score.submittedAt >= start {
                Self.apply(definition, score, player: player, to: &standings.index, players: players)
            }
            scoped[scope] = standings
        }
        let board = Board(definition: definition, period: period, allTime: allTime, scoped: scoped)
        state.withLock { $0.boards[BoardKey(gameId: gameId, boardId: definition.id)] = board }
    }

    /// Forgets a removed board (its players stay interned).
    func unload(gameId: String, boardId: String) {
        _ = state.withLock { $0.boards.removeValue(forKey: BoardKey(gameId: gameId, boardId: boardId)) }
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
        mutate(BoardKey(gameId: gameId, boardId: boardId)) { board, players -> Outcome in
            board.rollOver(now: now)
            let player = players.intern(score.playerId)
            let previousAllTime = board.allTime.slot(of: player)
            let lastInTop = board.allTime.slots(offset: Self.topSize - 1, limit: 1).first
            board.allTime.upsert(
                RankSlot(player: player, value: allTimeEntry.value, submittedAt: allTimeEntry.submittedAt),
                players: players)
            var beaten: [TimeScope] = []
            if previousAllTime.map({ board.definition.isBetter(score.value, than: $0.value) }) ?? true {
                beaten.append(.allTime)
            }
            for scope in [TimeScope.today, .week] {
                Self.rollScope(&board, scope, now: now)
                let definition = board.definition
                let previous = board.scoped[scope]?.index.slot(of: player)
                if board.scoped[scope] != nil {
                    Self.apply(definition, score, player: player, to: &board.scoped[scope]!.index, players: players)
                }
                if previous.map({ definition.isBetter(score.value, than: $0.value) }) ?? true { beaten.append(scope) }
            }
            // Narrowest first, as documented (PROTOCOL.md 10.1): today, week, allTime.
            beaten.sort { TimeScope.allCases.firstIndex(of: $0)! < TimeScope.allCases.firstIndex(of: $1)! }
            var pushed: String?
            if let lastInTop, lastInTop.player != player,
                board.allTime.rank(of: lastInTop.player, players: players) == Self.topSize + 1
            {
                pushed = players.name(of: lastInTop.player)
            }
            return Outcome(scopesBeaten: beaten, pushedOutOfTop: pushed)
        } ?? Outcome(scopesBeaten: [], pushedOutOfTop: nil)
    }

    /// Reads one scope's standings under the lock (rolled over first if its period ended).
    /// Readers never copy the standings, so a write never has to copy them either.
    func read<Result>(gameId: String, boardId: String, scope: TimeScope, now: Int64, _ body: (Ranking) throws -> Result)
        rethrows
        -> Result?
    {
        try mutate(BoardKey(gameId: gameId, boardId: boardId)) { board, players -> Result in
            board.rollOver(now: now)
            if scope == .allTime { return try body(Ranking(index: board.allTime, players: players)) }
            Self.rollScope(&board, scope, now: now)
            return try body(Ranking(index: board.scoped[scope]!.index, players: players))
        }
    }

    /// Runs `body` on a board and the player table in place (never on a copy: a copy of a
    /// million entries is slow).
    private func mutate<Result>(_ key: BoardKey, _ body: (inout Board, inout PlayerTable) throws -> Result) rethrows
        -> Result?
    {
        try state.withLock { state -> Result? in
            guard state.boards[key] != nil else { return nil }
            return try body(&state.boards[key]!, &state.players)
        }
    }

    /// Starts a day or week scope afresh if its period has ended.
    private static func rollScope(_ board: inout Board, _ scope: TimeScope, now: Int64) {
        let start = scope.start(containing: now) ?? 0
        if board.scoped[scope]?.start != start {
            board.scoped[scope] = ScopeStandings(start: start, index: RankIndex(descending: board.allTime.descending))
        }
    }

    /// Applies one score (by `player`, interned) to a scope's standings with the board's submit operator.
    private static func apply(
        _ definition: LeaderboardDefinition, _ score: StoredScore, player: PlayerID, to index: inout RankIndex,
        players: PlayerTable
    ) {
        let previous = index.slot(of: player)
        let slot = RankSlot(player: player, value: score.value, submittedAt: score.submittedAt)
        switch definition.submitOperator {
        case .best:
            if previous.map({ definition.isBetter(score.value, than: $0.value) }) ?? true {
                index.upsert(slot, players: players)
            }
        case .latest:
            index.upsert(slot, players: players)
        case .increment:
            let (sum, overflow) = (previous?.value ?? 0).addingReportingOverflow(score.value)
            index.upsert(
                RankSlot(
                    player: player, value: overflow ? (previous?.value ?? 0) : sum, submittedAt: score.submittedAt),
                players: players)
        }
    }
}
