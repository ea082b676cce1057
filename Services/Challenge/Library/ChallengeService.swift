import Configuration
import Foundation
import PodiumMessages
import PodiumRuntime

/// `podium-challenge`: players challenge friends to beat a score or earn an achievement, and
/// time-boxed challenges on a board; completions follow from the leaderboard's and the achievement
/// service's bus messages; every notification is also kept in an inbox.
///
/// `PODIUM_CHALLENGE_OPEN_GAMES` (comma-separated game ids) lists games whose challenges may go to
/// players who are not friends; elsewhere receivers must be friends. The service also keeps every
/// player's notification inbox (`inbox.*`), items kept `PODIUM_INBOX_RETENTION_DAYS` (default 90).
public enum ChallengeService {
    /// The service name: its request types start with `challenge.`.
    public static let name = "challenge"

    /// Accepted scores, earned achievements and friend requests (the leaderboard's, achievement
    /// service's and auth service's outboxes), and game events (the gateway's log: runs of
    /// defined challenges).
    public static let subscriptions = [
        "score/", "achievement/", AccountErasure.topicPrefix, Topic.allGameEvents,
    ]

    /// How often expiries and the ends of time-boxed challenges are checked.
    static let sweepInterval = Duration.milliseconds(500)

    /// Builds the service on the store `openStore` opens; `openGames` nil reads
    /// `PODIUM_CHALLENGE_OPEN_GAMES`.
    public static func blueprint(
        openGames: Set<String>? = nil, inboxRetentionDays: Int? = nil, catalog: ChallengeCatalog? = nil,
        openStore: @escaping ChallengeStoreOpener
    ) -> ServiceBlueprint {
        ServiceBlueprint(name: name) { settings, clock in
            let open =
                openGames
                ?? Set(
                    RuntimeSettings.environmentReader().string(forKey: "podium.challenge.open.games", default: "")
                        .split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty })
            let retention = try inboxRetentionDays ?? Self.inboxRetentionDays(RuntimeSettings.environmentReader())
            let files = try catalog ?? ChallengeCatalog(directory: GameFiles.configuredDirectory())
            let store = try await openStore(settings)
            var catalog = files
            catalog.apply(try await store.operatorDefinitions())
            let challenges = Challenges(
                store: store, clock: clock, openGames: open,
                inbox: ChallengeInbox(store: store, clock: clock, retentionDays: retention),
                definitions: ChallengeDefinitions(store: store, catalog: catalog))
            var service = definition(challenges, files: store.leases != nil ? files : nil)
            service.use(store, outboxStream: nil)
            // A standby that takes over reads the operators' definition changes the last owner made.
            service.onOwnershipGained = { _, _ in try await challenges.definitions.reload(over: files) }
            // With several instances (leases in PostgreSQL) the challenges are split into
            // partitions by id: each instance serves its challenges' requests, creates new ones in
            // its partitions, and applies the streams' facts to its challenges (every fact in every
            // partition: a score is a fact for every challenge it touches); the inbox items that
            // are not about a challenge come with partition 0, and so does the sweep. Operators'
            // definitions are read again every second on every instance.
            if store.leases != nil, settings.partitions > 1 {
                let map = PartitionMap(partitions: settings.partitions)
                challenges.partitionMap.withLock { $0 = map }
                service.partitionMap = map
                service.broadcastsStreams = true
                service.onEveryInstance = { context in
                    while !Task.isCancelled {
                        try? await context.clock.sleep(for: .seconds(1))
                        try? await challenges.definitions.reload(over: files)
                    }
                }
            }
            return service
        }
    }

    /// `PODIUM_INBOX_RETENTION_DAYS` (1-3650, default 90): how long inbox items are kept.
    static func inboxRetentionDays(_ reader: ConfigReader) throws -> Int {
        let days = reader.int(forKey: "podium.inbox.retention.days", default: 90)
        guard (1...3650).contains(days) else {
            throw ConfigurationProblem("PODIUM_INBOX_RETENTION_DAYS must be 1-3650 (it is \(days))")
        }
        return days
    }

    /// The service without storage (for stacks that do not use challenges).
    public static func definition() -> ServiceDefinition {
        ServiceDefinition(name: name, subscriptions: subscriptions)
    }

    /// `files`: with other instances sharing the challenges (leases), the game files' catalog, over
    /// which the definitions are read again before they are listed or a defined challenge starts
    /// (an operator may have changed them at another instance a moment ago).
    static func definition(_ challenges: Challenges, files: ChallengeCatalog? = nil) -> ServiceDefinition {
        typealias Requests = ChallengeRequests
        let fresh: @Sendable () async throws -> Void = {
            if let files { try await challenges.definitions.reload(over: files) }
        }
        return ServiceDefinition(
            name: name, subscriptions: subscriptions,
            handlers: [
                Requests.issue.handler { request, context in
                    try await challenges.issue(request.envelope, request.payload, context: context)
                },
                Requests.start.handler { request, context in
                    if request.payload.definitionId != nil { try await fresh() }
                    return try await challenges.start(request.envelope, request.payload, context: context)
                },
                Requests.list.handler { request, _ in
                    let limit = request.payload.limit ?? 50
                    guard (1...200).contains(limit) else {
                        throw ErrorReply(code: .invalidField, message: "limit is 1-200", field: "payload.limit")
                    }
                    let recent = try await challenges.store.recent(
                        gameId: try request.game(), openOnly: request.payload.openOnly ?? false, limit: limit)
                    return ChallengeList(challenges: recent)
                },
                Requests.define.handler { request, context in
                    try await challenges.definitions.define(
                        request.payload, gameId: try request.game(), context: context)
                },
                Requests.remove.handler { request, context in
                    try await challenges.definitions.remove(
                        request.payload, gameId: try request.game(), context: context)
                },
                Requests.end.handler { request, _ in
                    try await challenges.endEarly(gameId: try request.game(), challengeId: request.payload.challengeId)
                },
                Requests.rematch.handler { request, context in
                    try await challenges.rematch(
                        request.envelope, challengeId: request.payload.challengeId, context: context)
                },
                Requests.decline.handler { request, _ in
                    try await challenges.decline(request.envelope, challengeId: request.payload.challengeId)
                },
                Requests.received.handler { request, _ in
                    ChallengeList(
                        challenges: try await challenges.list(
                            request.envelope, state: request.payload.state, issued: false))
                },
                Requests.issued.handler { request, _ in
                    ChallengeList(
                        challenges: try await challenges.list(
                            request.envelope, state: request.payload.state, issued: true))
                },
                Requests.detail.handler { request, _ in
                    try await challenges.detail(request.envelope, challengeId: request.payload.challengeId)
                },
                Requests.candidates.handler { request, context in
                    ChallengeCandidates(playerIds: try await challenges.candidates(request.envelope, context: context))
                },
                Requests.inbox.handler { request, _ in
                    try await challenges.inbox.challengeKinds(
                        request.envelope, after: request.payload.after, unreadOnly: request.payload.unreadOnly == true)
                },
                Requests.inboxRead.handler { request, _ in
                    try await challenges.inbox.markRead(request.envelope, ids: request.payload.ids)
                },
                Requests.invite.handler { request, context in
                    try await challenges.invite(request.envelope, request.payload, context: context)
                },
                Requests.join.handler { request, context in
                    try await challenges.join(request.envelope, request.payload, context: context)
                },
                Requests.joinChallenge.handler { request, context in
                    try request.envelope.requireService("challenge.join-challenge is the challenge instances' own")
                    return try await challenges.admit(request.payload, gameId: try request.game(), context: context)
                },
                Requests.standings.handler { request, context in
                    try await challenges.standings(
                        request.envelope, challengeId: request.payload.challengeId, context: context)
                },
                Requests.definitions.handler { request, _ in
                    try await fresh()
                    return ChallengeDefinitionList(definitions: try challenges.definitions.list(request.envelope))
                },
                Requests.inboxList.handler { request, _ in
                    try await challenges.inbox.list(request.envelope, request.payload)
                },
                Requests.inboxUnread.handler { request, _ in try await challenges.inbox.unread(request.envelope) },
                Requests.inboxMarkRead.handler { request, _ in
                    try await challenges.inbox.markRead(request.envelope, request.payload)
                },
                Requests.inboxDelete.handler { request, _ in
                    try await challenges.inbox.delete(request.envelope, request.payload)
                },
                Requests.inboxNotify.handler { request, context in
                    try await challenges.inbox.operatorNotice(request.envelope, request.payload, context: context)
                },
                Requests.export.handler { request, _ in try await challenges.export(request.payload) },
            ],
            background: { context in
                while !Task.isCancelled {
                    await challenges.sweep(context: context)
                    await challenges.inbox.prune(context: context)
                    try? await context.clock.sleep(for: sweepInterval)
                }
            },
            follows: [StreamName.leaderboard, StreamName.achievement, StreamName.auth, StreamName.events],
            consumer: challenges)
    }
}
