import PodiumMessages
import PodiumRuntime

/// Completions follow the leaderboard's and the achievement service's outboxes, friend requests
/// the auth service's, runs by event the gateway's event log: every message once, in order,
/// across restarts.
extension Challenges: DurableConsumer {
    func position(of stream: String) async throws -> UInt64 {
        try await store.position(of: stream)
    }

    func apply(_ message: StreamMessage, stream: String, sequence: UInt64, context: ServiceContext) async throws {
        try await apply(message.envelope, stream: stream, sequence: sequence, context: context)
    }

    func apply(batch: [(message: StreamMessage, sequence: UInt64)], stream: String, context: ServiceContext)
        async throws
    {
        // Account deletions (the auth stream) are applied on their own, in stream order with
        // the messages around them.
        var run: [(envelope: RawEnvelope, sequence: UInt64)] = []
        for (message, sequence) in batch {
            guard message.envelope.type == .accountDeleted else {
                run.append((message.envelope, sequence))
                continue
            }
            if !run.isEmpty { try await apply(batch: run, stream: stream, context: context) }
            run = []
            guard let erasure = try? message.envelope.decodePayload(as: AccountErasure.self) else {
                context.logger.error(
                    "an account deletion could not be read", metadata: ["stream": "\(stream)", "seq": "\(sequence)"])
                try await complete([], stream: stream, through: sequence, context: context)
                continue
            }
            try await erase(erasure, stream: stream, through: sequence, context: context)
        }
        if !run.isEmpty { try await apply(batch: run, stream: stream, context: context) }
    }

    /// Erases a deleted player (docs/PROTOCOL.md 8.14) from the challenges of `stream`'s
    /// partitions (every challenge when not partitioned): the pending receivers of the
    /// challenges they issued are told the challenge is no longer valid, they leave the ones
    /// they take part in, and (with partition 0) their inbox goes; with the position, in one
    /// transaction.
    func erase(_ erasure: AccountErasure, stream: String, through sequence: UInt64, context: ServiceContext)
        async throws
    {
        let group = StreamName.partitions(of: stream).partitions
        let streams = StreamName.positionNames(of: stream)
        var (issued, received) = try await store.challengeIds(ofPlayer: erasure.playerId)
        if let group, let partitioning {
            let mine = Set(group)
            issued = issued.filter { mine.contains(partition(of: $0, partitioning)) }
            received = received.filter { mine.contains(partition(of: $0, partitioning)) }
        }
        let now = clock.nowMilliseconds
        let written = try await store.erase(
            erasure, issued: issued, received: received, inbox: group?.contains(0) ?? true, streams: streams,
            through: sequence
        ) { challenge, receiver in
            [
                (
                    challenge.gameId, receiver,
                    InboxItems.challenge(
                        kind: "challenge.invalid",
                        message: "This challenge is no longer valid: the player who issued it deleted their account",
                        challenge: challenge, at: now)
                )
            ]
        }
        for note in written { await inbox.publish(note.item, to: note.playerId, gameId: note.gameId, context: context) }
        context.logger.notice(
            "deleted player erased from challenges",
            metadata: [
                "player.id": "\(erasure.playerId)", "issued": "\(issued.count)", "received": "\(received.count)",
            ])
    }

    /// Messages of `stream` were pruned before they were read (a restored backup): every pending
    /// score or achievement challenge that stream could have completed is checked against the
    /// owner's current state (the receiver's entry on the board, the receiver's unlocks), and
    /// the ones it shows completed are completed, with the position, in one transaction.
    /// Scores that only counted inside a time-boxed window are not recovered (the board keeps
    /// each player's best, not every submission).
    ///
    /// Friend requests of the auth stream that were lost make no items: the relations are the
    /// auth service's (`auth.friends.list` shows them); the position moves past them, logged.
    func recover(stream: String, lost: ClosedRange<UInt64>, context: ServiceContext) async throws {
        // A consumer group member recovers for the partitions the name lists, the stream's kind
        // from its base name.
        let base = StreamName.partitions(of: stream).stream
        guard base != StreamName.events else {
            // Runs by event that were pruned before they were read cannot be told again.
            try await complete([], stream: stream, through: lost.upperBound, context: context)
            context.logger.warning(
                "game events lost before they were read: runs by event in them are not counted",
                metadata: ["stream": "\(stream)", "lost": "\(lost.lowerBound)-\(lost.upperBound)"])
            return
        }
        guard base != StreamName.auth else {
            try await complete([], stream: stream, through: lost.upperBound, context: context)
            context.logger.error(
                "auth stream messages lost before they were read: friend requests in them make no inbox items and account deletions in them are not applied here (delete those accounts again)",
                metadata: ["stream": "\(stream)", "lost": "\(lost.lowerBound)-\(lost.upperBound)"])
            return
        }
        let kind: ChallengeKind = base == StreamName.leaderboard ? .score : .achievement
        var plans: [ChallengeTriggerPlan] = []
        let targets = try await store.pendingTargets().filter { $0.kind == kind }
        for gameId in Set(targets.map(\.gameId)).sorted() {
            var receivers: [(playerId: String, target: String)] = []
            for challenge in try await store.recent(gameId: gameId, openOnly: true, limit: 1000)
            where challenge.kind == kind {
                guard let target = kind == .score ? challenge.boardId : challenge.achievementId else { continue }
                for receiver in challenge.receivers where receiver.state == .pending {
                    receivers.append((receiver.playerId, target))
                }
            }
            var seen = Set<String>()
            for (playerId, target) in receivers where seen.insert("\(playerId)\u{0}\(target)").inserted {
                let pending = try await store.pending(gameId: gameId, playerId: playerId, kind: kind, target: target)
                guard !pending.isEmpty else { continue }
                if kind == .score {
                    let entry = try await context.call(
                        LeaderboardRequests.entry, BoardQuery(boardId: target), gameId: gameId, playerId: playerId
                    ).entry
                    guard let entry else { continue }
                    var plan = ChallengeTriggerPlan(playerId: playerId, time: entry.submittedAt)
                    for receiver in pending
                    where ChallengeLifecycle.scoreCompletes(
                        submitted: entry.value, at: entry.submittedAt, issuerValue: receiver.issuerValue,
                        higherIsBetter: receiver.higherIsBetter, createdAt: receiver.createdAt,
                        expiresAt: receiver.expiresAt)
                    {
                        plan.completions.append((receiver.challengeId, playerId, entry.value))
                    }
                    if !plan.completions.isEmpty { plans.append(plan) }
                } else {
                    let list = try await context.call(
                        AchievementRequests.list, EmptyPayload(), gameId: gameId, playerId: playerId)
                    guard let status = list.achievements.first(where: { $0.id == target }), status.timesEarned > 0
                    else { continue }
                    let at = status.earnedAt ?? clock.nowMilliseconds
                    var plan = ChallengeTriggerPlan(playerId: playerId, time: at)
                    for receiver in pending
                    where ChallengeLifecycle.unlockCompletes(
                        timesEarned: status.timesEarned, at: at, baseline: receiver.baseline,
                        expiresAt: receiver.expiresAt)
                    {
                        plan.completions.append((receiver.challengeId, playerId, nil))
                    }
                    if !plan.completions.isEmpty { plans.append(plan) }
                }
            }
        }
        try await complete(restricted(plans, to: stream), stream: stream, through: lost.upperBound, context: context)
        context.logger.warning(
            "challenges rechecked after lost stream messages",
            metadata: ["stream": "\(stream)", "completed": "\(plans.reduce(0) { $0 + $1.completions.count })"])
    }

    /// The player's part of an export (`challenge.export`): the challenges they issued and take
    /// part in, and their inbox in every game, read from the store.
    func export(_ target: ExportTarget) async throws -> ChallengeExport {
        let (issued, received) = try await store.challengeIds(ofPlayer: target.playerId)
        var issuedDetails: [ChallengeDetail] = []
        for id in issued { if let detail = try await store.challenge(id) { issuedDetails.append(detail) } }
        var receivedDetails: [ChallengeDetail] = []
        for id in received { if let detail = try await store.challenge(id) { receivedDetails.append(detail) } }
        return ChallengeExport(
            issued: issuedDetails.sorted { $0.createdAt > $1.createdAt },
            received: receivedDetails.sorted { $0.createdAt > $1.createdAt },
            inbox: try await store.inboxItems(ofPlayer: target.playerId))
    }
}
