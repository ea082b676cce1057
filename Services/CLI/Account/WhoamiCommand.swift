import ArgumentParser
import PodiumMessages

/// `podium whoami`: the account the credential acts for (`auth.profile`).
struct WhoamiCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "whoami",
        abstract: "Show the logged-in player's account (auth.profile).")

    @OptionGroup var gateway: GatewayOptions
    @OptionGroup var credentials: CredentialOptions

    @Flag(help: "Print the raw JSON reply instead.")
    var json = false

    func run() throws {
        let connection = try GatewayConnection(gateway)
        let credential = try credentials.credential(
            for: AuthRequests.profile.type, connection: connection, gateway: gateway)
        let (profile, reply) = try connection.expectSuccess(AuthRequests.profile, credential: credential)
        if json {
            emit(reply.text)
            return
        }
        var lines = [
            "player    \(profile.playerId)",
            "name      \(profile.displayName)",
            "username  \(profile.username ?? "(none: a device account)")",
            "devices   \(profile.linkedDevices)",
            "created   \(Timestamp.text(profile.createdAt))",
        ]
        if case .session(let grant, let file) = credential {
            lines.append("session   \(file.path), valid until \(Timestamp.text(grant.sessionExpiresAt))")
        }
        emit(lines.joined(separator: "\n"))
    }
}
