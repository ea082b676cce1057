import Foundation
import Logging
import PodiumMessages
import PodiumRuntime

/// The achievement service's logic: direct reports, rules over game events, views, resets.
/// Every change to a player's progress runs under one lock, so reports and events apply in order.
final class Achievements: Sendable {
    let catalog: Locked<AchievementCatalog>
    /// How players map to partitions when several instances share them (each applies its
    /// players' events); nil: this instance has every player.
    var partitioning: PartitionMap? { partitionMap.value }
    let partitionMap = Locked<PartitionMap?>(nil)
    let store: any AchievementStore
    let clock: any PodiumClock
    let changes = AsyncLock()
    /// Set while a rebuild runs: progress reports are refused with `rebuilding`.
    let rebuilding = Locked(false)
    /// Events a rule ignored because an attribute it needs was missing, by achievement id.
    let ignoredEvents = Locked([String: Int]())
    /// Players whose accounts were deleted: their events are passed over, their reports refused.
    let erased = Locked<Set<String>>([])

    static let maximumBatch = 100

    init(catalog: AchievementCatalog, store: any AchievementStore, clock: any PodiumClock) {
        self.catalog = Locked(catalog)
        self.store = store
        self.clock = clock
    }

    /// Applies the operators' stored changes; one that no longer fits the game files is skipped
    /// and logged rather than stopping the service.
    /// Under the lock definitions change under, so a change this instance makes is never
    /// overwritten by an older read.
    func loadOperatorChanges(logger: Logger) async throws {
        try await changes.withLock {
            var merged = catalog.value
            for (gameId, definition) in try await store.savedDefinitions() {
                do {
                    try merged.define(definition, gameId: gameId)
                } catch {
                    logger.error(
                        "stored achievement definition skipped",
                        metadata: ["achievement.id": "\(definition.id)", "error": "\(error)"])
                }
            }
            catalog.withLock { $0 = merged }
        }
    }

    // MARK: - Direct reporting

    /// Applies a batch of direct reports; a resend of the same request id returns the original
    /// outcomes (`duplicate` true) and applies nothing.
    func report(_ request: RawEnvelope, _ batch: ProgressReportBatch, context: ServiceContext) async throws
        -> (outcomes: [ReportOutcome], duplicate: Bool)
    {
        let gameId = request.gameId
        let playerId = try request.subjectPlayer()
        if erased.value.contains(playerId) {
            throw ErrorReply(code: .accountDeleted, message: "this player's account was deleted", field: "playerId")
        }
        guard !batch.reports.isEmpty, batch.reports.count <= Self.maximumBatch else {
            throw ErrorReply(
                code: .invalidField, message: "send 1-\(Self.maximumBatch) reports", field: "payload.reports")
        }
        // Check every report before applying any: a bad one changes nothing.
        var plan: [(AchievementDefinition, ProgressReport)] = []
        for (index, report) in batch.reports.enumerated() {
            let field = "payload.reports.\(index)"
            var definition: AchievementDefinition
            do {
                definition = try catalog.value.achievement(gameId: gameId, id: report.achievementId)
            } catch {
                var located = error
                if located.code == .unknownAchievement { located.field = field + ".achievementId" }
                throw located
            }
            // Rules decide rule-based achievements: a player cannot report them done.
            if definition.rule != nil && request.actor?.kind == .player {
                throw ErrorReply(
                    code: .forbidden,
                    message: "'\(definition.id)' follows from game events; only the game server may report it",
                    field: field + ".achievementId")
            }
            switch (report.percentComplete, report.steps) {
            case (let percent?, nil):
                guard percent.isFinite, (0...100).contains(percent) else {
                    throw ErrorReply(
                        code: .invalidField, message: "percentComplete must be a number from 0 to 100",
                        field: field + ".percentComplete")
                }
            case (nil, let steps?):
                guard steps >= 0 else {
                    throw ErrorReply(
                        code: .invalidField, message: "steps must not be negative", field: field + ".steps")
                }
            default:
                throw ErrorReply(code: .invalidField, message: "give either percentComplete or steps", field: field)
            }
            if let reportId = report.reportId, !Identifiers.isValidRequestID(reportId) {
                throw ErrorReply(
                    code: .invalidField, message: "reportId must be 1-128 printable ASCII characters",
                    field: field + ".reportId")
            }
            plan.append((definition, report))
        }
        if rebuilding.value {
            throw ErrorReply(
                code: .rebuilding, message: "achievements are being rebuilt from the event log; report again shortly",
                retryAfterMilliseconds: 1000)
        }
        let game = gameId ?? ""
        let key = RequestKey(request, playerId: playerId)
        let cause = request.correlationId ?? request.id
        var earnedNow: [(AchievementDefinition, ProgressRecord)] = []
        let (outcomes, duplicate) = try await changes.withLock { () async throws -> ([ReportOutcome], Bool) in
            if let key, let stored = try await store.replay(key) {
                return (try WireCodec.convert(stored["outcomes"] ?? .array([]), to: [ReportOutcome].self), true)
            }
            // Erased while this report waited for the lock.
            if erased.value.contains(playerId) {
                throw ErrorReply(code: .accountDeleted, message: "this player's account was deleted", field: "playerId")
            }
            var records = try await store.progress(gameId: game, playerId: playerId)
            var changed: [String: ProgressRecord] = [:]
            var receipts: [ReportReceipt] = []
            var outcomes: [ReportOutcome] = []
            for (definition, report) in plan {
                if let reportId = report.reportId,
                    let stored = try await store.receipt(
                        gameId: game, playerId: playerId, achievementId: definition.id, reportId: reportId)
                        ?? receipts.first(where: { $0.achievementId == definition.id && $0.reportId == reportId })?
                        .outcome,
                    var original = try? WireCodec.decode(ReportOutcome.self, from: Data(stored.utf8))
                {
                    original.status = "duplicate"
                    outcomes.append(original)
                    continue
                }
                let (decided, record) = AchievementProgress.report(
                    records[definition.id] ?? ProgressRecord(), steps: report.steps,
                    percentComplete: report.percentComplete,
                    definition: definition, now: clock.nowMilliseconds)
                let status = decided.rawValue
                if decided == .earned || decided == .earnedAgain { earnedNow.append((definition, record)) }
                if decided.changesRecord {
                    records[definition.id] = record
                    changed[definition.id] = record
                }
                let outcome = Self.outcome(status, definition, record)
                outcomes.append(outcome)
                if let reportId = report.reportId {
                    receipts.append(
                        ReportReceipt(
                            achievementId: definition.id, reportId: reportId,
                            outcome: String(decoding: try WireCodec.encode(outcome), as: UTF8.self)))
                }
            }
            var journal = AchievementJournal()
            journal.reportReceipts = receipts
            let now = clock.nowMilliseconds
            journal.durable.recordReceipt(key, reply: ["outcomes": try WireCodec.jsonValue(outcomes)], at: now)
            for (definition, record) in earnedNow {
                let message = Self.earnedMessage(
                    definition, record, gameId: game, playerId: playerId, cause: cause, at: now)
                try journal.durable.appendToOutbox(message.envelope, on: message.topic)
            }
            try await store.save(gameId: game, playerId: playerId, records: changed, journal: journal)
            return (outcomes, false)
        }
        if !earnedNow.isEmpty { context.outboxChanged() }
        for (definition, record) in earnedNow {
            await notifyEarned(definition, record, gameId: game, playerId: playerId, cause: cause, context: context)
        }
        return (outcomes, duplicate)
    }

    // MARK: - Rules

    /// Applies one logged game event (at `sequence` in the event log) to every rule of its game
    /// that listens to it. A change is stored with the log position, what it did (for
    /// `receipt.get`) and its `achievement.earned` messages, in one transaction; an event that
    /// changes nothing stores nothing (replaying it later changes nothing either).
    func apply(_ envelope: RawEnvelope, sequence: UInt64, context: ServiceContext) async throws {
        try await apply(events: [(envelope, sequence)], stream: StreamName.events, context: context)
    }

    /// Applies consecutive logged events in log order with one transaction for all their
    /// changes (each still stores its own position, effects and messages); events of the same
    /// player see each other's progress.
    func apply(events: [(envelope: RawEnvelope, sequence: UInt64)], stream: String, context: ServiceContext)
        async throws
    {
        struct Earned {
            let definition: AchievementDefinition
            let record: ProgressRecord
            let gameId: String
            let playerId: String
            let cause: String
        }
        let earnedNow = try await changes.withLock { () async throws -> [Earned] in
            var progress: [String: [String: ProgressRecord]] = [:]
            var saves: [AchievementChange] = []
            var earned: [Earned] = []
            for (envelope, sequence) in events {
                guard envelope.type == .gameEvent, let gameId = envelope.gameId, let playerId = envelope.playerId,
                    !erased.value.contains(playerId),
                    let event = try? envelope.decodePayload(as: GameEvent.self),
                    let achievements = try? catalog.value.achievements(of: gameId)
                else { continue }
                let listening = achievements.filter { $0.rule?.listens(to: event.name) == true }
                guard !listening.isEmpty else { continue }
                let key = "\(gameId)\u{0}\(playerId)"
                var records: [String: ProgressRecord]
                if let known = progress[key] {
                    records = known
                } else {
                    records = try await store.progress(gameId: gameId, playerId: playerId)
                }
                let step = evaluate(
                    event, at: envelope.timestamp, listening: listening, records: &records, context: context)
                progress[key] = records
                guard !step.changed.isEmpty else { continue }
                var journal = AchievementJournal()
                journal.eventEffects = (sequence, step.outcomes)
                journal.durable.advance(stream, to: sequence)
                for (definition, record) in step.earned {
                    let message = Self.earnedMessage(
                        definition, record, gameId: gameId, playerId: playerId, cause: envelope.id,
                        at: envelope.timestamp)
                    try journal.durable.appendToOutbox(message.envelope, on: message.topic)
                }
                saves.append(
                    AchievementChange(gameId: gameId, playerId: playerId, records: step.changed, journal: journal))
                earned += step.earned.map {
                    Earned(definition: $0.0, record: $0.1, gameId: gameId, playerId: playerId, cause: envelope.id)
                }
            }
            try await store.save(saves)
            return earned
        }
        if !earnedNow.isEmpty { context.outboxChanged() }
        for earned in earnedNow {
            await notifyEarned(
                earned.definition, earned.record, gameId: earned.gameId, playerId: earned.playerId, cause: earned.cause,
                context: context)
        }
    }

    /// What one event does to the listening rules: the changed records, their outcomes and the
    /// achievements it earned.
    func evaluate(
        _ event: GameEvent, at time: Int64, listening: [AchievementDefinition], records: inout [String: ProgressRecord],
        context: ServiceContext?
    ) -> (
        changed: [String: ProgressRecord], outcomes: [ReportOutcome], earned: [(AchievementDefinition, ProgressRecord)]
    ) {
        var changed: [String: ProgressRecord] = [:]
        var outcomes: [ReportOutcome] = []
        var earned: [(AchievementDefinition, ProgressRecord)] = []
        for definition in listening {
            guard let rule = definition.rule else { continue }
            var record = records[definition.id] ?? ProgressRecord()
            if record.timesEarned > 0 && !definition.repeatable { continue }
            var state = record.ruleState ?? RuleState()
            switch rule.apply(
                name: event.name, value: event.value, attributes: event.attributes ?? [:], at: time, to: &state)
            {
            case .notMatched:
                continue
            case .missingAttribute(let attribute):
                ignoredEvents.withLock { $0[definition.id, default: 0] += 1 }
                context?.logger.info(
                    "event ignored by a rule: missing attribute",
                    metadata: [
                        "achievement.id": "\(definition.id)", "event.name": "\(event.name)",
                        "attribute": "\(attribute)",
                    ])
                continue
            case .notANumber(let attribute):
                ignoredEvents.withLock { $0[definition.id, default: 0] += 1 }
                context?.logger.info(
                    "event ignored by a rule: attribute not a number",
                    metadata: [
                        "achievement.id": "\(definition.id)", "event.name": "\(event.name)",
                        "attribute": "\(attribute)",
                    ])
                continue
            case .progressed(let steps):
                let wasEarned = record.timesEarned
                record.ruleState = state
                record.steps = max(record.steps, steps)
                var status = "progressed"
                if steps >= rule.completionSteps {
                    record = Self.earn(record, definition: definition, now: time)
                    earned.append((definition, record))
                    status = wasEarned > 0 ? "earned_again" : "earned"
                }
                records[definition.id] = record
                changed[definition.id] = record
                outcomes.append(Self.outcome(status, definition, record))
            }
        }
        return (changed, outcomes, earned)
    }

    /// `achievement.event-effects`: whether a logged event was applied and what it did.
    func effects(of sequence: UInt64, lookup: ReceiptLookup, context: ServiceContext) async throws -> EventEffects {
        // Events that change nothing are not recorded, so the follower's position counts too.
        // With the players split into partitions, the event's player's partition has its own.
        var stream = StreamName.events
        if let partitioning {
            let (gameId, playerId) = (lookup.gameId, lookup.playerId)
            stream = StreamName.partition(
                stream, partitioning.partition(of: PartitionKey.player(gameId: gameId, playerId: playerId)))
        }
        let stored = max(
            try await store.eventPosition(of: stream), try await store.eventPosition(of: StreamName.events))
        let position = max(stored, context.streamStatus(StreamName.events)?.position ?? 0)
        return EventEffects(
            applied: position >= sequence, achievements: try await store.effects(sequence: sequence) ?? [])
    }

    // MARK: - Views and reset

    func list(_ request: RawEnvelope) async throws -> AchievementList {
        let definitions = try catalog.value.achievements(of: request.gameId)
        let gameId = request.gameId ?? ""
        let playerId = try request.subjectPlayer()
        let records = try await store.progress(gameId: gameId, playerId: playerId)
        let shares = try await store.earnedShares(gameId: gameId)
        var earnedPoints = 0
        let statuses = definitions.map { definition -> AchievementStatus in
            let record = records[definition.id] ?? ProgressRecord()
            let share =
                shares.players == 0 ? 0 : Double(shares.earned[definition.id] ?? 0) * 100 / Double(shares.players)
            if record.timesEarned > 0 { earnedPoints += definition.points }
            if definition.hidden && !record.hasProgress {
                return AchievementStatus(id: definition.id, hidden: true, percentOfPlayersEarned: share)
            }
            let earned = record.timesEarned > 0
            return AchievementStatus(
                id: definition.id, hidden: definition.hidden, title: definition.title,
                description: earned ? definition.earnedDescription : definition.description, points: definition.points,
                image: definition.image,
                percentComplete: earned && !definition.repeatable
                    ? 100 : record.percentComplete(target: definition.completionSteps),
                steps: earned && !definition.repeatable ? definition.completionSteps : record.steps,
                target: definition.completionSteps,
                earned: earned, earnedAt: record.earnedAt, timesEarned: record.timesEarned,
                percentOfPlayersEarned: share)
        }
        return AchievementList(
            achievements: statuses, pointsEarned: earnedPoints, pointsTotal: definitions.reduce(0) { $0 + $1.points })
    }

    func reset(_ request: RawEnvelope, _ confirmation: AchievementResetConfirmation) async throws -> Int {
        _ = try catalog.value.achievements(of: request.gameId)
        let playerId = try request.subjectPlayer()
        guard confirmation.confirms(gameId: request.gameId) else {
            throw ErrorReply(
                code: .confirmationRequired,
                message: "a reset needs payload {\"confirm\": true, \"gameId\": \"\(request.gameId ?? "")\"}",
                field: "payload.confirm")
        }
        return try await changes.withLock { try await store.reset(gameId: request.gameId ?? "", playerId: playerId) }
    }

    func define(_ definition: AchievementDefinition, gameId: String) async throws {
        try await changes.withLock {
            var updated = catalog.value
            do {
                try updated.define(definition, gameId: gameId)
            } catch let problem as ConfigurationProblem {
                throw ErrorReply(code: .invalidField, message: problem.description, field: "payload.definition")
            }
            try await store.saveDefinition(definition, gameId: gameId)
            catalog.withLock { $0 = updated }
        }
    }

    // MARK: - Helpers

    /// Marks an achievement earned; a repeatable one starts again from zero.
    static func earn(_ record: ProgressRecord, definition: AchievementDefinition, now: Int64) -> ProgressRecord {
        AchievementProgress.earn(record, definition: definition, now: now)
    }

    private static func outcome(_ status: String, _ definition: AchievementDefinition, _ record: ProgressRecord)
        -> ReportOutcome
    {
        let earned = record.timesEarned > 0
        let fullyEarned = earned && !definition.repeatable
        return ReportOutcome(
            status: status, achievementId: definition.id,
            percentComplete: fullyEarned ? 100 : record.percentComplete(target: definition.completionSteps),
            steps: fullyEarned ? definition.completionSteps : record.steps, target: definition.completionSteps,
            earned: earned,
            timesEarned: record.timesEarned)
    }

    /// The `achievement.earned` message other services follow (written to the outbox).
    static func earnedMessage(
        _ definition: AchievementDefinition, _ record: ProgressRecord, gameId: String, playerId: String, cause: String,
        at time: Int64
    ) -> (topic: Topic, envelope: Envelope<AchievementEarned>) {
        let earned = AchievementEarned(
            achievementId: definition.id, title: definition.title, earnedDescription: definition.earnedDescription,
            points: definition.points, timesEarned: record.timesEarned, earnedAt: record.earnedAt ?? time)
        return (
            Topic(rawValue: "achievement/\(gameId)/\(definition.id)"),
            Envelope(
                type: .achievementEarned, correlationId: cause, gameId: gameId, playerId: playerId, timestamp: time,
                payload: earned)
        )
    }

    /// Logs an achievement earned. The player's notification (the completion banner's data) is
    /// made by the inbox (the challenge service) from the `achievement.earned` outbox message,
    /// so that it is kept durably and sent once (docs/PROTOCOL.md 14.5).
    func notifyEarned(
        _ definition: AchievementDefinition, _ record: ProgressRecord, gameId: String, playerId: String, cause: String,
        context: ServiceContext
    ) async {
        context.logger.info(
            "achievement earned", metadata: ["achievement.id": "\(definition.id)", "player.id": "\(playerId)"])
    }
}
