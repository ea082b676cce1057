import ArgumentParser
import Foundation
import PodiumMessages

/// What every `podium admin` subcommand shares: the gateway, the admin key and `--json`.
struct AdminOptions: ParsableArguments {
    @OptionGroup var gateway: GatewayOptions

    @Option(name: .customLong("admin-key"), help: "The operator's admin key (default: $PODIUM_ADMIN_KEY).")
    var adminKey: String?

    @Flag(help: "Print the raw JSON reply instead.")
    var json = false

    /// The admin key from the option or the environment; a clear failure without one.
    func key(environment: [String: String] = ProcessInfo.processInfo.environment) throws -> String {
        if let adminKey, !adminKey.isEmpty { return adminKey }
        if let key = environment["PODIUM_ADMIN_KEY"], !key.isEmpty { return key }
        throw CommandFailure("operator actions need the admin key: --admin-key or $PODIUM_ADMIN_KEY")
    }

    /// Sends one operator request and decodes its successful reply. With `--json` the reply is
    /// printed as received first (an error reply too); an error reply fails the command.
    func send<Payload, Value>(
        _ definition: RequestDefinition<Payload, Value>, _ payload: Payload, gameId: String? = nil
    ) throws -> Value {
        let key = try key()
        let connection = try GatewayConnection(gateway)
        let reply = try connection.exchange(definition, payload, gameId: gameId, credential: .adminKey(key))
        if json { emit(reply.text) }
        return try reply.decoded()
    }
}

/// A board of a game, for the leaderboard subcommands.
struct AdminBoardOptions: ParsableArguments {
    @Option(name: .customLong("game"), help: "The game id.")
    var gameId: String

    @Option(name: .customLong("board"), help: "The leaderboard id.")
    var boardId: String
}
