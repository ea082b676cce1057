import ArgumentParser
import PodiumClient
import PodiumMessages

/// `podium logout`: ends the stored session on the server, then deletes the session file.
struct LogoutCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "logout",
        abstract: "End the stored session (auth.logout) and delete the session file.",
        discussion: """
            A session the server already considers ended (expired, revoked) is just deleted. If the \
            server cannot be asked, the file is kept so that the logout can be tried again.
            """)

    @OptionGroup var gateway: GatewayOptions
    @OptionGroup var session: SessionFileOptions

    @Flag(name: .customLong("all"), help: "End every session of the player, on every device (auth.revoke).")
    var allSessions = false

    /// Error codes that mean the session is unusable anyway: forgetting it is all that is left to do.
    private static let alreadyEnded: Set<ErrorCode> = [.sessionRevoked, .tokenExpired, .invalidToken, .unknownPlayer]

    func run() throws {
        let file = session.file
        guard let stored = try file.load() else {
            throw CommandFailure("not logged in: there is no session file \(file.path)")
        }
        let connection = try GatewayConnection(gateway)
        let grant: SessionGrant
        do {
            grant = try SessionRenewal(file: file, connection: connection, gateway: gateway).current(stored)
        } catch let failure as SessionRenewal.Failure {
            guard failure.refusal != nil || !SessionRenewal.canRefresh(stored) else {
                throw CommandFailure("\(failure.description)\n  the session file \(file.path) is kept; try again")
            }
            try file.remove()
            emit("the session had already ended; deleted \(file.path)")
            return
        }
        let reply: PodiumReply<RevocationReceipt>
        do {
            if allSessions {
                reply = try connection.exchange(
                    AuthRequests.revoke, SessionRevocation(allSessions: true), credential: .token(grant.sessionToken))
            } else {
                reply = try connection.exchange(
                    AuthRequests.logout, EmptyPayload(), credential: .token(grant.sessionToken))
            }
        } catch let failure as CommandFailure {
            throw CommandFailure("\(failure.description)\n  the session file \(file.path) is kept; try again")
        }
        if reply.isSuccess {
            let receipt = try? reply.value()
            try file.remove()
            emit(
                "logged out player \(grant.playerId) (\(receipt?.revokedSessions ?? 1) session(s) ended); "
                    + "deleted \(file.path)")
            return
        }
        let failure = ReplyFailure(reply.received)
        guard let code = failure.error?.code, Self.alreadyEnded.contains(code) else {
            throw CommandFailure("\(failure.description)\n  the session file \(file.path) is kept")
        }
        try file.remove()
        emit("the session had already ended (\(code)); deleted \(file.path)")
    }
}
