import ArgumentParser
import PodiumClient
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

    /// Sends one typed request for the player and returns its reply as received, error or not.
    /// A server or admin key acts for no player of its own, so it needs `--player` unless the
    /// request is about no player (`forPlayer: false`: a board's standings, its definitions).
    func exchange<Payload, Value>(
        _ definition: RequestDefinition<Payload, Value>, _ payload: Payload, forPlayer: Bool = true
    ) throws -> PodiumReply<Value> {
        if forPlayer, try credentials.usesKey(), playerId == nil {
            throw CommandFailure("a server or admin key acts for no player of its own: give --player")
        }
        let connection = try GatewayConnection(gateway)
        let credential = try credentials.credential(for: definition.type, connection: connection, gateway: gateway)
        return try connection.exchange(definition, payload, gameId: gameId, playerId: playerId, credential: credential)
    }

    /// Sends the request and decodes a successful reply. With `--json` the reply is printed as
    /// received first (an error reply too); an error reply then fails the command.
    func send<Payload, Value>(
        _ definition: RequestDefinition<Payload, Value>, _ payload: Payload, forPlayer: Bool = true
    ) throws -> (Value, PodiumReply<Value>) {
        let reply = try exchange(definition, payload, forPlayer: forPlayer)
        if json { emit(reply.text) }
        return (try reply.decoded(), reply)
    }

    /// ``send(_:_:forPlayer:)`` for a request without payload.
    func send<Value>(
        _ definition: RequestDefinition<EmptyPayload, Value>, forPlayer: Bool = true
    ) throws -> (Value, PodiumReply<Value>) {
        try send(definition, EmptyPayload(), forPlayer: forPlayer)
    }

    /// The player a reply concerns: the one the gateway names, else `--player`.
    func player<Value>(of reply: PodiumReply<Value>) -> String? {
        reply.envelope.playerId ?? playerId
    }
}
