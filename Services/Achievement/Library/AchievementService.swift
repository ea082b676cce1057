import Configuration
import Foundation
import Logging
import PodiumMessages
import PodiumRuntime

/// `podium-achievement`: achievements per game, direct progress reports, and rules that unlock
/// them from the game's events (docs/GAME-CONFIG.md).
public enum AchievementService {
    /// The service name: its request types start with `achievement.`.
    public static let name = "achievement"

    /// Bus topic prefixes the service subscribes to.
    public static let subscriptions = [Topic.allGameEvents, AccountErasure.topicPrefix]

    /// Builds the service on the store `openStore` opens; `catalog` nil reads the game
    /// configurations from `PODIUM_GAMES_DIR`.
    public static func blueprint(catalog: AchievementCatalog? = nil, openStore: @escaping AchievementStoreOpener)
        -> ServiceBlueprint
    {
        ServiceBlueprint(name: name) { settings, clock in
            let catalog = try catalog ?? AchievementCatalog(directory: GameFiles.configuredDirectory())
            let store = try await openStore(settings)
            let achievements = Achievements(catalog: catalog, store: store, clock: clock)
            try await achievements.loadOperatorChanges(logger: Logger(label: "podium.achievement"))
            try await achievements.loadErasedPlayers()
            var service = definition(achievements)
            service.use(store, outboxStream: name)
            // Another instance may have changed operator definitions while this one stood by.
            service.onOwnershipGained = { context, _ in
                try await achievements.loadOperatorChanges(logger: context.logger)
                try await achievements.loadErasedPlayers()
            }
            // With several instances (leases in PostgreSQL) the players are split into
            // partitions: each instance serves its players' requests and applies their events
            // (a consumer group on the event log), and reads operators' definitions again every
            // second (another instance may have changed them).
            if store.leases != nil, settings.partitions > 1 {
                let map = PartitionMap(partitions: settings.partitions)
                achievements.partitionMap.withLock { $0 = map }
                service.partitionMap = map
                // A deleted player's records are in the partitions of each of their games.
                service.broadcastStreams = [StreamName.auth]
                service.streamKey = { _, message in
                    guard let gameId = message.envelope.gameId, let playerId = message.envelope.playerId else {
                        return nil
                    }
                    return PartitionKey.player(gameId: gameId, playerId: playerId)
                }
                service.onEveryInstance = { context in
                    // Quiet: a stored definition that no longer fits was logged when it was loaded.
                    var quiet = context.logger
                    quiet.logLevel = .critical
                    while !Task.isCancelled {
                        try? await context.clock.sleep(for: .seconds(1))
                        try? await achievements.loadOperatorChanges(logger: quiet)
                    }
                }
            }
            return service
        }
    }

    /// The service without any game (for stacks that do not use achievements).
    public static func definition() -> ServiceDefinition {
        ServiceDefinition(name: name, subscriptions: subscriptions)
    }

    static func definition(_ achievements: Achievements) -> ServiceDefinition {
        typealias Requests = AchievementRequests
        return ServiceDefinition(
            name: name, subscriptions: subscriptions,
            handlers: [
                Requests.report.handler { request, context in
                    let (outcomes, duplicate) = try await achievements.report(
                        request.envelope, request.payload, context: context)
                    return ProgressReportReply(outcomes: outcomes, duplicate: duplicate ? true : nil)
                },
                Requests.eventEffects.handler { request, context in
                    guard let sequence = request.payload.sequence else {
                        throw ErrorReply(code: .missingField, message: "give the sequence", field: "payload.sequence")
                    }
                    return try await achievements.effects(of: sequence, lookup: request.payload, context: context)
                },
                Requests.list.handler { request, _ in try await achievements.list(request.envelope) },
                Requests.definitions.handler { request, _ in
                    let definitions = try achievements.catalog.value.achievements(of: request.gameId)
                    // Hidden ones are left out for players, as Game Center's descriptions do.
                    return AchievementDefinitionList(
                        achievements: request.caller.kind == .player ? definitions.filter { !$0.hidden } : definitions)
                },
                Requests.reset.handler { request, _ in
                    AchievementResetReceipt(
                        resetAchievements: try await achievements.reset(request.envelope, request.payload))
                },
                Requests.rebuild.handler { request, context in
                    try await achievements.rebuild(request.payload, context: context)
                },
                Requests.define.handler { request, _ in
                    try await achievements.define(request.payload.definition, gameId: try request.game())
                    return request.payload
                },
                Requests.export.handler { request, _ in try await achievements.export(request.payload) },
            ],
            follows: [StreamName.events, StreamName.auth], consumer: achievements)
    }
}
