import Foundation
import Logging
import PodiumMessages
import PodiumRuntime

/// The challenge service's logic: issuing, completing from other services' messages,
/// declining, expiring, time-boxed challenges, notifications with an inbox, and the views.
final class Challenges: Sendable {
    let store: any ChallengeStore
    let clock: any PodiumClock
    /// Games whose challenges may go to non-friends (`PODIUM_CHALLENGE_OPEN_GAMES`).
    let openGames: Set<String>
    /// Every player's notifications, kept and sent.
    let inbox: ChallengeInbox
    /// The challenges studios and operators define.
    let definitions: ChallengeDefinitions
    /// Time-boxed challenges whose window closed end after a grace period, so scores submitted
    /// just before the end but still on their way over the bus are counted.
    private let closing = Locked(TimedClosing(grace: graceMilliseconds))
    static let graceMilliseconds: Int64 = 1500
    /// When the boards and achievements of pending challenges were last checked (monotonic).
    private let lastTargetCheck = Locked<Int64>(0)
    static let targetCheckMilliseconds: Int64 = 5000

    /// How challenges map to partitions when several instances share them; nil: this instance
    /// has every challenge.
    var partitioning: PartitionMap? { partitionMap.value }
    let partitionMap = Locked<PartitionMap?>(nil)

    static let maximumReceivers = 20
    static let maximumMessageLength = 280
    static let maximumDuration: Int64 = 30 * 86_400_000

    init(
        store: any ChallengeStore, clock: any PodiumClock, openGames: Set<String>, inbox: ChallengeInbox,
        definitions: ChallengeDefinitions
    ) {
        self.store = store
        self.clock = clock
        self.openGames = openGames
        self.inbox = inbox
        self.definitions = definitions
    }

    // MARK: - Partitions

    /// The partition of a challenge.
    func partition(of challengeId: String, _ map: PartitionMap) -> Int {
        map.partition(of: PartitionKey.challenge(challengeId))
    }

    /// A new challenge's id, in a partition this instance serves (the gateway will route its
    /// requests here), and that partition (nil: not partitioned). Its writes are then fenced by
    /// that partition (``FencedPartitions``).
    func newChallengeId(gameId: String, context: ServiceContext) throws -> (id: String, partition: Int?) {
        guard let partitioning else { return (UUID().uuidString.lowercased(), nil) }
        let served = context.servedPartitions
        for _ in 0..<10_000 {
            let id = UUID().uuidString.lowercased()
            let partition = partition(of: id, partitioning)
            if served[partition] != nil { return (id, partition) }
        }
        throw LeaseLost(service: "challenge")
    }

    // MARK: - Issuing

    func issue(_ request: RawEnvelope, _ issue: ChallengeIssue, context: ServiceContext) async throws -> ChallengeDetail
    {
        let (gameId, issuer) = try Self.player(request)
        let key = RequestKey(request, playerId: issuer)
        if let key, let earlier = try await store.replay(key) { return earlier }
        let message = try Self.message(issue.message)
        let receivers = try await checkReceivers(issue.receivers, issuer: issuer, gameId: gameId, context: context)
        if let expiry = issue.expiresInMilliseconds, !(1...Self.maximumDuration).contains(expiry) {
            throw ErrorReply(
                code: .invalidField, message: "expiresInMilliseconds must be 1 ms to 30 days (2592000000)",
                field: "payload.expiresInMilliseconds")
        }
        let now = clock.nowMilliseconds
        var issuerValue: Int64?
        var higherIsBetter: Bool?
        var baselines: [String: Int64] = [:]
        switch issue.kind {
        case .score:
            guard let boardId = issue.boardId else {
                throw ErrorReply(code: .missingField, message: "which board?", field: "payload.boardId")
            }
            let board = try await ServiceQuestions.board(boardId, gameId: gameId, context: context)
            guard
                let entry = try await ServiceQuestions.entry(
                    boardId, gameId: gameId, playerId: issuer, context: context)
            else {
                throw ErrorReply(
                    code: .conflict, message: "you have no score on '\(boardId)' to beat", field: "payload.boardId")
            }
            issuerValue = entry
            higherIsBetter = board.sortOrder == .higherIsBetter
        case .achievement:
            guard let achievementId = issue.achievementId else {
                throw ErrorReply(code: .missingField, message: "which achievement?", field: "payload.achievementId")
            }
            let mine = try await ServiceQuestions.achievement(
                achievementId, gameId: gameId, playerId: issuer, context: context)
            guard mine.earned else {
                throw ErrorReply(
                    code: .conflict, message: "you have not earned '\(achievementId)'", field: "payload.achievementId")
            }
            let repeatable = try await ServiceQuestions.isRepeatable(achievementId, gameId: gameId, context: context)
            for receiver in receivers {
                let theirs = try await ServiceQuestions.achievement(
                    achievementId, gameId: gameId, playerId: receiver, context: context)
                if theirs.earned && !repeatable {
                    throw ErrorReply(
                        code: .conflict, message: "\(receiver) already earned '\(achievementId)'",
                        field: "payload.receivers")
                }
                baselines[receiver] = Int64(theirs.timesEarned)
            }
        case .timed:
            throw ErrorReply(
                code: .invalidField, message: "start time-boxed challenges with challenge.start", field: "payload.kind")
        }
        let (challengeId, partition) = try newChallengeId(gameId: gameId, context: context)
        let challenge = ChallengeDetail(
            challengeId: challengeId, gameId: gameId, kind: issue.kind, issuerId: issuer,
            boardId: issue.boardId,
            achievementId: issue.achievementId, issuerValue: issuerValue, message: message, createdAt: now,
            expiresAt: issue.expiresInMilliseconds.map { now + $0 }, endsAt: nil, state: nil,
            receivers: receivers.sorted().map { ChallengeReceiver(playerId: $0, state: .pending) }, rematchOf: nil)
        let notes = receivers.map { receiver in
            (
                gameId, receiver,
                InboxItems.challenge(
                    kind: "challenge.received", message: "\(issuer) challenged you" + (message.map { ": \($0)" } ?? ""),
                    challenge: challenge,
                    at: now, cause: request.correlationId ?? request.id)
            )
        }
        return try await FencedPartitions.$current.withValue(partition.map { [$0] }) {
            try await store(
                challenge, higherIsBetter: higherIsBetter, baselines: baselines, notes: notes, key: key,
                context: context)
        }
    }

    /// A time-boxed challenge: the best score in the window wins; everyone hears the standings at the end.
    func start(_ request: RawEnvelope, _ start: TimedChallengeStart, rematchOf: String? = nil, context: ServiceContext)
        async throws
        -> ChallengeDetail
    {
        let (gameId, issuer) = try Self.player(request)
        let key = rematchOf == nil ? RequestKey(request, playerId: issuer) : nil
        if let key, let earlier = try await store.replay(key) { return earlier }
        let message = try Self.message(start.message)
        guard (60_000...Self.maximumDuration).contains(start.durationMilliseconds) else {
            throw ErrorReply(
                code: .invalidField, message: "durationMilliseconds must be 1 minute to 30 days",
                field: "payload.durationMilliseconds")
        }
        // A defined challenge brings its board and the durations a player may pick.
        let definition = try start.definitionId.map {
            try self.definitions.definition(
                $0, gameId: gameId, duration: start.durationMilliseconds, actor: request.actor)
        }
        if let definition, let boardId = start.boardId, boardId != definition.leaderboardId {
            throw ErrorReply(
                code: .invalidField, message: "'\(definition.id)' is played on \(definition.leaderboardId)",
                field: "payload.boardId")
        }
        guard let boardId = definition?.leaderboardId ?? start.boardId else {
            throw ErrorReply(
                code: .missingField, message: "give the boardId (or a definitionId)", field: "payload.boardId")
        }
        let receivers = try await checkReceivers(start.receivers, issuer: issuer, gameId: gameId, context: context)
        if let definition, !definition.repeatable {
            try await checkFirstTime(definition, players: [issuer] + receivers, issuer: issuer, gameId: gameId)
        }
        let board = try await ServiceQuestions.board(boardId, gameId: gameId, context: context)
        let now = clock.nowMilliseconds
        let (challengeId, partition) = try newChallengeId(gameId: gameId, context: context)
        let challenge = ChallengeDetail(
            challengeId: challengeId, gameId: gameId, kind: .timed, issuerId: issuer,
            boardId: boardId,
            achievementId: nil, issuerValue: nil, message: message, createdAt: now, expiresAt: nil,
            endsAt: now + start.durationMilliseconds, state: .running,
            receivers: ([issuer] + receivers).sorted().map {
                ChallengeReceiver(playerId: $0, state: .pending, attempts: definition == nil ? nil : 0)
            }, rematchOf: rematchOf, definitionId: definition?.id, attemptsAllowed: definition?.attempts.limit,
            durationMilliseconds: start.durationMilliseconds)
        let notes = receivers.map { receiver in
            (
                gameId, receiver,
                InboxItems.challenge(
                    kind: "challenge.received",
                    message: "\(issuer) started a challenge on \(board.title)" + (message.map { ": \($0)" } ?? ""),
                    challenge: challenge, at: now, cause: request.correlationId ?? request.id)
            )
        }
        return try await FencedPartitions.$current.withValue(partition.map { [$0] }) {
            try await store(
                challenge, higherIsBetter: board.sortOrder == .higherIsBetter, baselines: [:], notes: notes, key: key,
                context: context)
        }
    }

    /// Stores a new challenge with its inbox items and receipt, then tells the receivers. A
    /// resend of the same request id that raced this one gets the challenge the first created.
    private func store(
        _ challenge: ChallengeDetail, higherIsBetter: Bool?, baselines: [String: Int64],
        notes: [(gameId: String, playerId: String, item: InboxItem)], key: RequestKey?, context: ServiceContext
    ) async throws -> ChallengeDetail {
        do {
            try await store.insert(
                challenge, higherIsBetter: higherIsBetter, baselines: baselines, inbox: notes, request: key)
        } catch {
            if let key, let earlier = try await store.replay(key) { return earlier }
            throw error
        }
        for note in notes { await inbox.publish(note.item, to: note.playerId, gameId: note.gameId, context: context) }
        return challenge
    }

    func rematch(_ request: RawEnvelope, challengeId: String, context: ServiceContext) async throws -> ChallengeDetail {
        let (gameId, playerId) = try Self.player(request)
        guard let old = try await store.challenge(challengeId), old.gameId == gameId, old.kind == .timed,
            old.receivers.contains(where: { $0.playerId == playerId })
        else {
            throw ErrorReply(
                code: .unknownChallenge, message: "no such time-boxed challenge of yours", field: "payload.challengeId")
        }
        guard old.state == .ended else { throw ErrorReply(code: .conflict, message: "the challenge is still running") }
        let others = old.receivers.map(\.playerId).filter { $0 != playerId }
        // The duration it was started for; older rows (before it was kept) from the window.
        let duration = old.durationMilliseconds ?? (old.endsAt ?? old.createdAt) - old.createdAt
        return try await start(
            request,
            TimedChallengeStart(
                boardId: old.boardId, definitionId: old.definitionId, durationMilliseconds: duration, receivers: others,
                message: old.message),
            rematchOf: old.challengeId, context: context)
    }

    // MARK: - Completing from other services' messages

    /// Applies a `score accepted` (leaderboard outbox) or `achievement earned` (achievement
    /// outbox) message at `sequence` of its stream: completions, time-boxed scores, inbox items
    /// and the stream position in one transaction, then the notifications.
    func apply(_ envelope: RawEnvelope, stream: String, sequence: UInt64, context: ServiceContext) async throws {
        try await apply(batch: [(envelope, sequence)], stream: stream, context: context)
    }

    /// Applies consecutive messages of one stream in one transaction: each one's completions and
    /// timed scores in order, then the stream position. What the messages may complete is read
    /// for the whole batch at once.
    func apply(batch: [(envelope: RawEnvelope, sequence: UInt64)], stream: String, context: ServiceContext) async throws
    {
        guard let last = batch.last?.sequence else { return }
        // Each message's payload is decoded once, for its challenges and for its inbox items.
        let facts = batch.map { StreamFact(of: $0.envelope) }
        let triggers = zip(batch, facts).map { Self.trigger(of: $0.envelope, fact: $1) }
        let candidates = try await store.candidates(for: Set(triggers.compactMap { $0?.trigger }))
        var plans: [ChallengeTriggerPlan] = []
        for ((item, trigger), fact) in zip(zip(batch, triggers), facts) {
            var plan = ChallengeTriggerPlan(
                playerId: item.envelope.playerId ?? "", time: item.envelope.timestamp,
                cause: item.envelope.correlationId)
            if let trigger, let found = candidates[trigger.trigger] {
                try await fill(
                    &plan, trigger: trigger, candidates: found, at: item.envelope.timestamp, context: context)
            }
            if case .event(let event)? = fact {
                try await fillRuns(&plan, event: event, envelope: item.envelope, context: context)
            }
            plan.notices = await inbox.notices(for: item.envelope, fact: fact, context: context)
            plans.append(plan)
        }
        try await complete(restricted(plans, to: stream), stream: stream, through: last, context: context)
    }

    /// With challenges split into partitions, a batch applied for some of them (`stream` names
    /// them: ``StreamName/group(_:_:)``) changes only their challenges; the inbox items that are
    /// not about a challenge (an achievement earned, a friend request, a top spot lost) are made
    /// once, with partition 0.
    func restricted(_ plans: [ChallengeTriggerPlan], to stream: String) -> [ChallengeTriggerPlan] {
        guard let partitioning, let group = StreamName.partitions(of: stream).partitions else { return plans }
        let mine = Set(group)
        return plans.map { plan in
            var plan = plan
            plan.completions = plan.completions.filter {
                mine.contains(self.partition(of: $0.challengeId, partitioning))
            }
            plan.timedScores = plan.timedScores.filter {
                mine.contains(self.partition(of: $0.challengeId, partitioning))
            }
            if !mine.contains(0) { plan.notices = [] }
            return plan
        }
    }

    /// Writes the plans' completions with the stream position, then sends their notifications.
    func complete(_ plans: [ChallengeTriggerPlan], stream: String, through last: UInt64, context: ServiceContext)
        async throws
    {
        let now = clock.nowMilliseconds
        // The order of each time-boxed challenge these scores touch, to tell its participants
        // when it changes.
        var higher: [String: Bool] = [:]
        // The run that last touched each one names the request that caused its new order.
        var causes: [String: String] = [:]
        for plan in plans {
            for score in plan.timedScores {
                higher[score.challengeId] = score.higherIsBetter
                causes[score.challengeId] = plan.cause
            }
        }
        var before: [String: [String]] = [:]
        for (challengeId, higherIsBetter) in higher {
            if let challenge = try await store.challenge(challengeId) {
                before[challengeId] = ChallengeStandings.ranked(challenge.receivers, higherIsBetter: higherIsBetter)
                    .map(\.playerId)
            }
        }
        // A batch applied for several partitions at once records each one's position.
        let streams = StreamName.positionNames(of: stream)
        let written = try await store.apply(plans, streams: streams, through: last) {
            challenge, receiver, value, cause in
            let scores: String = challenge.issuerValue.map { " (\(value.map(String.init) ?? "?") against \($0))" } ?? ""
            return [
                (
                    challenge.gameId, receiver,
                    InboxItems.challenge(
                        kind: "challenge.completed",
                        message: "You completed \(challenge.issuerId)'s challenge" + scores, challenge: challenge,
                        at: now, cause: cause)
                ),
                (
                    challenge.gameId, challenge.issuerId,
                    InboxItems.challenge(
                        kind: "challenge.completed-by-receiver",
                        message: "\(receiver) completed your challenge" + scores, challenge: challenge,
                        at: now, extra: ["receiverId": .string(receiver)], cause: cause)
                ),
            ]
        }
        for note in written { await inbox.publish(note.item, to: note.playerId, gameId: note.gameId, context: context) }
        for (challengeId, higherIsBetter) in higher.sorted(by: { $0.key < $1.key }) {
            guard let challenge = try await store.challenge(challengeId) else { continue }
            let standings = ChallengeStandings.ranked(challenge.receivers, higherIsBetter: higherIsBetter)
            guard standings.map(\.playerId) != before[challengeId] else { continue }
            await tellStandings(challenge, standings: standings, cause: causes[challengeId], context: context)
        }
    }

    /// `challenge.standings` to every participant: sent live only, not kept in the inbox (the
    /// order changes too often to keep each; `challenge.standings` reads it any time).
    func tellStandings(
        _ challenge: ChallengeDetail, standings: [ChallengeStanding], cause: String?, context: ServiceContext
    ) async {
        let table = (try? WireCodec.jsonValue(standings)) ?? .array([])
        for participant in challenge.receivers {
            _ = try? await context.publisher.publish(
                type: .notification, topic: .notification(gameId: challenge.gameId, playerId: participant.playerId),
                payload: PlayerNotification(
                    kind: "challenge.standings",
                    message: "The standings of the challenge on \(challenge.boardId ?? "") changed",
                    details: ["challengeId": .string(challenge.challengeId), "standings": table]),
                gameId: challenge.gameId, playerId: participant.playerId, correlationId: cause)
        }
    }

    /// What a stream message is about: a score on a board (with the value it carried) or an
    /// achievement earned (how many times); nil for anything else.
    private static func trigger(of envelope: RawEnvelope, fact: StreamFact?)
        -> (trigger: ChallengeTrigger, value: Int64?, timesEarned: Int?, tag: String?)?
    {
        guard let gameId = envelope.gameId, let playerId = envelope.playerId else { return nil }
        switch fact {
        case .score(let receipt):
            // The score this submission carried must beat the issuer's (not an older best).
            return (
                ChallengeTrigger(gameId: gameId, playerId: playerId, kind: .score, target: receipt.boardId),
                receipt.submittedValue ?? receipt.entry.value, nil, receipt.challengeId
            )
        case .earned(let earned):
            return (
                ChallengeTrigger(gameId: gameId, playerId: playerId, kind: .achievement, target: earned.achievementId),
                nil,
                earned.timesEarned, nil
            )
        case .event, .friend, nil:
            return nil
        }
    }

    /// What one message completes or counts, given what its trigger touches.
    private func fill(
        _ plan: inout ChallengeTriggerPlan,
        trigger: (trigger: ChallengeTrigger, value: Int64?, timesEarned: Int?, tag: String?),
        candidates: TriggerCandidates, at time: Int64, context: ServiceContext
    ) async throws {
        let playerId = trigger.trigger.playerId
        switch trigger.trigger.kind {
        case .score:
            guard let submitted = trigger.value else { return }
            // A score submitted before the challenge was issued never completes it, even when
            // its message is read (from the outbox) after the issue.
            for pending in candidates.pending
            where ChallengeLifecycle.scoreCompletes(
                submitted: submitted, at: time, issuerValue: pending.issuerValue,
                higherIsBetter: pending.higherIsBetter,
                createdAt: pending.createdAt, expiresAt: pending.expiresAt)
            {
                plan.completions.append((pending.challengeId, playerId, submitted))
            }
            // Time-boxed challenges count every score submitted in their window (at the
            // submission's time, which the leaderboard stamped from the clock); a defined one
            // only the scores submitted as its runs.
            let running = candidates.timed.filter {
                ChallengeLifecycle.inWindow($0, at: time) && (!$0.tagged || $0.challengeId == trigger.tag)
            }
            if !running.isEmpty {
                let board = try await ServiceQuestions.board(
                    trigger.trigger.target, gameId: trigger.trigger.gameId, context: context)
                let higher = board.sortOrder != .lowerIsBetter
                plan.timedScores = running.map { ($0.challengeId, submitted, higher, $0.tagged) }
            }
        case .achievement:
            guard let timesEarned = trigger.timesEarned else { return }
            for pending in candidates.pending
            where ChallengeLifecycle.unlockCompletes(
                timesEarned: timesEarned, at: time, baseline: pending.baseline, expiresAt: pending.expiresAt)
            {
                plan.completions.append((pending.challengeId, playerId, nil))
            }
        default:
            return
        }
    }

    // MARK: - Declining, expiring, ending

    func decline(_ request: RawEnvelope, challengeId: String) async throws -> ChallengeDetail {
        let (gameId, playerId) = try Self.player(request)
        guard let challenge = try await store.challenge(challengeId), challenge.gameId == gameId,
            challenge.kind != .timed,
            let mine = challenge.receivers.first(where: { $0.playerId == playerId })
        else {
            throw ErrorReply(
                code: .unknownChallenge, message: "you have no such challenge to decline", field: "payload.challengeId")
        }
        guard ChallengeLifecycle.canDecline(kind: challenge.kind, state: mine.state),
            try await store.transition(
                challengeId: challengeId, playerId: playerId, from: mine.state, to: .declined, at: clock.nowMilliseconds
            )
        else {
            throw ErrorReply(
                code: .conflict, message: "the challenge is already \(mine.state.rawValue)",
                field: "payload.challengeId")
        }
        return try await store.challenge(challengeId) ?? challenge
    }

    /// Periodic work: expire pending challenges, invalidate those whose board or achievement was
    /// removed, end time-boxed ones and send the standings.
    func sweep(context: ServiceContext) async {
        let now = clock.nowMilliseconds
        do {
            _ = try await store.expire(now: now)
            let monotonicNow = clock.monotonicMilliseconds
            if monotonicNow - lastTargetCheck.value >= Self.targetCheckMilliseconds {
                lastTargetCheck.withLock { $0 = monotonicNow }
                try await invalidateRemovedTargets(now: now, context: context)
            }
            let monotonic = clock.monotonicMilliseconds
            let closed = try await store.runningTimedWindows().filter { ChallengeLifecycle.windowClosed($0, at: now) }
                .map(\.challengeId)
            let due = closing.withLock { $0.due(closed: closed, at: monotonic) }
            for challengeId in try await store.endTimed(due) {
                guard let challenge = try await store.challenge(challengeId) else { continue }
                let higher =
                    (try? await ServiceQuestions.board(
                        challenge.boardId ?? "", gameId: challenge.gameId, context: context
                    ).sortOrder) != .lowerIsBetter
                // The same order as challenge.standings (ties: the earlier score, then the player id).
                let standings = ChallengeStandings.ranked(challenge.receivers, higherIsBetter: higher)
                let table: JSONValue = .array(
                    standings.map { standing in
                        var row: [String: JSONValue] = [
                            "rank": .integer(Int64(standing.rank)), "playerId": .string(standing.playerId),
                            "value": .integer(standing.value),
                        ]
                        if let attempts = standing.attempts { row["attempts"] = .integer(Int64(attempts)) }
                        return .object(row)
                    })
                for participant in challenge.receivers {
                    await inbox.keepAndSend(
                        participant.playerId, gameId: challenge.gameId, kind: "challenge.ended",
                        message: "The challenge on \(challenge.boardId ?? "") has ended"
                            + (standings.first.map { ": \($0.playerId) won with \($0.value)" } ?? ": nobody scored"),
                        challenge: challenge, context: context, extra: ["standings": table])
                }
            }
        } catch {
            context.logger.error("challenge sweep failed", metadata: ["error": "\(error)"])
        }
    }

    /// Pending challenges on a board or achievement the game no longer has become invalid.
    private func invalidateRemovedTargets(now: Int64, context: ServiceContext) async throws {
        var boards: [String: Set<String>] = [:]
        var achievements: [String: Set<String>] = [:]
        for pending in try await store.pendingTargets() {
            let exists: Bool
            switch pending.kind {
            case .score:
                if boards[pending.gameId] == nil {
                    // Unknown now (the leaderboard service did not answer): try again next time.
                    guard
                        let list = try? await context.call(
                            LeaderboardRequests.boards, EmptyPayload(), gameId: pending.gameId)
                    else { continue }
                    boards[pending.gameId] = Set(list.leaderboards.map(\.id))
                }
                exists = boards[pending.gameId]?.contains(pending.target) ?? true
            default:
                if achievements[pending.gameId] == nil {
                    guard
                        let list = try? await context.call(
                            AchievementRequests.definitions, EmptyPayload(), gameId: pending.gameId)
                    else {
                        continue
                    }
                    achievements[pending.gameId] = Set(list.achievements.map(\.id))
                }
                exists = achievements[pending.gameId]?.contains(pending.target) ?? true
            }
            if !exists {
                let count = try await store.invalidate(
                    gameId: pending.gameId, kind: pending.kind, target: pending.target, at: now)
                context.logger.info(
                    "challenges invalid: target removed",
                    metadata: ["target": "\(pending.target)", "receivers": "\(count)"])
            }
        }
    }

    // MARK: - Views

    func candidates(_ request: RawEnvelope, context: ServiceContext) async throws -> [String] {
        let (gameId, playerId) = try Self.player(request)
        let friends = try await context.call(AuthRequests.friendsOf, FriendsOfQuery(playerId: playerId)).friendIds
        if let achievementId = request.payload["achievementId"]?.stringValue {
            let repeatable = try await ServiceQuestions.isRepeatable(achievementId, gameId: gameId, context: context)
            var result: [String] = []
            for friend in friends {
                let theirs = try await ServiceQuestions.achievement(
                    achievementId, gameId: gameId, playerId: friend, context: context)
                if repeatable || !theirs.earned { result.append(friend) }
            }
            return result
        }
        guard let boardId = request.payload["boardId"]?.stringValue, let score = request.payload["score"]?.integerValue
        else {
            throw ErrorReply(code: .missingField, message: "give achievementId, or boardId and score", field: "payload")
        }
        let higher =
            try await ServiceQuestions.board(boardId, gameId: gameId, context: context).sortOrder == .higherIsBetter
        var result: [String] = []
        for friend in friends {
            let value = try await ServiceQuestions.entry(boardId, gameId: gameId, playerId: friend, context: context)
            if let value, higher ? value >= score : value <= score { continue }
            result.append(friend)
        }
        return result
    }

    func list(_ request: RawEnvelope, state raw: String?, issued: Bool) async throws -> [ChallengeDetail] {
        let (gameId, playerId) = try Self.player(request)
        var state: ChallengeState?
        if let raw {
            guard let parsed = ChallengeState(rawValue: raw) else {
                throw ErrorReply(
                    code: .invalidField, message: "state is pending, completed, declined or invalid",
                    field: "payload.state")
            }
            state = parsed
        }
        return try await store.challenges(gameId: gameId, playerId: playerId, issued: issued, state: state)
    }

    func detail(_ request: RawEnvelope, challengeId: String) async throws -> ChallengeDetail {
        let (gameId, playerId) = try Self.player(request)
        guard let challenge = try await store.challenge(challengeId), challenge.gameId == gameId,
            challenge.issuerId == playerId || challenge.receivers.contains(where: { $0.playerId == playerId })
        else {
            throw ErrorReply(
                code: .unknownChallenge, message: "you have no such challenge", field: "payload.challengeId")
        }
        return challenge
    }

    /// An operator ends a running time-boxed challenge now: decided as if its time had run out
    /// (later scores do not count; the sweep closes it after the grace for scores in flight).
    func endEarly(gameId: String, challengeId: String) async throws -> ChallengeDetail {
        guard let challenge = try await store.challenge(challengeId), challenge.gameId == gameId else {
            throw ErrorReply(
                code: .unknownChallenge, message: "this game has no such challenge", field: "payload.challengeId")
        }
        guard challenge.kind == .timed else {
            throw ErrorReply(
                code: .conflict, message: "only a time-boxed challenge can be ended early", field: "payload.challengeId"
            )
        }
        guard try await store.endTimedEarly(challengeId, now: clock.nowMilliseconds),
            let ended = try await store.challenge(challengeId)
        else {
            throw ErrorReply(
                code: .conflict, message: "the challenge is no longer running", field: "payload.challengeId")
        }
        return ended
    }

    // MARK: - Helpers

    private func checkReceivers(_ receivers: [String], issuer: String, gameId: String, context: ServiceContext)
        async throws -> [String]
    {
        var seen = Set<String>()
        let unique = receivers.filter { seen.insert($0).inserted }
        guard (1...Self.maximumReceivers).contains(unique.count) else {
            throw ErrorReply(
                code: .invalidField, message: "challenge 1-\(Self.maximumReceivers) players", field: "payload.receivers"
            )
        }
        for receiver in unique {
            guard receiver != issuer else {
                throw ErrorReply(
                    code: .invalidField, message: "you cannot challenge yourself", field: "payload.receivers")
            }
            let known = try await context.call(AuthRequests.players, ProfileLookup(playerIds: [receiver]))
            guard !known.players.isEmpty else {
                throw ErrorReply(code: .unknownPlayer, message: "no player \(receiver)", field: "payload.receivers")
            }
            let relation = try await context.call(
                AuthRequests.friendCheck, FriendshipQuery(playerId: issuer, otherPlayerId: receiver))
            if relation.blocked {
                throw ErrorReply(code: .forbidden, message: "one of you blocked the other", field: "payload.receivers")
            }
            if !relation.friends && !openGames.contains(gameId) {
                throw ErrorReply(
                    code: .forbidden, message: "\(receiver) is not your friend", field: "payload.receivers")
            }
        }
        return unique
    }

    static func player(_ request: RawEnvelope) throws -> (gameId: String, playerId: String) {
        guard let gameId = request.gameId else {
            throw ErrorReply(code: .missingField, message: "give the gameId", field: "gameId")
        }
        return (gameId, try request.subjectPlayer())
    }

    static func message(_ text: String?) throws -> String? {
        guard let text else { return nil }
        guard text.count <= maximumMessageLength,
            !text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
        else {
            throw ErrorReply(
                code: .invalidField,
                message: "a message is at most \(maximumMessageLength) characters, without control characters",
                field: "payload.message")
        }
        return text
    }
}
