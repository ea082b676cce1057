import ArgumentParser
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
        guard let stored = try file.load() else { throw CommandFailure("not logged in: there is no session file \(file.path)") }
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
        var request = ClientRequest(type: "auth.logout", id: connection.nextRequestID(), token: grant.sessionToken)
        if allSessions {
            request.type = "auth.revoke"
            request.payload = try WireCodec.jsonValue(SessionRevocation(allSessions: true))
        }
        let reply: Reply
        do {
            reply = try connection.expectReply(request, gateway: gateway)
        } catch let failure as CommandFailure {
            throw CommandFailure("\(failure.description)\n  the session file \(file.path) is kept; try again")
        }
        if reply.isSuccess {
            let receipt = try? reply.envelope?.decodePayload(as: RevocationReceipt.self)
            try file.remove()
            emit(
                "logged out player \(grant.playerId) (\(receipt?.revokedSessions ?? 1) session(s) ended); "
                    + "deleted \(file.path)")
            return
        }
        let failure = ReplyFailure(reply)
        guard let code = failure.error?.code, Self.alreadyEnded.contains(code) else {
            throw CommandFailure("\(failure.description)\n  the session file \(file.path) is kept")
        }
        try file.remove()
        emit("the session had already ended (\(code)); deleted \(file.path)")
    }
}
