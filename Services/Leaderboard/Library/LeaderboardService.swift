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

    /// Bus topic prefixes the service subscribes to: none (scores arrive as requests).
    public static let subscriptions: [String] = []

    /// Builds the service on the store `openStore` opens; `catalog` nil reads the game
    /// configurations from the environment.
    public static func blueprint(catalog: GameCatalog? = nil, openStore: @escaping LeaderboardStoreOpener) -> ServiceBlueprint {
        ServiceBlueprint(name: name) { settings, clock in
            let catalog = try catalog ?? GameCatalog(directory: GameFiles.configuredDirectory())
            let store = try await openStore(settings)
            let scoreboard = Scoreboard(catalog: catalog, store: store, clock: clock)
            try await scoreboard.load()
            var service = definition(scoreboard)
            service.outbox = OutboxRelay(stream: name, reader: store.durable)
            service.storage = store.location
            service.shutdown = { await store.close() }
            service.sizedStorage = store as? any StorageSize
            service.receipts = store.durable
            return service
        }
    }

    static func definition(_ scoreboard: Scoreboard) -> ServiceDefinition {
        ServiceDefinition(
            name: name, subscriptions: subscriptions,
            requestHandlers: [
                "leaderboard.boards": { request, _ in
                    let game = try game(request, scoreboard)
                    return try WireCodec.jsonValue(["leaderboards": game.leaderboards])
                },
                "leaderboard.sets": { request, _ in
                    let game = try game(request, scoreboard)
                    return try WireCodec.jsonValue(["leaderboardSets": game.leaderboardSets ?? []])
                },
                "leaderboard.admin.define": { request, _ in
                    let change = try payload(request, as: DefinitionChange.self)
                    return try WireCodec.jsonValue(["definition": await scoreboard.define(change.definition, gameId: try gameId(request))])
                },
                "leaderboard.admin.remove": { request, _ in
                    let query = try payload(request, as: Scoreboard.BoardQuery.self)
                    try await scoreboard.remove(boardId: query.boardId, gameId: try gameId(request))
                    return ["removed": .string(query.boardId)]
                },
                "leaderboard.admin.remove-score": { request, _ in
                    try request.requireOperator()
                    return try WireCodec.jsonValue(await scoreboard.removeScore(try payload(request, as: ScoreRemoval.self), gameId: try gameId(request)))
                },
                "leaderboard.admin.reset": { request, _ in
                    try request.requireOperator()
                    return try WireCodec.jsonValue(await scoreboard.reset(try payload(request, as: BoardTarget.self), gameId: try gameId(request)))
                },
                "leaderboard.archives": { request, _ in
                    try WireCodec.jsonValue(await scoreboard.archives(try payload(request, as: BoardTarget.self), gameId: try gameId(request)))
                },
                "leaderboard.submit": { request, context in
                    let submission = try payload(request, as: ScoreSubmission.self)
                    return try WireCodec.jsonValue(await scoreboard.submit(request, submission, context: context))
                },
                "leaderboard.entry": { request, context in
                    let entry = try await scoreboard.entry(request, query: try payload(request, as: Scoreboard.BoardQuery.self), context: context)
                    return ["entry": try entry.map { try WireCodec.jsonValue($0) } ?? .null]
                },
                "leaderboard.top": { request, context in
                    try WireCodec.jsonValue(
                        await scoreboard.top(request, query: try payload(request, as: Scoreboard.BoardQuery.self), context: context))
                },
                "leaderboard.around": { request, context in
                    try WireCodec.jsonValue(
                        await scoreboard.around(request, query: try payload(request, as: Scoreboard.BoardQuery.self), context: context))
                },
                "leaderboard.history": { request, _ in
                    try WireCodec.jsonValue(await scoreboard.history(request, query: try payload(request, as: Scoreboard.BoardQuery.self)))
                },
            ])
    }

    struct DefinitionChange: Decodable {
        var definition: LeaderboardDefinition
    }

    static func gameId(_ request: RawEnvelope) throws -> String {
        guard let gameId = request.gameId else { throw ErrorReply(code: .missingField, message: "give the gameId", field: "gameId") }
        return gameId
    }

    static func game(_ request: RawEnvelope, _ scoreboard: Scoreboard) throws -> GameConfiguration {
        guard let gameId = request.gameId, let game = scoreboard.catalog.value.games[gameId] else {
            throw ErrorReply(code: .unknownGame, message: "this server has no game '\(request.gameId ?? "")'", field: "gameId")
        }
        return game
    }

    static func payload<Value: Decodable>(_ request: RawEnvelope, as type: Value.Type) throws -> Value {
        try request.requestPayload(as: type)
    }
}
