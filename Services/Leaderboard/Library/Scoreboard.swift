import Foundation
import Logging
import PodiumMessages
import PodiumRuntime

/// A validated submission waiting for its batch.
struct QueuedScore: Sendable {
    let board: LeaderboardDefinition
    let gameId: String
    let playerId: String
    let submission: ScoreSubmission
    let metadata: String?
    let key: RequestKey?
    let cause: String
}

/// A submission's receipt and the player it pushed out of the top, or why it was refused.
typealias SubmitResult = Result<(receipt: ScoreReceipt, leftTop: String?), ErrorReply>

/// The leaderboard service's logic: submissions and views.
///
/// The store (SQLite) is the truth; the in-memory ``Standings`` answer the views. Submissions are
/// written in batches, one batch at a time (``GroupCommit``), so the standings follow the store's
/// order and many submissions share one commit.
final class Scoreboard: Sendable {
    let catalog: Locked<GameCatalog>
    /// The game files' boards, before operators' changes.
    private let files: GameCatalog
    /// How boards map to partitions when several instances share them; nil: this instance
    /// holds every board.
    let partitioning: PartitionMap?
    let store: any LeaderboardStore
    let clock: any PodiumClock
    let standings = Standings()
    let displayNames = DisplayNames()
    let details: EntryDetails
    let pages = PageCache()
    /// Validated submissions wait here for their batch (group commit: one transaction each).
    private let submissions: GroupCommit<QueuedScore, SubmitResult>
    /// Held while a batch is written, while an operator changes a definition and while a
    /// deleted player is erased.
    let writing = AsyncLock()
    /// Players whose accounts were deleted: their submissions are refused.
    let erased = Locked<Set<String>>([])
    /// The most submissions one transaction takes.
    static let maximumBatch = 512
    static let logger = Logger(label: "podium.leaderboard")
    /// How far the submissions may fall behind the database before new ones are refused with
    /// `overloaded` (well inside the gateway's 5 s request timeout).
    static let backlog = BacklogLimit(maximumWaiting: 8 * maximumBatch, maximumWaitMilliseconds: 2_000)

    /// Largest metadata object, encoded.
    static let maximumMetadataBytes = 1024
    /// Most entries one page returns.
    static let maximumLimit = 200
    /// Most entries on each side of a player in `leaderboard.around`.
    static let maximumRadius = 50

    init(catalog: GameCatalog, store: any LeaderboardStore, clock: any PodiumClock, partitioning: PartitionMap? = nil) {
        self.catalog = Locked(catalog)
        files = catalog
        self.partitioning = partitioning
        self.store = store
        self.clock = clock
        details = EntryDetails(store: store)
        let writing = writing
        let erased = erased
        submissions = GroupCommit(maximumBatch: Self.maximumBatch, service: "leaderboard", queue: "scores") {
            [standings] batch in
            await writing.withLock {
                await Self.write(batch, store: store, standings: standings, clock: clock, erased: erased.value)
            }
        }
    }

    /// Loads the standings of the boards in `partitions` (every board when nil or not
    /// partitioned) from the store, after reading operators' definitions again.
    func load(partitions: [Int]? = nil) async throws {
        let now = clock.nowMilliseconds
        let merged = try await refreshDefinitions()
        let gone = Set(try await store.erasedPlayers())
        erased.withLock { $0.formUnion(gone) }
        let wanted = partitions.map(Set.init)
        for game in merged.games.values {
            for board in game.leaderboards where holds(gameId: game.gameId, boardId: board.id, in: wanted) {
                try await standings.load(board, gameId: game.gameId, store: store, now: now)
            }
        }
    }

    /// Drops the standings of the boards in `partitions` (another instance owns them now).
    func unload(partitions: [Int]) {
        let lost = Set(partitions)
        for game in catalog.value.games.values {
            for board in game.leaderboards where holds(gameId: game.gameId, boardId: board.id, in: lost) {
                standings.unload(gameId: game.gameId, boardId: board.id)
            }
        }
    }

    /// Whether a board belongs to `partitions` (every board does when either is nil).
    func holds(gameId: String, boardId: String, in partitions: Set<Int>?) -> Bool {
        guard let partitions, let partitioning else { return true }
        return partitions.contains(partitioning.partition(of: PartitionKey.board(gameId: gameId, boardId: boardId)))
    }

    /// Reads operators' definitions from the store again, over the game files' boards (another
    /// instance may have changed the boards of its partitions), between batches and definition
    /// changes, so a change this instance makes is never overwritten by an older read.
    @discardableResult
    func refreshDefinitions() async throws -> GameCatalog {
        try await writing.withLock {
            var merged = files
            for (gameId, boardId) in try await store.removedDefinitions() {
                merged.remove(boardId: boardId, gameId: gameId)
            }
            for (gameId, definition) in try await store.savedDefinitions() {
                // A stored change that no longer fits the game files is skipped rather than stopping the service.
                try? merged.define(definition, gameId: gameId)
            }
            catalog.withLock { $0 = merged }
            return merged
        }
    }

    // MARK: - Submitting

    func submit(_ request: RawEnvelope, _ submission: ScoreSubmission, context: ServiceContext) async throws
        -> ScoreReceipt
    {
        let board = try catalog.value.board(gameId: request.gameId, boardId: submission.boardId)
        let gameId = request.gameId ?? ""
        let playerId = try Self.submitter(request, board: board)
        try refuseErased(playerId)
        if board.recurrence != nil && board.period(at: clock.nowMilliseconds) == nil {
            throw ErrorReply(code: .conflict, message: "the first period of '\(board.id)' has not started yet")
        }
        if let minimum = board.minimum, submission.value < minimum {
            throw ErrorReply(
                code: .scoreOutOfBounds, message: "scores on this board are at least \(minimum)", field: "payload.value"
            )
        }
        if let maximum = board.maximum, submission.value > maximum {
            throw ErrorReply(
                code: .scoreOutOfBounds, message: "scores on this board are at most \(maximum)", field: "payload.value")
        }
        if let challengeId = submission.challengeId, !Identifiers.isValidID(challengeId) {
            throw ErrorReply(
                code: .invalidField, message: "challengeId is a challenge's id", field: "payload.challengeId")
        }
        var metadataText: String?
        if let metadata = submission.metadata {
            let encoded = try WireCodec.encode(metadata)
            guard encoded.count <= Self.maximumMetadataBytes else {
                throw ErrorReply(
                    code: .invalidField, message: "metadata is at most \(Self.maximumMetadataBytes) bytes of JSON",
                    field: "payload.metadata")
            }
            metadataText = String(decoding: encoded, as: UTF8.self)
        }
        let queued = QueuedScore(
            board: board, gameId: gameId, playerId: playerId, submission: submission, metadata: metadataText,
            key: RequestKey(request, playerId: playerId), cause: request.correlationId ?? request.id)
        let (receipt, _) = try await submissions.submit(queued, within: Self.backlog).get()
        // A player this pushed out of the top 10 hears of it from the inbox (the challenge
        // service), which reads the outbox message: durably, once.
        context.outboxChanged()
        return receipt
    }

    /// Writes a batch of validated submissions in one transaction, in order, all at the batch's
    /// time. Each one's standings are updated inside the transaction, right after its rows, so
    /// its receipt (stored with it) has its real rank and the next submission of the batch sees
    /// it; if the transaction fails, the touched boards are reloaded from the store.
    static func write(
        _ batch: [QueuedScore], store: any LeaderboardStore, standings: Standings, clock: any PodiumClock,
        erased: Set<String> = []
    ) async -> [SubmitResult] {
        let now = clock.nowMilliseconds
        let pending = batch.map { queued in
            let board = queued.board
            let playerId = queued.playerId
            let value = queued.submission.value
            let candidate = StoredEntry(
                value: value, context: queued.submission.context, metadata: queued.metadata, submittedAt: now)
            return PendingSubmission(
                gameId: queued.gameId, boardId: board.storageID(period: board.period(at: now)), playerId: playerId,
                value: value,
                submittedAt: now, request: queued.key,
                decide: { existing in
                    // Erased after it was queued: refused alone, nothing written.
                    if erased.contains(playerId) { throw Self.erasedRefusal }
                    return try Self.decide(board, existing: existing, candidate: candidate)
                },
                journal: { previous, current in
                    guard let current else {
                        throw ErrorReply(code: .internalError, message: "the score was not stored")
                    }
                    let recorded = standings.record(
                        gameId: queued.gameId, boardId: board.id,
                        score: StoredScore(playerId: playerId, value: value, submittedAt: now),
                        allTimeEntry: current, now: now)
                    let rank =
                        standings.read(gameId: queued.gameId, boardId: board.id, scope: .allTime, now: now) {
                            $0.rank(of: playerId) ?? 0
                        } ?? 0
                    var receipt = ScoreReceipt(
                        boardId: board.id, playerId: playerId, improved: previous != current,
                        previousValue: previous?.value,
                        entry: Self.entry(playerId, current, rank: rank),
                        scopesBeaten: recorded.scopesBeaten.map(\.rawValue),
                        submittedValue: value)
                    receipt.challengeId = queued.submission.challengeId
                    var message = receipt
                    message.pushedOutOfTop = recorded.pushedOutOfTop
                    let accepted = Envelope(
                        type: .scoreAccepted, correlationId: queued.cause, gameId: queued.gameId, playerId: playerId,
                        timestamp: now, payload: message)
                    // The receipt becomes a value once: the stored reply, and with whom it pushed
                    // out of the top, the outbox message's payload.
                    let reply = try WireCodec.jsonValue(receipt)
                    return SubmissionJournal(
                        reply: reply,
                        accepted: (Topic(rawValue: "score/\(queued.gameId)/\(board.id)"), accepted),
                        leftTop: recorded.pushedOutOfTop,
                        acceptedPayload: Self.acceptedPayload(reply: reply, pushedOutOfTop: recorded.pushedOutOfTop))
                })
        }
        do {
            return try await store.submit(pending).map { outcome in
                outcome.flatMap { stored -> SubmitResult in
                    switch stored {
                    case .replayed(let reply):
                        guard var original = try? WireCodec.convert(reply, to: ScoreReceipt.self) else {
                            return .failure(
                                ErrorReply(code: .internalError, message: "the stored receipt could not be read"))
                        }
                        original.duplicate = true
                        return .success((original, nil))
                    case .applied(_, _, _, let journal):
                        // The receipt is the outbox message's payload (less whom it pushed out);
                        // no need to read back the stored reply.
                        var receipt = journal.accepted.envelope.payload
                        receipt.pushedOutOfTop = nil
                        return .success((receipt, journal.leftTop))
                    }
                }
            }
        } catch {
            Self.logger.error(
                "a batch of scores could not be stored",
                metadata: ["batch": "\(batch.count)", "error": "\(String(reflecting: error))"])
            // Nothing of the batch is stored, but the standings took some of it: reload them.
            var touched: [String: (gameId: String, board: LeaderboardDefinition)] = [:]
            for queued in batch { touched["\(queued.gameId)/\(queued.board.id)"] = (queued.gameId, queued.board) }
            for (gameId, board) in touched.values {
                try? await standings.load(board, gameId: gameId, store: store, now: now)
            }
            let refusal = ErrorReply(
                code: .storageUnavailable,
                message: "the score could not be stored; nothing was acknowledged, send it again with the same id")
            return batch.map { _ in .failure(refusal) }
        }
    }

    /// The `score-accepted` message's payload from the receipt's value: the receipt and whom
    /// the score pushed out of the top (what encoding the receipt with `pushedOutOfTop` set gives).
    static func acceptedPayload(reply: JSONValue, pushedOutOfTop: String?) -> JSONValue {
        guard let pushedOutOfTop, case .object(var fields) = reply else { return reply }
        fields["pushedOutOfTop"] = .string(pushedOutOfTop)
        return .object(fields)
    }

    /// The new entry given the old one (nil keeps the old one).
    static func decide(_ board: LeaderboardDefinition, existing: StoredEntry?, candidate: StoredEntry) throws
        -> StoredEntry?
    {
        guard let existing else { return candidate }
        switch board.submitOperator {
        case .best:
            return board.isBetter(candidate.value, than: existing.value) ? candidate : nil
        case .latest:
            return candidate
        case .increment:
            let (sum, overflow) = existing.value.addingReportingOverflow(candidate.value)
            guard !overflow, board.maximum.map({ sum <= $0 }) ?? true, board.minimum.map({ sum >= $0 }) ?? true else {
                throw ErrorReply(
                    code: .scoreOutOfBounds, message: "the total would leave the board's range", field: "payload.value")
            }
            return StoredEntry(
                value: sum, context: candidate.context, metadata: candidate.metadata, submittedAt: candidate.submittedAt
            )
        }
    }

    // MARK: - Views

    /// Top entries, or the page after a cursor; optionally only the player's friends.
    func top(_ request: RawEnvelope, query: BoardQuery, context: ServiceContext) async throws -> LeaderboardPage {
        let limit = try Self.limit(query.limit, default: 10)
        if let period = query.period {
            return try await archived(request, query: query, period: period, limit: limit, context: context)
        }
        if let archive = query.archive {
            return try await archived(request, query: query, archive: archive, limit: limit, context: context)
        }
        let (board, scope) = try target(request, query)
        let gameId = request.gameId ?? ""
        if query.friendsOnly == true { return try await friends(request, board: board, scope: scope, context: context) }
        var anchor: RankIndex.Entry?
        let offset = query.offset ?? 0
        if let cursor = query.cursor {
            anchor = try LeaderboardCursor.decode(cursor, gameId: gameId, boardId: board.id, scope: scope)
        } else if !(0...1_000_000_000).contains(offset) {
            throw ErrorReply(
                code: .invalidField, message: "offset must be between 0 and 1000000000", field: "payload.offset")
        }
        let (position, rows, total) = try read(gameId, board, scope) { index -> (Int, [RankIndex.Entry], Int) in
            if let anchor {
                let page = index.entries(after: anchor, limit: limit)
                return (page.position, page.entries, index.count)
            }
            return (offset, index.entries(offset: offset, limit: limit), index.count)
        }
        let next =
            (position + rows.count < total)
            ? rows.last.map {
                LeaderboardCursor.encode($0, gameId: gameId, boardId: board.id, scope: scope)
            } : nil
        return LeaderboardPage(
            boardId: board.id, scope: scope.rawValue,
            entries: try await entries(
                rows, firstRank: position + 1, scope: scope, request: request, board: board, context: context),
            total: total, nextCursor: next)
    }

    /// Where the window of `around` starts (0-based): `radius` ranks above the player's, moved
    /// away from the top or the bottom of the board so that it keeps `2 × radius + 1` entries
    /// when the board has that many (PROTOCOL.md 10.3).
    static func windowStart(rank: Int, radius: Int, count: Int) -> Int {
        max(0, min(rank - 1 - radius, count - (2 * radius + 1)))
    }

    /// The entries around a player (`radius` on each side).
    func around(_ request: RawEnvelope, query: BoardQuery, context: ServiceContext) async throws -> LeaderboardPage {
        let (board, scope) = try target(request, query)
        let playerId = try request.subjectPlayer()
        let radius = query.radius ?? 5
        guard (0...Self.maximumRadius).contains(radius) else {
            throw ErrorReply(
                code: .invalidField, message: "radius must be between 0 and \(Self.maximumRadius)",
                field: "payload.radius")
        }
        let (start, rows, total) = try read(request.gameId ?? "", board, scope) {
            index -> (Int, [RankIndex.Entry], Int) in
            guard let rank = index.rank(of: playerId) else { return (0, [], index.count) }
            let start = Self.windowStart(rank: rank, radius: radius, count: index.count)
            return (start, index.entries(offset: start, limit: 2 * radius + 1), index.count)
        }
        return LeaderboardPage(
            boardId: board.id, scope: scope.rawValue,
            entries: try await entries(
                rows, firstRank: start + 1, scope: scope, request: request, board: board, context: context),
            total: total, nextCursor: nil)
    }

    /// One player's entry and rank in a scope (nil if they have none).
    func entry(_ request: RawEnvelope, query: BoardQuery, context: ServiceContext) async throws -> LeaderboardEntry? {
        let (board, scope) = try target(request, query)
        let playerId = try request.subjectPlayer()
        let found = try read(request.gameId ?? "", board, scope) { index -> (Int, RankIndex.Entry)? in
            guard let rank = index.rank(of: playerId), let row = index.entry(of: playerId) else { return nil }
            return (rank, row)
        }
        guard let (rank, row) = found else { return nil }
        return try await entries([row], firstRank: rank, scope: scope, request: request, board: board, context: context)
            .first
    }

    /// The player's own best scores on the board (the local high-score table), best first.
    func history(_ request: RawEnvelope, query: BoardQuery) async throws -> ScoreHistory {
        let board = try catalog.value.board(gameId: request.gameId, boardId: query.boardId)
        let playerId = try request.subjectPlayer()
        let scores = try await store.history(
            gameId: request.gameId ?? "", boardId: board.storageID(period: board.period(at: clock.nowMilliseconds)),
            playerId: playerId, descending: board.sortOrder == .higherIsBetter,
            limit: 10)
        return ScoreHistory(
            boardId: board.id, playerId: playerId,
            scores: scores.map { .init(value: $0.value, submittedAt: $0.submittedAt) })
    }

    /// The player and their friends, ranked among themselves.
    private func friends(
        _ request: RawEnvelope, board: LeaderboardDefinition, scope: TimeScope, context: ServiceContext
    ) async throws -> LeaderboardPage {
        let playerId = try request.subjectPlayer()
        let friends = try await context.call(AuthRequests.friendsOf, FriendsOfQuery(playerId: playerId))
        let rows = try read(request.gameId ?? "", board, scope) { index in
            (friends.friendIds + [playerId]).compactMap { index.entry(of: $0) }.sorted { index.precedes($0, $1) }
        }
        return LeaderboardPage(
            boardId: board.id, scope: scope.rawValue,
            entries: try await entries(rows, firstRank: 1, request: request, board: board, context: context),
            total: rows.count, nextCursor: nil)
    }

    /// The final standings of an ended period of a recurring board, read from storage.
    private func archived(_ request: RawEnvelope, query: BoardQuery, period: Int64, limit: Int, context: ServiceContext)
        async throws
        -> LeaderboardPage
    {
        let board = try catalog.value.board(gameId: request.gameId, boardId: query.boardId)
        guard board.recurrence != nil else {
            throw ErrorReply(
                code: .invalidField, message: "'\(board.id)' is not a recurring board", field: "payload.period")
        }
        let current = board.period(at: clock.nowMilliseconds) ?? -1
        guard period >= 0, period < current else {
            throw ErrorReply(
                code: .invalidField, message: "period must be an ended period, 0 to \(max(0, current - 1))",
                field: "payload.period")
        }
        return try await frozen(
            request, board: board, storageID: board.storageID(period: period), scope: "period:\(period)", query: query,
            limit: limit,
            context: context)
    }

    /// The final standings a reset archived.
    private func archived(
        _ request: RawEnvelope, query: BoardQuery, archive: Int64, limit: Int, context: ServiceContext
    ) async throws
        -> LeaderboardPage
    {
        let board = try catalog.value.board(gameId: request.gameId, boardId: query.boardId)
        guard
            let stored = try await store.archives(gameId: request.gameId ?? "", boardId: board.id).first(where: {
                $0.archive.archive == archive
            })
        else {
            throw ErrorReply(
                code: .invalidField, message: "'\(board.id)' has no archive \(archive)", field: "payload.archive")
        }
        return try await frozen(
            request, board: board, storageID: stored.storageID, scope: "archive:\(archive)", query: query, limit: limit,
            context: context)
    }

    /// Standings that no longer change (an ended period, an archive), ranked from storage.
    private func frozen(
        _ request: RawEnvelope, board: LeaderboardDefinition, storageID: String, scope: String, query: BoardQuery,
        limit: Int,
        context: ServiceContext
    ) async throws -> LeaderboardPage {
        let offset = query.offset ?? 0
        guard (0...1_000_000_000).contains(offset) else {
            throw ErrorReply(
                code: .invalidField, message: "offset must be between 0 and 1000000000", field: "payload.offset")
        }
        let gameId = request.gameId ?? ""
        let rows = try await store.ranked(
            gameId: gameId, boardId: storageID, descending: board.sortOrder == .higherIsBetter, offset: offset,
            limit: limit)
        let names = await displayNames.names(for: rows.map(\.playerId), context: context)
        let entries = rows.enumerated().map { position, row in
            var entry = Self.entry(row.playerId, row.entry, rank: offset + position + 1)
            entry.displayName = names[row.playerId]
            return entry
        }
        return LeaderboardPage(
            boardId: board.id, scope: scope, entries: entries,
            total: try await store.entryCount(gameId: gameId, boardId: storageID, includingPeriods: false),
            nextCursor: nil)
    }

    // MARK: - Operators

    /// Adds or changes a board. The sort order (and periods) of a board with scores cannot change.
    func define(_ definition: LeaderboardDefinition, gameId: String) async throws -> LeaderboardDefinition {
        guard Identifiers.isValidID(gameId) else {
            throw ErrorReply(code: .invalidField, message: "bad game id", field: "gameId")
        }
        try await writing.withLock {
            if let existing = try? catalog.value.board(gameId: gameId, boardId: definition.id),
                existing.sortOrder != definition.sortOrder || existing.recurrence != definition.recurrence,
                try await store.entryCount(gameId: gameId, boardId: definition.id, includingPeriods: true) > 0
            {
                throw ErrorReply(
                    code: .conflict,
                    message: "'\(definition.id)' has scores: its sort order and periods can no longer change",
                    field: "payload.definition")
            }
            var updated = catalog.value
            do {
                try updated.define(definition, gameId: gameId)
            } catch let problem as ConfigurationProblem {
                throw ErrorReply(code: .invalidField, message: problem.description, field: "payload.definition")
            }
            try await store.saveDefinition(definition, gameId: gameId)
            catalog.withLock { $0 = updated }
            try await standings.load(definition, gameId: gameId, store: store, now: clock.nowMilliseconds)
        }
        return definition
    }

    /// Removes a player's entry from the board's current standings and their scores there.
    func removeScore(_ removal: ScoreRemoval, gameId: String) async throws -> ScoreRemovalReceipt {
        let board = try catalog.value.board(gameId: gameId, boardId: removal.boardId)
        return try await writing.withLock {
            let now = clock.nowMilliseconds
            let removed = try await store.removeEntry(
                gameId: gameId, boardId: board.storageID(period: board.period(at: now)), playerId: removal.playerId)
            if removed { try await standings.load(board, gameId: gameId, store: store, now: now) }
            return ScoreRemovalReceipt(boardId: board.id, playerId: removal.playerId, removed: removed)
        }
    }

    /// Ends the board's current standings now: they move to a new archive and start empty.
    func reset(_ target: BoardTarget, gameId: String) async throws -> LeaderboardArchive {
        let board = try catalog.value.board(gameId: gameId, boardId: target.boardId)
        return try await writing.withLock {
            let now = clock.nowMilliseconds
            let archive = try await store.archive(
                gameId: gameId, boardId: board.id, storageID: board.storageID(period: board.period(at: now)),
                resetAt: now)
            try await standings.load(board, gameId: gameId, store: store, now: now)
            return archive
        }
    }

    /// The board's archives, newest first.
    func archives(_ target: BoardTarget, gameId: String) async throws -> LeaderboardArchiveList {
        let board = try catalog.value.board(gameId: gameId, boardId: target.boardId)
        return LeaderboardArchiveList(
            boardId: board.id, archives: try await store.archives(gameId: gameId, boardId: board.id).map(\.archive))
    }

    /// Removes a board; its scores stay stored.
    func remove(boardId: String, gameId: String) async throws {
        _ = try catalog.value.board(gameId: gameId, boardId: boardId)
        try await writing.withLock {
            try await store.deleteDefinition(boardId: boardId, gameId: gameId)
            catalog.withLock { $0.remove(boardId: boardId, gameId: gameId) }
            standings.unload(gameId: gameId, boardId: boardId)
        }
    }

    // MARK: - Helpers

    private func target(_ request: RawEnvelope, _ query: BoardQuery) throws -> (LeaderboardDefinition, TimeScope) {
        (try catalog.value.board(gameId: request.gameId, boardId: query.boardId), try TimeScope.parse(query.scope))
    }

    /// Runs `body` on a scope's standings under their lock.
    private func read<Result>(
        _ gameId: String, _ board: LeaderboardDefinition, _ scope: TimeScope, _ body: (Ranking) throws -> Result
    ) throws -> Result {
        guard
            let result = try standings.read(
                gameId: gameId, boardId: board.id, scope: scope, now: clock.nowMilliseconds, body)
        else { throw ErrorReply(code: .internalError, message: "the board is not loaded") }
        return result
    }

    static func limit(_ requested: Int?, default fallback: Int) throws -> Int {
        let limit = requested ?? fallback
        guard (1...maximumLimit).contains(limit) else {
            throw ErrorReply(
                code: .invalidField, message: "limit must be between 1 and \(maximumLimit)", field: "payload.limit")
        }
        return limit
    }

    /// Full entries for ranked rows, from the page cache for all-time rows it still holds.
    private func entries(
        _ rows: [RankIndex.Entry], firstRank: Int, scope: TimeScope, request: RawEnvelope, board: LeaderboardDefinition,
        context: ServiceContext
    ) async throws -> [LeaderboardEntry] {
        guard scope == .allTime, !rows.isEmpty else {
            return try await entries(rows, firstRank: firstRank, request: request, board: board, context: context)
        }
        let now = clock.nowMilliseconds
        let key = PageCache.Key(
            gameId: request.gameId ?? "", boardId: board.storageID(period: board.period(at: now)), firstRank: firstRank)
        if let cached = pages.entries(for: key, rows: rows, now: now) { return cached }
        let (built, settled) = try await detailedEntries(
            rows, firstRank: firstRank, request: request, board: board, context: context)
        // A page whose rows and stored details disagree (a batch between its standings update
        // and its commit) is answered but not kept.
        if settled { pages.store(built, for: key, rows: rows, now: now) }
        return built
    }

    /// Full entries (context, metadata, display names) for ranked rows.
    private func entries(
        _ rows: [RankIndex.Entry], firstRank: Int, request: RawEnvelope, board: LeaderboardDefinition,
        context: ServiceContext
    ) async throws -> [LeaderboardEntry] {
        try await detailedEntries(rows, firstRank: firstRank, request: request, board: board, context: context).entries
    }

    /// Full entries for ranked rows, and whether every row's stored details are exactly that
    /// row's (same value and time). Context and metadata belong to the stored all-time entry, so
    /// a row shows them only when its value is that entry's (day and week rows show their own best).
    private func detailedEntries(
        _ rows: [RankIndex.Entry], firstRank: Int, request: RawEnvelope, board: LeaderboardDefinition,
        context: ServiceContext
    ) async throws -> (entries: [LeaderboardEntry], settled: Bool) {
        guard !rows.isEmpty else { return ([], true) }
        let ids = rows.map(\.playerId)
        // The stored details and the names at the same time, each read together with those of
        // concurrent requests.
        async let lookedUp = displayNames.names(for: ids, context: context)
        let stored = try await details.entries(
            gameId: request.gameId ?? "", boardId: board.storageID(period: board.period(at: clock.nowMilliseconds)),
            playerIds: ids)
        let names = await lookedUp
        var settled = true
        let entries = rows.enumerated().map { offset, row in
            let detail = stored[row.playerId]
            if detail?.value != row.value || detail?.submittedAt != row.submittedAt { settled = false }
            var entry = LeaderboardEntry(
                playerId: row.playerId, displayName: names[row.playerId], value: row.value, rank: firstRank + offset,
                context: nil, metadata: nil, submittedAt: row.submittedAt)
            if let detail, detail.value == row.value {
                entry.context = detail.context
                entry.metadata = detail.metadata.flatMap {
                    try? WireCodec.decode([String: JSONValue].self, from: Data($0.utf8))
                }
            }
            return entry
        }
        return (entries, settled)
    }

    /// Who the score is for: the player themselves, or the player a server (or operator) names.
    /// Players may not submit to server-only boards.
    static func submitter(_ request: RawEnvelope, board: LeaderboardDefinition) throws -> String {
        switch request.actor?.kind {
        case .player?:
            guard !board.serverOnly else {
                throw ErrorReply(code: .forbidden, message: "only the game server submits scores to '\(board.id)'")
            }
            guard let playerId = request.actor?.playerId else {
                throw ErrorReply(code: .forbidden, message: "no player")
            }
            return playerId
        case .server?, .admin?:
            guard let playerId = request.playerId else {
                throw ErrorReply(code: .missingField, message: "say which player the score is for", field: "playerId")
            }
            return playerId
        default:
            throw ErrorReply(code: .forbidden, message: "scores come from players and game servers")
        }
    }

    static func entry(_ playerId: String, _ stored: StoredEntry, rank: Int) -> LeaderboardEntry {
        LeaderboardEntry(
            playerId: playerId, value: stored.value, rank: rank, context: stored.context,
            metadata: stored.metadata.flatMap { try? WireCodec.decode([String: JSONValue].self, from: Data($0.utf8)) },
            submittedAt: stored.submittedAt)
    }
}
