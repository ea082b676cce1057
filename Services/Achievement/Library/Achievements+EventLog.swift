import PodiumMessages
import PodiumRuntime

/// Rules follow the gateway's event log: every event once, in log order, across restarts.
extension Achievements: DurableConsumer {
    func position(of stream: String) async throws -> UInt64 {
        // The followers read their positions again when this instance's partitions change: the
        // deleted players are read again with them (another instance may have erased some).
        if StreamName.partitions(of: stream).stream == StreamName.auth { try await loadErasedPlayers() }
        return try await store.eventPosition(of: stream)
    }

    func apply(_ message: StreamMessage, stream: String, sequence: UInt64, context: ServiceContext) async throws {
        try await apply(batch: [(message, sequence)], stream: stream, context: context)
    }

    func apply(batch: [(message: StreamMessage, sequence: UInt64)], stream: String, context: ServiceContext)
        async throws
    {
        if StreamName.partitions(of: stream).stream == StreamName.auth {
            try await applyDeletions(batch, stream: stream, context: context)
            return
        }
        try await apply(events: batch.map { ($0.message.envelope, $0.sequence) }, stream: stream, context: context)
    }

    /// Events were pruned before this service applied them (its database restored from a backup
    /// older than the retained log). The event log is the only record of what they reported, so
    /// there is no state to rebuild their rule progress from: the position moves past them (one
    /// transaction), the loss is logged and counted, and players keep the progress and unlocks
    /// they have. Unlocks reported directly (`achievement.report`) are unaffected.
    func record(positions: [String: UInt64], context: ServiceContext) async throws {
        var durable = DurableWrites()
        for (stream, sequence) in positions { durable.advance(stream, to: sequence) }
        try await store.replace([:], durable: durable)
    }

    // MARK: - Account deletions

    /// Applies the auth stream: each `auth.account-deleted` erases the player's records in the
    /// games of `stream`'s partitions (every game when not partitioned), with the position, in one
    /// transaction; the other messages (friend news) only move the position.
    func applyDeletions(_ batch: [(message: StreamMessage, sequence: UInt64)], stream: String, context: ServiceContext)
        async throws
    {
        guard let last = batch.last?.sequence else { return }
        let partitions = StreamName.partitions(of: stream).partitions.map(Set.init)
        for (message, sequence) in batch where message.envelope.type == .accountDeleted {
            guard let erasure = try? message.envelope.decodePayload(as: AccountErasure.self) else {
                context.logger.error(
                    "an account deletion could not be read", metadata: ["stream": "\(stream)", "seq": "\(sequence)"])
                continue
            }
            try await changes.withLock {
                erased.withLock { _ = $0.insert(erasure.playerId) }
                let games = try await store.games(ofPlayer: erasure.playerId).filter { gameId in
                    guard let partitions, let partitioning else { return true }
                    return partitions.contains(
                        partitioning.partition(of: PartitionKey.player(gameId: gameId, playerId: erasure.playerId)))
                }
                try await store.erase(erasure, games: games, durable: DurableWrites.position(stream, at: sequence))
                context.logger.notice(
                    "deleted player erased from achievements",
                    metadata: ["player.id": "\(erasure.playerId)", "games": "\(games.count)"])
            }
        }
        try await store.erase(nil, games: [], durable: DurableWrites.position(stream, at: last))
    }

    /// Reads the erased players from the store (at start, and when partitions change).
    func loadErasedPlayers() async throws {
        let stored = Set(try await store.erasedPlayers())
        erased.withLock { $0.formUnion(stored) }
    }

    func recover(stream: String, lost: ClosedRange<UInt64>, context: ServiceContext) async throws {
        if StreamName.partitions(of: stream).stream == StreamName.auth {
            try await store.erase(nil, games: [], durable: DurableWrites.position(stream, at: lost.upperBound))
            context.logger.error(
                "account deletions may have been lost before they were read: their achievements may remain",
                metadata: ["stream": "\(stream)", "lost": "\(lost.lowerBound)-\(lost.upperBound)"])
            return
        }
        var durable = DurableWrites()
        durable.advance(stream, to: lost.upperBound)
        try await store.replace([:], durable: durable)
    }

    /// The player's part of an export (`achievement.export`): every stored record, read from the
    /// store whichever partitions this instance serves.
    func export(_ target: ExportTarget) async throws -> AchievementExport {
        var records: [AchievementExport.Record] = []
        for gameId in try await store.games(ofPlayer: target.playerId).sorted() {
            let stored = try await store.progress(gameId: gameId, playerId: target.playerId)
            for (achievementId, record) in stored.sorted(by: { $0.key < $1.key }) {
                records.append(
                    AchievementExport.Record(
                        gameId: gameId, achievementId: achievementId, steps: record.steps, percent: record.percent,
                        timesEarned: record.timesEarned, earnedAt: record.earnedAt))
            }
        }
        return AchievementExport(records: records)
    }
}
