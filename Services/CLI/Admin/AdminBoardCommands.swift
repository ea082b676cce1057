import ArgumentParser
import PodiumMessages

/// `podium admin remove-score`: one player's entry and history on a board.
struct AdminRemoveScoreCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "remove-score",
        abstract: "Remove a player's score from a board and its history (leaderboard.admin.remove-score).")

    @OptionGroup var options: AdminOptions
    @OptionGroup var board: AdminBoardOptions

    @Argument(help: "The player's id.")
    var playerId: String

    func run() throws {
        let receipt = try options.send(
            LeaderboardRequests.removeScore, ScoreRemoval(boardId: board.boardId, playerId: playerId),
            gameId: board.gameId)
        if options.json { return }
        emit(
            receipt.removed
                ? "removed \(playerId)'s score from \(receipt.boardId)"
                : "\(playerId) had no score on \(receipt.boardId)")
    }
}

/// `podium admin reset-board`: the board's standings into a new archive; it starts empty.
struct AdminResetBoardCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reset-board",
        abstract: "Reset a board now; its standings become a numbered archive (leaderboard.admin.reset).")

    @OptionGroup var options: AdminOptions
    @OptionGroup var board: AdminBoardOptions

    func run() throws {
        let archive = try options.send(
            LeaderboardRequests.reset, BoardTarget(boardId: board.boardId), gameId: board.gameId)
        if options.json { return }
        emit(
            "reset \(archive.boardId): \(archive.entries) entries archived as archive \(archive.archive) "
                + "(podium leaderboard top \(archive.boardId) --game \(board.gameId) --archive \(archive.archive))")
    }
}

/// `podium admin archives`: a board's archives, newest first.
struct AdminArchivesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "archives", abstract: "List a board's archives (leaderboard.archives).")

    @OptionGroup var options: AdminOptions
    @OptionGroup var board: AdminBoardOptions

    func run() throws {
        let list = try options.send(
            LeaderboardRequests.archives, BoardTarget(boardId: board.boardId), gameId: board.gameId)
        if options.json { return }
        guard !list.archives.isEmpty else { return emit("\(list.boardId) has no archives") }
        for archive in list.archives {
            emit("archive \(archive.archive)  reset \(Timestamp.text(archive.resetAt))  \(archive.entries) entries")
        }
    }
}

/// `podium admin end-challenge`: a running time-boxed challenge ends now.
struct AdminEndChallengeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "end-challenge", abstract: "End a running time-boxed challenge now (challenge.admin.end).")

    @OptionGroup var options: AdminOptions

    @Option(name: .customLong("game"), help: "The game id.")
    var gameId: String

    @Argument(help: "The challenge's id.")
    var challengeId: String

    func run() throws {
        let detail = try options.send(ChallengeRequests.end, ChallengeTarget(challengeId: challengeId), gameId: gameId)
        if options.json { return }
        emit(
            "challenge \(detail.challengeId) ends at \(detail.endsAt.map(Timestamp.text) ?? "now"); its standings follow"
        )
    }
}

/// `podium admin games`: every game the leaderboard service knows, with its number of boards.
struct AdminGamesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "games", abstract: "List the games the server knows and their boards (leaderboard.admin.games).")

    @OptionGroup var options: AdminOptions

    func run() throws {
        let list = try options.send(LeaderboardRequests.games, EmptyPayload(), gameId: nil)
        if options.json { return }
        if list.games.isEmpty { emit("no games") }
        for game in list.games { emit("\(game.gameId)  \(game.leaderboards) board(s)") }
    }
}
