import ArgumentParser
import Foundation
import PodiumMessages

extension FriendsOptions {
    /// Sends one of the logged-in player's invite requests and decodes its successful reply.
    /// Sends a typed request for the player in `--game` and decodes its successful reply; the
    /// reply's text comes along for `--json`.
    func send<Payload, Value>(_ definition: RequestDefinition<Payload, Value>, _ payload: Payload) throws -> (
        Value, String
    ) {
        let connection = try GatewayConnection(gateway)
        let credential = try credentials.credential(for: definition.type, connection: connection, gateway: gateway)
        let (decoded, reply) = try connection.expectSuccess(definition, payload, gameId: gameId, credential: credential)
        return (decoded, reply.text)
    }
}

/// `podium friends invite`: a code that lets whoever enters it send you a friend request.
struct FriendInviteCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "invite", abstract: "Make a friend code to share (auth.invites.create).",
        discussion:
            "Whoever enters it (podium friends redeem CODE) sends you a friend request, without knowing your player id."
    )

    @OptionGroup var options: FriendsOptions

    @Option(help: "How long it works, in minutes (1-43200, default 1440: a day).")
    var minutes: Int64?

    func validate() throws {
        if let minutes, !(1...43_200).contains(minutes) {
            throw ValidationError("--minutes must be between 1 and 43200 (30 days)")
        }
    }

    func run() throws {
        let (invite, text) = try options.send(
            AuthRequests.createInvite, InviteRequest(expiresInMilliseconds: minutes.map { $0 * 60_000 }))
        emit(options.json ? text : "\(invite.code)  (works until \(Timestamp.text(invite.expiresAt)))")
    }
}

/// `podium friends invites`: your codes that still work.
struct FriendInvitesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "invites", abstract: "List your invite codes that still work (auth.invites.list).")

    @OptionGroup var options: FriendsOptions

    func run() throws {
        let (list, text) = try options.send(AuthRequests.listInvites, EmptyPayload())
        if options.json { return emit(text) }
        guard !list.invites.isEmpty else { return emit("no invite codes that still work") }
        emit(
            TextColumns.render(
                header: ["CODE", "FOR", "UNTIL", "USES"],
                rows: list.invites.map { [$0.code, $0.purpose.rawValue, Timestamp.text($0.expiresAt), "\($0.uses)"] }))
    }
}

/// `podium friends redeem CODE`.
struct FriendRedeemCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "redeem",
        abstract: "Enter a friend code: its owner gets your friend request (auth.invites.redeem).")

    @OptionGroup var options: FriendsOptions

    @Argument(help: "The code (XXXXX-XXXXX; case and hyphen do not matter).")
    var code: String

    func run() throws {
        let (relation, text) = try options.send(AuthRequests.redeemInvite, InviteEntry(code: code))
        emit(options.json ? text : "\(relation.playerId)  \(relation.state.rawValue)")
    }
}

/// `podium friends revoke-invite CODE`.
struct FriendRevokeInviteCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "revoke-invite", abstract: "Stop one of your codes from working (auth.invites.revoke).")

    @OptionGroup var options: FriendsOptions

    @Argument(help: "The code.")
    var code: String

    func run() throws {
        let (revocation, text) = try options.send(AuthRequests.revokeInvite, InviteEntry(code: code))
        emit(
            options.json
                ? text : (revocation.revoked ? "revoked \(revocation.code)" : "\(revocation.code) was revoked already"))
    }
}
