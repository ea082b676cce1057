import Foundation
import PodiumMessages
import PodiumRuntime

/// Rebuilding rule-based progress from the event log (after a studio fixed a rule).
///
/// The event stream is paused at the position the service has applied; every logged event up
/// to it is replayed, from scratch, through the current rules; the result is compared with the
/// stored progress and, unless it is a dry run, written in one transaction with the position
/// (so the live stream resumes exactly after it). Views keep answering during the rebuild;
/// progress reports are refused with `rebuilding` until it is done. Players keep achievements
/// they had earned, even if the fixed rule would not grant them; directly reported percentages
/// are kept.
extension Achievements {
    func rebuild(_ request: RebuildRequest, context: ServiceContext) async throws -> RebuildReport {
        let started = clock.monotonicMilliseconds
        let games = try targetGames(request.gameId)
        // The replay rewrites every player's progress: with the players split over several
        // instances, only an instance that serves every partition may do it.
        if let partitioning, context.servedPartitions.count < partitioning.partitions {
            throw ErrorReply(
                code: .conflict,
                message:
                    "the players' achievements are split over several instances (this one serves \(context.servedPartitions.count) of \(partitioning.partitions) partitions); run the rebuild with one achievement instance running",
                field: "type")
        }
        guard
            rebuilding.withLock({ busy in
                defer { busy = true }
                return !busy
            })
        else {
            throw ErrorReply(code: .conflict, message: "a rebuild is already running")
        }
        defer { rebuilding.withLock { $0 = false } }
        let dryRun = request.dryRun == true
        let (report, earned) = try await context.pausingStream(StreamName.events) { position in
            try await changes.withLock {
                () async throws -> (RebuildReport, [(String, String, AchievementDefinition, ProgressRecord)]) in
                let (replayed, count) = try await replay(through: position, games: games, context: context)
                let stored = try await store.progress(gameIds: Array(games.keys))
                var changes: [RebuildReport.Change] = []
                var writes: [String: [String: [String: ProgressRecord]]] = [:]
                var earned: [(String, String, AchievementDefinition, ProgressRecord)] = []
                var kept = 0
                for (gameId, definitions) in games {
                    let players = Set(stored[gameId, default: [:]].keys).union(replayed[gameId, default: [:]].keys)
                    for playerId in players.sorted() {
                        for definition in definitions {
                            let before = stored[gameId]?[playerId]?[definition.id] ?? ProgressRecord()
                            var after = replayed[gameId]?[playerId]?[definition.id] ?? ProgressRecord()
                            after.percent = before.percent
                            if before.timesEarned > after.timesEarned {
                                // Never take an unlock back.
                                kept += after.timesEarned == 0 ? 1 : 0
                                after.timesEarned = before.timesEarned
                                after.earnedAt = before.earnedAt
                            }
                            guard after != before else { continue }
                            writes[gameId, default: [:]][playerId, default: [:]][definition.id] = after
                            if after.steps != before.steps || (after.timesEarned > 0) != (before.timesEarned > 0) {
                                changes.append(
                                    RebuildReport.Change(
                                        gameId: gameId, playerId: playerId, achievementId: definition.id,
                                        stepsBefore: before.steps,
                                        stepsAfter: after.steps, earnedBefore: before.timesEarned > 0,
                                        earnedAfter: after.timesEarned > 0))
                            }
                            if after.timesEarned > before.timesEarned {
                                earned.append((gameId, playerId, definition, after))
                            }
                        }
                    }
                }
                let now = clock.nowMilliseconds
                if !dryRun {
                    var durable = DurableWrites()
                    for (gameId, playerId, definition, record) in earned {
                        let message = Self.earnedMessage(
                            definition, record, gameId: gameId, playerId: playerId, cause: "rebuild",
                            at: record.earnedAt ?? now)
                        try durable.appendToOutbox(message.envelope, on: message.topic)
                    }
                    durable.advance(StreamName.events, to: position)
                    // Split into partitions, each one's position moves to the replayed position too.
                    for partition in 0..<(partitioning?.partitions ?? 0) {
                        durable.advance(StreamName.partition(StreamName.events, partition), to: position)
                    }
                    try await store.replace(writes, durable: durable)
                }
                let report = RebuildReport(
                    eventsReplayed: count, position: position, changes: changes, newlyEarned: earned.count,
                    keptEarned: kept,
                    dryRun: dryRun, durationMilliseconds: clock.monotonicMilliseconds - started)
                return (report, dryRun ? [] : earned)
            }
        }
        if !earned.isEmpty { context.outboxChanged() }
        for (gameId, playerId, definition, record) in earned {
            await notifyEarned(
                definition, record, gameId: gameId, playerId: playerId, cause: "rebuild", context: context)
        }
        context.logger.info(
            "achievements rebuilt from the event log",
            metadata: [
                "rebuild.events": "\(report.eventsReplayed)", "rebuild.changes": "\(report.changes.count)",
                "rebuild.earned": "\(report.newlyEarned)", "rebuild.dry_run": "\(dryRun)",
            ])
        return report
    }

    /// The rule-based achievements of the games a rebuild covers.
    private func targetGames(_ gameId: String?) throws -> [String: [AchievementDefinition]] {
        let catalog = catalog.value
        let ids =
            try gameId.map { id -> [String] in
                _ = try catalog.achievements(of: id)
                return [id]
            } ?? Array(catalog.games.keys)
        var games: [String: [AchievementDefinition]] = [:]
        for id in ids { games[id] = try catalog.achievements(of: id).filter { $0.rule != nil } }
        return games
    }

    /// Every logged event up to `position`, through the current rules, from empty progress.
    private func replay(through position: UInt64, games: [String: [AchievementDefinition]], context: ServiceContext)
        async throws
        -> ([String: [String: [String: ProgressRecord]]], UInt64)
    {
        var progress: [String: [String: [String: ProgressRecord]]] = [:]
        var after: UInt64 = 0
        var count: UInt64 = 0
        while after < position {
            let page = try await context.call(
                GatewayRequests.eventsRead, StreamRead(after: after, limit: StreamRead.maximumLimit),
                timeout: .seconds(30))
            if let first = page.first, first > after + 1 {
                throw ErrorReply(
                    code: .logPruned,
                    message:
                        "the event log no longer holds events \(after + 1)-\(first - 1) (retention pruned them); a rebuild needs the whole log: keep it with PODIUM_EVENT_RETENTION_SECONDS=0"
                )
            }
            guard !page.messages.isEmpty else { break }
            for message in page.messages {
                guard let sequence = message.envelope.sequence, sequence <= position else { return (progress, count) }
                after = sequence
                count += 1
                let envelope = message.envelope
                guard envelope.type == .gameEvent, let gameId = envelope.gameId, let playerId = envelope.playerId,
                    let definitions = games[gameId], let event = try? envelope.decodePayload(as: GameEvent.self)
                else { continue }
                let listening = definitions.filter { $0.rule?.listens(to: event.name) == true }
                guard !listening.isEmpty else { continue }
                var records = progress[gameId]?[playerId] ?? [:]
                _ = evaluate(event, at: envelope.timestamp, listening: listening, records: &records, context: nil)
                progress[gameId, default: [:]][playerId] = records
            }
        }
        return (progress, count)
    }
}
