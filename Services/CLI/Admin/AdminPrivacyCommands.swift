import ArgumentParser
import PodiumMessages

/// `podium admin delete-account`: an operator deletes a player's account.
struct AdminDeleteAccountCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "delete-account",
        abstract: "Delete a player's account for good (auth.admin.delete-account).",
        discussion: """
            Every session ends (WebSockets close with 4005), devices are unlinked, and every service \
            erases the player's data; the logs keep a pseudonym (docs/PROTOCOL.md 8.14).
            """)

    @OptionGroup var options: AdminOptions

    @Argument(help: "The player's id.")
    var playerId: String

    @Option(help: "Why (1-500 characters), for the audit log.")
    var reason: String?

    @Flag(help: "Confirm: the deletion cannot be undone.")
    var yes = false

    func validate() throws {
        if !yes { throw ValidationError("deleting an account cannot be undone: add --yes to confirm") }
    }

    func run() throws {
        let receipt = try options.send(
            AuthRequests.adminDeleteAccount, AccountDeletionOrder(playerId: playerId, reason: reason, confirm: true))
        if options.json { return }
        emit(DeleteAccountCommand.text(receipt))
    }
}

/// `podium admin export`: everything Podium holds about a player, for an operator.
struct AdminExportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export", abstract: "Export everything Podium holds about a player as JSON (account.export).")

    @OptionGroup var options: AdminOptions

    @Argument(help: "The player's id.")
    var playerId: String

    @Option(name: .shortAndLong, help: "Write the document to this file instead of standard output.")
    var output: String?

    func run() throws {
        let document = try options.send(GatewayRequests.exportAccount, ExportRequest(playerId: playerId))
        if options.json && output == nil { return }
        try ExportOutput.write(
            String(decoding: try WireCodec.encode(document), as: UTF8.self), document: document, to: output)
    }
}
