import Configuration
import Foundation
import PodiumMessages
import PodiumRuntime

/// `podium-leaderboard`: leaderboards defined per game, score submissions, ranks and views.
///
/// Reads `PODIUM_GAMES_DIR` (default `./games`): one JSON game configuration per file
/// (docs/GAME-CONFIG.md).
public enum LeaderboardService {
    /// The service name: its request types start with `leaderboard.`.
    public static let name = "leaderboard"

    /// Bus topic prefixes the service subscribes to: the auth stream's (account deletions, and
    /// friend news it passes over), as a follower of that stream; scores arrive as requests.
    public static let subscriptions: [String] = [AccountErasure.topicPrefix]

    /// Builds the service on the store `openStore` opens; `catalog` nil reads the game
    /// configurations from the environment.
    public static func blueprint(catalog: GameCatalog? = nil, openStore: @escaping LeaderboardStoreOpener)
        -> ServiceBlueprint
    {
        ServiceBlueprint(name: name) { settings, clock in
            let catalog = try catalog ?? GameCatalog(directory: GameFiles.configuredDirectory())
            let store = try await openStore(settings)
            // With leases (several instances on PostgreSQL) the boards are split into partitions
            // (by board: PartitionKey), each served by the instance holding its lease.
            let partitioning =
                store.leases != nil && settings.partitions > 1 ? PartitionMap(partitions: settings.partitions) : nil
            if let partitioning { store.partition(by: partitioning) }
            let scoreboard = Scoreboard(catalog: catalog, store: store, clock: clock, partitioning: partitioning)
            // With leases the standings are loaded when this instance gains partitions
            // (onOwnershipGained), from what the last owner left.
            if store.leases == nil { try await scoreboard.load() }
            var service = definition(scoreboard, refreshesDefinitions: store.leases != nil)
            service.use(store, outboxStream: name)
            service.partitionMap = partitioning
            // Account deletions: every instance erases the player from its partitions' boards.
            service.follows = [StreamName.auth]
            service.consumer = scoreboard
            if partitioning != nil { service.broadcastsStreams = true }
            // The standings in memory are this instance's view: read those of the gained
            // partitions again from the store, where the previous owner left them.
            service.onOwnershipGained = { _, partitions in
                try await scoreboard.load(partitions: partitioning == nil ? nil : partitions)
            }
            service.onOwnershipLost = { partitions in
                if partitioning != nil { scoreboard.unload(partitions: partitions) }
            }
            return service
        }
    }

    /// The service's requests; `refreshesDefinitions`: other instances share the boards (leases),
    /// so the lists of boards read operators' definitions from the store first.
    static func definition(_ scoreboard: Scoreboard, refreshesDefinitions: Bool = false) -> ServiceDefinition {
        typealias Requests = LeaderboardRequests
        return ServiceDefinition(
            name: name, subscriptions: subscriptions,
            handlers: [
                Requests.boards.handler { request, _ in
                    if refreshesDefinitions { try await scoreboard.refreshDefinitions() }
                    return BoardList(leaderboards: try game(request, scoreboard).leaderboards)
                },
                Requests.sets.handler { request, _ in
                    if refreshesDefinitions { try await scoreboard.refreshDefinitions() }
                    return BoardSetList(leaderboardSets: try game(request, scoreboard).leaderboardSets ?? [])
                },
                Requests.games.handler { _, _ in
                    if refreshesDefinitions { try await scoreboard.refreshDefinitions() }
                    return GameList(
                        games: scoreboard.catalog.value.games.values.sorted { $0.gameId < $1.gameId }.map {
                            GameList.Game(gameId: $0.gameId, leaderboards: $0.leaderboards.count)
                        })
                },
                Requests.define.handler { request, _ in
                    LeaderboardDefinitionChange(
                        definition: try await scoreboard.define(request.payload.definition, gameId: try request.game()))
                },
                Requests.remove.handler { request, _ in
                    try await scoreboard.remove(boardId: request.payload.boardId, gameId: try request.game())
                    return BoardRemoved(removed: request.payload.boardId)
                },
                Requests.removeScore.handler { request, _ in
                    try await scoreboard.removeScore(request.payload, gameId: try request.game())
                },
                Requests.reset.handler { request, _ in
                    try await scoreboard.reset(request.payload, gameId: try request.game())
                },
                Requests.archives.handler { request, _ in
                    try await scoreboard.archives(request.payload, gameId: try request.game())
                },
                Requests.submit.handler { request, context in
                    try await scoreboard.submit(request.envelope, request.payload, context: context)
                },
                Requests.entry.handler { request, context in
                    EntryReply(
                        entry: try await scoreboard.entry(request.envelope, query: request.payload, context: context))
                },
                Requests.top.handler { request, context in
                    try await scoreboard.top(request.envelope, query: request.payload, context: context)
                },
                Requests.around.handler { request, context in
                    try await scoreboard.around(request.envelope, query: request.payload, context: context)
                },
                Requests.history.handler { request, _ in
                    try await scoreboard.history(request.envelope, query: request.payload)
                },
                Requests.export.handler { request, _ in try await scoreboard.export(request.payload) },
            ])
    }

    static func game(_ request: ServiceRequest<EmptyPayload>, _ scoreboard: Scoreboard) throws -> GameConfiguration {
        guard let gameId = request.gameId, let game = scoreboard.catalog.value.games[gameId] else {
            throw ErrorReply(
                code: .unknownGame, message: "this server has no game '\(request.gameId ?? "")'", field: "gameId")
        }
        return game
    }
}
