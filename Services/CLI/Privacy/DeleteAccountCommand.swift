import ArgumentParser
import Foundation
import PodiumMessages

/// `podium delete-account`: the logged-in player deletes their account (`auth.account.delete`).
struct DeleteAccountCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "delete-account",
        abstract: "Delete the logged-in player's account for good (auth.account.delete).",
        discussion: """
            Every session ends, devices are unlinked, and every service erases the player's scores, \
            achievements, challenges, friends and inbox (docs/PROTOCOL.md 8.14). An account with a \
            password needs it again (--password, or $PODIUM_PASSWORD). The session file is deleted.
            """)

    @OptionGroup var gateway: GatewayOptions
    @OptionGroup var credentials: CredentialOptions

    @Option(help: "The account's password (default: $PODIUM_PASSWORD); not needed for a device account.")
    var password: String?

    @Flag(help: "Confirm: the deletion cannot be undone.")
    var yes = false

    @Flag(help: "Print the raw JSON reply instead.")
    var json = false

    func validate() throws {
        if !yes { throw ValidationError("deleting an account cannot be undone: add --yes to confirm") }
    }

    func run() throws {
        let connection = try GatewayConnection(gateway)
        let credential = try credentials.credential(
            for: AuthRequests.deleteAccount.type, connection: connection, gateway: gateway)
        let given = password ?? ProcessInfo.processInfo.environment["PODIUM_PASSWORD"]
        let (receipt, reply) = try connection.expectSuccess(
            AuthRequests.deleteAccount, AccountDeletionRequest(password: given, confirm: true), credential: credential)
        if case .session(_, let file) = credential { _ = try? file.remove() }
        if json {
            emit(reply.text)
            return
        }
        emit(Self.text(receipt))
    }

    static func text(_ receipt: AccountDeletionReceipt) -> String {
        var line =
            "deleted player \(receipt.playerId): \(receipt.revokedSessions) session(s) ended, "
            + "\(receipt.unlinkedDevices) device(s) unlinked"
        if let free = receipt.usernameFreeAt { line += "; the username is free again \(Timestamp.text(free))" }
        return line
    }
}

/// `podium export`: everything Podium holds about the logged-in player (`account.export`).
struct ExportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Export everything Podium holds about the logged-in player as JSON (account.export).")

    @OptionGroup var gateway: GatewayOptions
    @OptionGroup var credentials: CredentialOptions

    @Option(name: .shortAndLong, help: "Write the document to this file instead of standard output.")
    var output: String?

    func run() throws {
        let connection = try GatewayConnection(gateway)
        let credential = try credentials.credential(
            for: GatewayRequests.exportAccount.type, connection: connection, gateway: gateway)
        let (document, reply) = try connection.expectSuccess(
            GatewayRequests.exportAccount, ExportRequest(), credential: credential)
        try ExportOutput.write(reply.text, document: document, to: output)
    }
}

/// Where an export goes: a file (with a summary on standard output) or standard output.
enum ExportOutput {
    static func write(_ text: String, document: PlayerExport, to path: String?) throws {
        guard let path else {
            emit(text)
            return
        }
        do {
            try Data(text.utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
        } catch {
            throw CommandFailure("could not write \(path): \(error.localizedDescription)")
        }
        emit(
            "wrote \(path): player \(document.playerId), \(document.leaderboards.entries.count) entries, "
                + "\(document.leaderboards.scores.count) scores, \(document.achievements.records.count) achievement "
                + "records, \(document.challenges.issued.count + document.challenges.received.count) challenges, "
                + "\(document.challenges.inbox.count) inbox items, \(document.events.count) events")
    }
}
