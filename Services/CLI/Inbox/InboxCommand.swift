import ArgumentParser
import PodiumMessages

/// `podium inbox`: every notification kept for the player in one game (docs/PROTOCOL.md 14.5).
struct InboxCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "inbox",
        abstract: "Read, mark and delete the notifications kept for you in one game (inbox.*).",
        discussion: """
            Every notification Podium sends a player (achievements earned, leaving a top 10, \
            challenges, operators' notices) is also kept here, so nothing is missed while offline. \
            With --server-key or --admin-key name the player with --player.
            """,
        subcommands: [InboxListCommand.self, InboxUnreadCommand.self, InboxReadCommand.self, InboxDeleteCommand.self])
}

/// `podium inbox list`.
struct InboxListCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list", abstract: "List the kept notifications, newest first (inbox.list).",
        discussion:
            "* marks the unread ones. Follow 'next page: --before N' for older ones; --after N catches up oldest first."
    )

    @OptionGroup var options: GameCommandOptions

    @Flag(help: "Only the unread ones.")
    var unread = false

    @Option(help: "How many (1-200, default 50).")
    var limit: Int?

    @Option(help: "Only items before this position (the next page).")
    var before: Int64?

    @Option(help: "Only items after this position, oldest first (catching up).")
    var after: Int64?

    @Option(
        name: .customLong("kind"), help: "Only this kind (achievement.earned, operator.notice, ...); may be repeated.")
    var kinds: [String] = []

    func validate() throws {
        if let limit, !(1...200).contains(limit) { throw ValidationError("--limit must be between 1 and 200") }
        if before != nil && after != nil { throw ValidationError("give --before or --after, not both") }
        if let position = before ?? after, position < 0 { throw ValidationError("positions are 0 or more") }
        if kinds.count > 20 { throw ValidationError("at most 20 --kind") }
    }

    func run() throws {
        var query = InboxListQuery(after: after, before: before, unreadOnly: unread, kinds: kinds.isEmpty ? nil : kinds)
        if let limit { query.limit = limit }
        let (list, _) = try options.send(ChallengeRequests.inboxList, query)
        if options.json { return }
        emit(Self.text(list, unreadOnly: unread))
    }

    static func text(_ list: InboxList, unreadOnly: Bool) -> String {
        guard !list.items.isEmpty else {
            return (unreadOnly ? "no unread notifications" : "the inbox is empty") + " (\(list.unread) unread)"
        }
        let rows = list.items.map { item in
            [
                item.read ? "" : "*", item.position.map(String.init) ?? "-", Timestamp.text(item.createdAt), item.kind,
                item.message, item.id,
            ]
        }
        var text = TextColumns.render(header: ["", "POS", "WHEN", "KIND", "MESSAGE", "ID"], rows: rows)
        text += "\n\(list.unread) unread in all (* = unread)"
        if let next = list.nextBefore { text += "\nnext page: --before \(next)" }
        return text
    }
}

/// `podium inbox unread`.
struct InboxUnreadCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "unread", abstract: "How many kept notifications are unread (inbox.unread).")

    @OptionGroup var options: GameCommandOptions

    func run() throws {
        let (count, _) = try options.send(ChallengeRequests.inboxUnread)
        if options.json { return }
        emit("\(count.unread) unread")
    }
}

/// `podium inbox read <id>... | --all`.
struct InboxReadCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "read", abstract: "Mark notifications read (inbox.read).",
        discussion: "Up to 200 ids, or --all. Ids that are not yours, unknown or already read are not counted.")

    @OptionGroup var options: GameCommandOptions

    @Flag(help: "Every notification of yours in the game.")
    var all = false

    @Argument(help: "The item ids (from podium inbox list).")
    var ids: [String] = []

    func validate() throws {
        guard all != !ids.isEmpty else { throw ValidationError("give item ids or --all, not both") }
        if ids.count > 200 { throw ValidationError("at most 200 ids") }
    }

    func run() throws {
        let (marked, _) = try options.send(
            ChallengeRequests.inboxMarkRead, all ? InboxSelection(all: true) : InboxSelection(ids: ids))
        if options.json { return }
        emit("marked \(marked.marked) read")
    }
}

/// `podium inbox delete <id>...`.
struct InboxDeleteCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "delete", abstract: "Delete notifications (inbox.delete).",
        discussion: "Up to 200 ids. Ids that are not yours or unknown are not counted.")

    @OptionGroup var options: GameCommandOptions

    @Argument(help: "The item ids (from podium inbox list).")
    var ids: [String]

    func validate() throws {
        guard (1...200).contains(ids.count) else { throw ValidationError("give 1-200 item ids") }
    }

    func run() throws {
        let (deleted, _) = try options.send(ChallengeRequests.inboxDelete, InboxSelection(ids: ids))
        if options.json { return }
        emit("deleted \(deleted.deleted)")
    }
}

/// `podium admin notify`: an operator's notice to one player, kept in their inbox.
struct AdminNotifyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "notify", abstract: "Send one player a notice, kept in their inbox (inbox.admin.notify).")

    @OptionGroup var options: AdminOptions

    @Option(name: .customLong("game"), help: "The game id.")
    var gameId: String

    @Option(name: .customLong("player"), help: "The player's id.")
    var playerId: String

    @Argument(help: "The notice (1-512 characters).")
    var message: String

    func run() throws {
        let item = try options.send(
            ChallengeRequests.inboxNotify, OperatorNotice(playerId: playerId, message: message), gameId: gameId)
        if options.json { return }
        emit("sent and kept as \(item.id)")
    }
}
