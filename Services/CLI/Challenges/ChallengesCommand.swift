import ArgumentParser
import PodiumMessages

/// `podium challenges`: a player's challenges and challenge inbox in one game.
struct ChallengesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "challenges",
        abstract: "Issue, start, decline and list challenges, and read the challenge inbox, in one game.",
        discussion: """
            With the stored session (or --token) these are the logged-in player's challenges. \
            With --server-key or --admin-key name the player with --player. Receivers are player ids; \
            unless the game is open to everyone (PODIUM_CHALLENGE_OPEN_GAMES) they must be friends.
            """,
        subcommands: [
            ChallengeIssueCommand.self, ChallengeStartCommand.self, ChallengeRematchCommand.self, ChallengeDeclineCommand.self,
            ChallengeReceivedCommand.self, ChallengeIssuedCommand.self, ChallengeShowCommand.self, ChallengeCandidatesCommand.self,
            ChallengeInboxCommand.self, ChallengeReadCommand.self,
        ])
}

/// The options every challenges subcommand shares.
struct ChallengesOptions: ParsableArguments {
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

    /// Sends one `challenge.*` request for the player and returns its reply, error or not.
    /// A server or admin key acts for no player of its own, so it needs `--player`.
    func call(_ type: MessageType, payload: JSONValue? = nil) throws -> Reply {
        if try credentials.usesKey(), playerId == nil {
            throw CommandFailure("a server or admin key acts for no player of its own: give --player")
        }
        let connection = try GatewayConnection(endpoint: gateway.endpoint)
        let credential = try credentials.credential(for: type, connection: connection, gateway: gateway)
        let request = credential.applied(
            to: ClientRequest(
                type: type, id: connection.nextRequestID(), gameId: gameId, playerId: playerId, payload: payload))
        return try connection.expectReply(request, gateway: gateway)
    }

    /// Sends the request and decodes a successful reply. With `--json` the reply is printed as
    /// received first (an error reply too); an error reply then fails the command.
    func expect<Value: Decodable>(_ type: MessageType, payload: JSONValue? = nil, as value: Value.Type) throws -> (Value, Reply) {
        let reply = try call(type, payload: payload)
        if json { emit(reply.text) }
        guard reply.isSuccess else { throw ReplyFailure(reply) }
        guard let decoded = try? reply.envelope?.decodePayload(as: value) else {
            throw CommandFailure("the reply to \(type) is not a \(value): \(reply.text)")
        }
        return (decoded, reply)
    }

    /// Sends a request whose reply is one challenge and prints it.
    func showChallenge(_ type: MessageType, payload: JSONValue) throws {
        let (challenge, _) = try expect(type, payload: payload, as: ChallengeDetail.self)
        if json { return }
        emit(ChallengeText.table(challenge))
    }
}

/// Minutes given on the command line, as the protocol's milliseconds.
enum ChallengeMinutes {
    static func milliseconds(_ minutes: Int64, flag: String) throws -> Int64 {
        let (product, overflow) = minutes.multipliedReportingOverflow(by: 60_000)
        guard !overflow else { throw ValidationError("\(flag) is far too large") }
        return product
    }
}
