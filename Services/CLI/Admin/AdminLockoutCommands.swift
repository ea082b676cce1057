import ArgumentParser
import PodiumMessages

/// `podium admin lockouts`: the failed-login limits reached now.
struct AdminLockoutsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lockouts", abstract: "List the failed-login limits reached now (auth.admin.lockouts).")

    @OptionGroup var options: AdminOptions

    @Option(help: "Only this username's.")
    var username: String?

    @Option(help: "Only this client address's (an IP address, as the gateway sees it).")
    var address: String?

    func run() throws {
        let list = try options.send(AuthRequests.lockouts, LockoutQuery(username: username, address: address))
        if options.json { return }
        emit(Self.text(list))
    }

    static func text(_ list: LockoutList) -> String {
        guard !list.lockouts.isEmpty else { return "no login is locked out" }
        let rows = list.lockouts.map { lockout in
            [
                lockout.limit, lockout.username ?? "*", lockout.address ?? "*", "\(lockout.failures)",
                "\((lockout.retryAfterMilliseconds + 999) / 1000) s",
            ]
        }
        return TextColumns.render(header: ["LIMIT", "USERNAME", "ADDRESS", "FAILURES", "RETRY IN"], rows: rows)
    }
}

/// `podium admin unlock`: forgets the failed logins counted against a username and/or address.
struct AdminUnlockCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "unlock", abstract: "Clear the failed logins of a username and/or an address (auth.admin.unlock).")

    @OptionGroup var options: AdminOptions

    @Option(help: "The username to clear.")
    var username: String?

    @Option(help: "The client address to clear.")
    var address: String?

    func validate() throws {
        guard username != nil || address != nil else { throw ValidationError("give --username, --address or both") }
    }

    func run() throws {
        let receipt = try options.send(AuthRequests.unlock, LockoutQuery(username: username, address: address))
        if options.json { return }
        emit(
            receipt.cleared == 0
                ? "nothing was counted against that" : "cleared \(receipt.cleared) failed-login count(s)")
    }
}
