import ArgumentParser
import PodiumMessages

/// `podium admin revoke-session`: ends any player's session by id.
struct AdminRevokeSessionCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "revoke-session", abstract: "Revoke one session of any player (auth.admin.revoke-session).")

    @OptionGroup var options: AdminOptions

    @Argument(help: "The session's id (podium admin lookup lists them).")
    var sessionId: String

    func run() throws {
        let receipt = try options.send(AuthRequests.revokeSession, SessionTarget(sessionId: sessionId))
        if options.json { return }
        emit(
            receipt.revokedSessions > 0
                ? "revoked session \(sessionId)" : "session \(sessionId) was unknown or already ended")
    }
}
