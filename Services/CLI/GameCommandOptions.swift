import ArgumentParser
import PodiumMessages

/// The options every per-game subcommand (achievements, challenges, leaderboard) shares.
struct GameCommandOptions: ParsableArguments {
    @OptionGroup var gateway: GatewayOptions
    @OptionGroup var credentials: CredentialOptions

    @Option(name: .customLong("game"), help: "The game id.")
    var gameId: String

    @Option(
        name: .customLong("player"),
        help: "The player (required with --server-key or --admin-key; implied by a player's session).")
    var playerId: String?

    @Flag(help: "Print the raw JSON reply instead.")
    var json = false

    /// Sends one request for the player and returns its reply, error or not.
    /// A server or admin key acts for no player of its own, so it needs `--player` unless the
    /// request is about no player (`forPlayer: false`: a board's standings, its definitions).
    func call(_ type: MessageType, payload: JSONValue? = nil, forPlayer: Bool = true) throws -> Reply {
        if forPlayer, try credentials.usesKey(), playerId == nil {
            throw CommandFailure("a server or admin key acts for no player of its own: give --player")
        }
        let connection = try GatewayConnection(gateway)
        let credential = try credentials.credential(for: type, connection: connection, gateway: gateway)
        let request = credential.applied(
            to: ClientRequest(
                type: type, id: connection.nextRequestID(), gameId: gameId, playerId: playerId, payload: payload))
        return try connection.expectReply(request, gateway: gateway)
    }

    /// Sends the request and decodes a successful reply. With `--json` the reply is printed as
    /// received first (an error reply too); an error reply then fails the command.
    func expect<Value: Decodable>(
        _ type: MessageType, payload: JSONValue? = nil, as value: Value.Type, forPlayer: Bool = true
    ) throws -> (Value, Reply) {
        let reply = try call(type, payload: payload, forPlayer: forPlayer)
        if json { emit(reply.text) }
        guard reply.isSuccess else { throw ReplyFailure(reply) }
        guard let decoded = try? reply.envelope?.decodePayload(as: value) else {
            throw CommandFailure("the reply to \(type) is not a \(value): \(reply.text)")
        }
        return (decoded, reply)
    }
}
