import ArgumentParser
import PodiumMessages

/// `podium admin audit`: the gateway's audit log, newest first.
struct AdminAuditCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "audit", abstract: "Read the audit log of operator requests, newest first (admin.audit).")

    @OptionGroup var options: AdminOptions

    @Option(help: "Entries per page, 1-200.")
    var limit: Int = 50

    @Option(help: "Entries before this sequence number (a previous page's next).")
    var before: Int64?

    @Option(help: "Only this request type.")
    var type: String?

    @Option(name: .customLong("player"), help: "Only requests about this player.")
    var playerId: String?

    func run() throws {
        let query = AuditQuery(before: before, limit: limit, type: type, playerId: playerId)
        let page = try options.send(GatewayRequests.audit, query)
        if options.json { return }
        guard !page.entries.isEmpty else { return emit("no entries") }
        var table = TextTable([.right, .left, .left, .left, .left, .left, .left, .left])
        table.append(["seq", "time", "actor", "transport", "peer", "type", "player", "outcome"])
        for entry in page.entries {
            table.append([
                String(entry.seq), Timestamp.text(entry.at), entry.actor, entry.transport, entry.peer ?? "-",
                entry.type,
                entry.playerId ?? "-", entry.outcome,
            ])
        }
        emit(table.text + (page.next.map { "\nmore: --before \($0)" } ?? ""))
    }
}
