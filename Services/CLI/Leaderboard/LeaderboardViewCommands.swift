import ArgumentParser
import PodiumMessages

/// `podium leaderboard top <boardId>`.
struct LeaderboardTopCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "top",
        abstract: "Show a page of a board's standings, best first (leaderboard.top).",
        discussion: """
            --limit entries (1-200, default 10) from --offset, or after the last entry of the page a \
            --cursor came from (each page prints the cursor of the next). --friends ranks you and your \
            friends among yourselves; --period N reads an ended period of a recurring board, --archive N \
            the standings an operator's reset archived (podium admin archives).
            """)

    @OptionGroup var options: LeaderboardOptions

    @Argument(help: "The board id.")
    var boardId: String

    @Option(help: LeaderboardScope.help)
    var scope: LeaderboardScope?

    @Option(help: "Entries on the page, 1-200 (default 10).")
    var limit: Int?

    @Option(help: "Entries to skip, 0-1000000000 (default 0).")
    var offset: Int?

    @Option(help: "Continue after the page this cursor came from (its \"next page\" line).")
    var cursor: String?

    @Flag(help: "Only you and your friends, ranked among yourselves.")
    var friends = false

    @Option(help: "An ended period of a recurring board: 0 is its first.")
    var period: Int64?

    @Option(help: "An archive of the board (1, 2, 3…), from an operator's reset.")
    var archive: Int64?

    func validate() throws {
        if let limit, !LeaderboardBounds.limit.contains(limit) {
            throw ValidationError("--limit must be between 1 and 200")
        }
        if let offset, !LeaderboardBounds.offset.contains(offset) {
            throw ValidationError("--offset must be between 0 and 1000000000")
        }
        if offset != nil, cursor != nil { throw ValidationError("give either --offset or --cursor, not both") }
        if let period, period < 0 { throw ValidationError("--period must be 0 or more") }
        if let archive, archive < 1 { throw ValidationError("--archive must be 1 or more") }
        let kinds = [("--friends", friends), ("--period", period != nil), ("--archive", archive != nil)].filter(\.1)
            .map(\.0)
        if kinds.count > 1 { throw ValidationError("give only one of \(kinds.joined(separator: ", "))") }
        if friends, limit != nil || offset != nil || cursor != nil {
            throw ValidationError(
                "--friends shows you and every friend with an entry: no --limit, --offset or --cursor")
        }
        if let kind = kinds.first, kind != "--friends" {
            if scope != nil { throw ValidationError("\(kind) reads final standings, which have no --scope") }
            if cursor != nil { throw ValidationError("\(kind) pages with --offset, not --cursor") }
        }
    }

    func run() throws {
        let query = BoardQuery(
            boardId: boardId, scope: scope.map { .string($0.rawValue) }, offset: offset, limit: limit, cursor: cursor,
            friendsOnly: friends ? true : nil, period: period, archive: archive)
        let (page, reply) = try options.send(LeaderboardRequests.top, query, forPlayer: friends)
        if options.json { return }
        emit(LeaderboardText.page(page, me: options.player(of: reply), friends: friends))
    }
}

/// `podium leaderboard around <boardId>`.
struct LeaderboardAroundCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "around",
        abstract: "Show the standings around your own entry (leaderboard.around).",
        discussion:
            "Up to --radius entries (0-50, default 5) on each side of yours; none if you have no entry in the scope.")

    @OptionGroup var options: LeaderboardOptions

    @Argument(help: "The board id.")
    var boardId: String

    @Option(help: "Entries on each side of yours, 0-50 (default 5).")
    var radius: Int?

    @Option(help: LeaderboardScope.help)
    var scope: LeaderboardScope?

    func validate() throws {
        if let radius, !LeaderboardBounds.radius.contains(radius) {
            throw ValidationError("--radius must be between 0 and 50")
        }
    }

    func run() throws {
        let query = BoardQuery(boardId: boardId, scope: scope.map { .string($0.rawValue) }, radius: radius)
        let (page, reply) = try options.send(LeaderboardRequests.around, query)
        if options.json { return }
        let me = options.player(of: reply)
        guard !page.entries.isEmpty else {
            return emit(
                "\(LeaderboardText.who(options.playerId)) no entry on \(page.boardId) (\(LeaderboardText.scope(page.scope)))"
            )
        }
        emit(LeaderboardText.page(page, me: me, friends: false))
    }
}

/// `podium leaderboard entry <boardId>`.
struct LeaderboardEntryCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "entry",
        abstract: "Show your own entry and rank on a board (leaderboard.entry).")

    @OptionGroup var options: LeaderboardOptions

    @Argument(help: "The board id.")
    var boardId: String

    @Option(help: LeaderboardScope.help)
    var scope: LeaderboardScope?

    func run() throws {
        let query = BoardQuery(boardId: boardId, scope: scope.map { .string($0.rawValue) })
        let (reply, _) = try options.send(LeaderboardRequests.entry, query)
        if options.json { return }
        let scopeText = LeaderboardText.scope((scope ?? .allTime).rawValue)
        guard let entry = reply.entry else {
            return emit("\(LeaderboardText.who(options.playerId)) no entry on \(boardId) (\(scopeText))")
        }
        emit(LeaderboardText.entry(entry, boardId: boardId, scope: scopeText))
    }
}

/// `podium leaderboard history <boardId>`.
struct LeaderboardHistoryCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "history",
        abstract: "Show your 10 best scores ever submitted to a board (leaderboard.history).",
        discussion: "Best first; on a recurring board, within the current period.")

    @OptionGroup var options: LeaderboardOptions

    @Argument(help: "The board id.")
    var boardId: String

    func run() throws {
        let (history, _) = try options.send(LeaderboardRequests.history, BoardQuery(boardId: boardId))
        if options.json { return }
        emit(LeaderboardText.history(history, named: options.playerId != nil))
    }
}

/// `podium leaderboard boards`.
struct LeaderboardBoardsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "boards",
        abstract: "List the game's boards and sets of boards (leaderboard.boards, leaderboard.sets).",
        discussion: "With --json the two replies are printed, one per line: the boards', then the sets'.")

    @OptionGroup var options: LeaderboardOptions

    func run() throws {
        let (boards, _) = try options.send(LeaderboardRequests.boards, EmptyPayload(), forPlayer: false)
        let (sets, _) = try options.send(LeaderboardRequests.sets, EmptyPayload(), forPlayer: false)
        if options.json { return }
        emit(LeaderboardText.boards(boards.leaderboards, gameId: options.gameId))
        emit("")
        emit(LeaderboardText.sets(sets.leaderboardSets))
    }
}
