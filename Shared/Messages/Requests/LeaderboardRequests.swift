/// The leaderboard service's requests (docs/PROTOCOL.md 10).
public enum LeaderboardRequests {
    public static let boards = RequestDefinition<EmptyPayload, BoardList>(
        "leaderboard.boards", access: .signedIn)
    public static let sets = RequestDefinition<EmptyPayload, BoardSetList>(
        "leaderboard.sets", access: .signedIn)
    public static let submit = RequestDefinition<ScoreSubmission, ScoreReceipt>(
        "leaderboard.submit", access: .signedIn, keepsReceipt: true)
    public static let entry = RequestDefinition<BoardQuery, EntryReply>(
        "leaderboard.entry", access: .signedIn)
    public static let top = RequestDefinition<BoardQuery, LeaderboardPage>(
        "leaderboard.top", access: .signedIn)
    public static let around = RequestDefinition<BoardQuery, LeaderboardPage>(
        "leaderboard.around", access: .signedIn)
    public static let history = RequestDefinition<BoardQuery, ScoreHistory>(
        "leaderboard.history", access: .signedIn)
    public static let archives = RequestDefinition<BoardTarget, LeaderboardArchiveList>(
        "leaderboard.archives", access: .signedIn)

    // Operators.
    /// The games the leaderboard service knows (game files and operators' definitions), each
    /// with its number of boards: the console's choice of games.
    public static let games = RequestDefinition<EmptyPayload, GameList>(
        "leaderboard.admin.games", access: .operator)
    public static let define = RequestDefinition<
        LeaderboardDefinitionChange, LeaderboardDefinitionChange
    >(
        "leaderboard.admin.define", access: .operator, changesState: true)
    public static let remove = RequestDefinition<BoardRemoval, BoardRemoved>(
        "leaderboard.admin.remove", access: .operator, changesState: true)
    public static let removeScore = RequestDefinition<ScoreRemoval, ScoreRemovalReceipt>(
        "leaderboard.admin.remove-score", access: .operator, changesState: true)
    public static let reset = RequestDefinition<BoardTarget, LeaderboardArchive>(
        "leaderboard.admin.reset", access: .operator, changesState: true)

    /// Every leaderboard request type.
    /// The service's part of a player's export (`account.export`), asked by the gateway.
    public static let export = RequestDefinition<ExportTarget, LeaderboardExport>(
        "leaderboard.export", access: .service)

    public static let all: [RequestInfo] = [
        boards.info, sets.info, submit.info, entry.info, top.info, around.info, history.info,
        archives.info, games.info, define.info,
        remove.info, removeScore.info, reset.info, export.info,
    ]
}
