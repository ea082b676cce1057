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

    /// Bus topic prefixes the service subscribes to.
    public static let subscriptions = [Topic.allGameEvents]

    /// Builds the service; `catalog` nil reads the game configurations from the environment.
    public static func blueprint(catalog: GameCatalog? = nil) -> ServiceBlueprint {
        ServiceBlueprint(name: name) { settings, clock in
            let catalog = try catalog ?? GameCatalog(
                directory: URL(fileURLWithPath: RuntimeSettings.environmentReader().string(forKey: "podium.games.dir", default: "./games")))
            let store = try SQLiteLeaderboardStore(path: StorageLocation.database(for: "\(name)-scores", in: settings.dataDirectory))
            return definition(Scoreboard(catalog: catalog, store: store, clock: clock))
        }
    }

    static func definition(_ scoreboard: Scoreboard) -> ServiceDefinition {
        ServiceDefinition(
            name: name, subscriptions: subscriptions,
            requestHandlers: [
                "leaderboard.boards": { request, _ in
                    guard let gameId = request.gameId, let game = scoreboard.catalog.games[gameId] else {
                        throw ErrorReply(code: .unknownGame, message: "this server has no game '\(request.gameId ?? "")'", field: "gameId")
                    }
                    return try WireCodec.jsonValue(["leaderboards": game.leaderboards])
                },
                "leaderboard.submit": { request, context in
                    let submission = try payload(request, as: ScoreSubmission.self)
                    return try WireCodec.jsonValue(await scoreboard.submit(request, submission, context: context))
                },
                "leaderboard.entry": { request, _ in
                    let query = try payload(request, as: BoardQuery.self)
                    let entry = try await scoreboard.entry(request, boardId: query.boardId)
                    return try WireCodec.jsonValue(["entry": entry.map { try WireCodec.jsonValue($0) } ?? .null])
                },
                "leaderboard.top": { request, _ in
                    let query = try payload(request, as: BoardQuery.self)
                    let entries = try await scoreboard.top(
                        request, boardId: query.boardId, offset: query.offset ?? 0, limit: query.limit ?? 10)
                    return try WireCodec.jsonValue(["entries": entries])
                },
            ])
    }

    struct BoardQuery: Decodable {
        var boardId: String
        var offset: Int?
        var limit: Int?
    }

    static func payload<Value: Decodable>(_ request: RawEnvelope, as type: Value.Type) throws -> Value {
        do {
            return try request.decodePayload(as: type)
        } catch let DecodingError.keyNotFound(key, _) {
            throw ErrorReply(code: .missingField, message: "payload needs '\(key.stringValue)'", field: "payload.\(key.stringValue)")
        } catch let DecodingError.typeMismatch(_, context) {
            throw ErrorReply(
                code: .invalidShape, message: "payload field has the wrong type",
                field: (["payload"] + context.codingPath.map(\.stringValue)).joined(separator: "."))
        } catch {
            throw ErrorReply(code: .invalidShape, message: "payload has the wrong shape", field: "payload")
        }
    }
}
