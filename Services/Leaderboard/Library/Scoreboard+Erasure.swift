import PodiumMessages
import PodiumRuntime

/// Account deletions (docs/PROTOCOL.md 8.14): the leaderboard follows the auth service's outbox
/// (stream `auth`) and erases a deleted player from every board when it applies the player's
/// `auth.account-deleted`: entries of the current standings, of past periods and of archives,
/// the score history and the request receipts go in one transaction with the stream position,
/// ranks close up, and later submissions for the player are refused (`account_deleted`). With
/// several instances every one applies the message for the boards of its partitions.
extension Scoreboard: DurableConsumer {
    func position(of stream: String) async throws -> UInt64 {
        try await store.position(of: stream)
    }

    func apply(_ message: StreamMessage, stream: String, sequence: UInt64, context: ServiceContext) async throws {
        try await apply(batch: [(message, sequence)], stream: stream, context: context)
    }

    func apply(batch: [(message: StreamMessage, sequence: UInt64)], stream: String, context: ServiceContext)
        async throws
    {
        guard let last = batch.last?.sequence else { return }
        for (message, sequence) in batch where message.envelope.type == .accountDeleted {
            guard let erasure = try? message.envelope.decodePayload(as: AccountErasure.self) else {
                context.logger.error(
                    "an account deletion could not be read", metadata: ["stream": "\(stream)", "seq": "\(sequence)"])
                continue
            }
            try await erase(
                erasure, durable: DurableWrites.position(stream, at: sequence), stream: stream, context: context)
        }
        // Friend news and the like change nothing here; the position still moves, so that
        // retention can prune what this service read.
        try await store.erase(nil, boards: [], durable: DurableWrites.position(stream, at: last))
    }

    func record(positions: [String: UInt64], context: ServiceContext) async throws {
        var durable = DurableWrites()
        for (stream, sequence) in positions { durable.advance(stream, to: sequence) }
        try await store.erase(nil, boards: [], durable: durable)
    }

    /// Deletions pruned before this service read them (its database restored from an old
    /// backup): which players they named is not known here, so the loss is logged for the
    /// operator, who deletes the accounts' leftovers again (docs/OPERATIONS.md).
    func recover(stream: String, lost: ClosedRange<UInt64>, context: ServiceContext) async throws {
        try await store.erase(nil, boards: [], durable: DurableWrites.position(stream, at: lost.upperBound))
        context.logger.error(
            "account deletions may have been lost before they were read: their scores may remain",
            metadata: ["stream": "\(stream)", "lost": "\(lost.lowerBound)-\(lost.upperBound)"])
    }

    /// Erases the player from the boards of `stream`'s partitions (every board when not
    /// partitioned), then reads the touched standings again.
    func erase(_ erasure: AccountErasure, durable: DurableWrites, stream: String, context: ServiceContext) async throws
    {
        let partitions = StreamName.partitions(of: stream).partitions.map(Set.init)
        try await writing.withLock {
            // Refused from now on: a submission queued before this lock is decided after it.
            erased.withLock { _ = $0.insert(erasure.playerId) }
            let boards = try await store.boards(ofPlayer: erasure.playerId).filter {
                holds(gameId: $0.gameId, boardId: Self.baseBoard($0.boardId), in: partitions)
            }
            try await store.erase(erasure, boards: boards, durable: durable)
            let now = clock.nowMilliseconds
            var reloaded = Set<String>()
            for (gameId, storageID) in boards {
                let boardId = Self.baseBoard(storageID)
                guard reloaded.insert("\(gameId)/\(boardId)").inserted,
                    let board = try? catalog.value.board(gameId: gameId, boardId: boardId)
                else { continue }
                try await standings.load(board, gameId: gameId, store: store, now: now)
            }
            context.logger.notice(
                "deleted player erased from the leaderboards",
                metadata: ["player.id": "\(erasure.playerId)", "storage_ids": "\(boards.count)"])
        }
    }

    /// The board a storage id belongs to (`<board>#<period>`, `…@archive-n`).
    static func baseBoard(_ storageID: String) -> String {
        String(storageID.prefix { $0 != "#" && $0 != "@" })
    }

    /// Refuses a write for a deleted player.
    func refuseErased(_ playerId: String) throws {
        if erased.value.contains(playerId) { throw Self.erasedRefusal }
    }

    static let erasedRefusal = ErrorReply(
        code: .accountDeleted, message: "this player's account was deleted", field: "playerId")

    /// The player's part of an export (`leaderboard.export`): read from the store, whichever
    /// partitions this instance serves.
    func export(_ target: ExportTarget) async throws -> LeaderboardExport {
        let limit = LeaderboardExport.maximumScores
        let (entries, scores) = try await store.export(playerId: target.playerId, limit: limit + 1)
        return LeaderboardExport(
            entries: entries, scores: Array(scores.prefix(limit)), scoresTruncated: scores.count > limit ? true : nil)
    }
}
