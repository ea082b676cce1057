import Foundation
import PodiumClient
import PodiumMessages
import PodiumRuntime

/// What each console page shows and what each console form does. Everything goes through the
/// gateway's request pipeline with the admin key (``admin(_:_:game:player:)``), exactly as
/// an operator's own request would, so it is checked, limited and audited the same way; only the
/// overview's numbers and the event log are read from the console's other parts (``ConsoleParts``).
struct ConsolePages: Sendable {
    let console: GatewayConsole
    let context: HTTPFrontContext?
    var parts: ConsoleParts { console.parts }

    /// The console's typed client: requests with the admin key, handed to the gateway's
    /// pipeline in-process as if from this page's HTTP connection.
    var client: PodiumClient {
        let key = context?.connectionKey ?? ClientConnection.Key(transport: .http, id: Data("console".utf8))
        let peer = context?.peer
        let transport = InProcessTransport { [parts] request in
            await parts.pipeline.call(try WireCodec.jsonValue(request), from: key, peer: peer)
        }
        return PodiumClient(
            transport: transport, credential: .adminKey(parts.settings.adminKey ?? ""), idPrefix: "console-",
            randomIDCharacters: 36)
    }

    /// Runs one typed request as the operator: its typed reply, or the error.
    func admin<Payload, Reply>(
        _ definition: RequestDefinition<Payload, Reply>, _ payload: Payload, game: String? = nil, player: String? = nil
    ) async -> Result<Reply, ErrorReply> {
        do {
            return .success(
                try await client.call(
                    definition, payload, gameId: game.flatMap { $0.isEmpty ? nil : $0 },
                    playerId: player.flatMap { $0.isEmpty ? nil : $0 }))
        } catch let error as PodiumClientError where error.kind == .errorReply {
            return .failure(error.errorReply ?? ErrorReply(code: .internalError, message: "unreadable error"))
        } catch {
            return .failure(ErrorReply(code: .internalError, message: "unreadable reply"))
        }
    }

    /// ``admin(_:_:game:player:)`` for a request without payload.
    func admin<Reply>(_ definition: RequestDefinition<EmptyPayload, Reply>, game: String? = nil, player: String? = nil)
        async
        -> Result<Reply, ErrorReply>
    {
        await admin(definition, EmptyPayload(), game: game, player: player)
    }

    static func describe(_ error: ErrorReply) -> String { "\(error.code.rawValue): \(error.message)" }

    /// Players' display names by id (one request for up to 200 of them; unknown ids are left out).
    func displayNames(_ ids: [String]) async -> [String: String] {
        let unique = Array(Set(ids)).sorted().prefix(200)
        guard !unique.isEmpty,
            case .success(let found) = await admin(AuthRequests.players, ProfileLookup(playerIds: Array(unique)))
        else { return [:] }
        return Dictionary(found.players.map { ($0.playerId, $0.displayName) }) { first, _ in first }
    }

    /// The games to choose from in every "Game" field (`leaderboard.admin.games`).
    func gameChoices() async -> [[String: Any]] {
        guard case .success(let list) = await admin(LeaderboardRequests.games) else { return [] }
        return list.games.map { ["gameId": $0.gameId, "leaderboards": $0.leaderboards] }
    }
}
