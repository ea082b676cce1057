import ArgumentParser
import PodiumMessages

/// `podium leaderboard`: submit scores to a game's boards and read them.
struct LeaderboardCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "leaderboard",
        abstract: "Submit scores and read a game's leaderboards: top, around, entry, history, boards.",
        discussion: """
            With the stored session (or --token) the scores and entries are the logged-in player's. \
            With --server-key or --admin-key name the player with --player (top and boards need none). \
            --json prints the reply as received; otherwise tables, with "< you" on your own row.
            """,
        subcommands: [
            LeaderboardSubmitCommand.self, LeaderboardTopCommand.self, LeaderboardAroundCommand.self,
            LeaderboardEntryCommand.self,
            LeaderboardHistoryCommand.self, LeaderboardBoardsCommand.self,
        ])
}

/// The options every leaderboard subcommand shares.
typealias LeaderboardOptions = GameCommandOptions

/// A time scope of the standings (docs/PROTOCOL.md 10).
enum LeaderboardScope: String, ExpressibleByArgument, CaseIterable {
    case today, week, allTime

    static var help: ArgumentHelp { "The time scope (default: allTime)." }
}

/// The protocol's bounds on board reads, checked before anything is sent.
enum LeaderboardBounds {
    static let limit = 1...200
    static let radius = 0...50
    static let offset = 0...1_000_000_000
    /// Largest metadata object, encoded.
    static let metadataBytes = 1024
}
