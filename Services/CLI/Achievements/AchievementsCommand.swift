import ArgumentParser
import PodiumMessages

/// `podium achievements`: a player's achievements in one game.
struct AchievementsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "achievements",
        abstract: "List, report and reset a player's achievements in one game.",
        discussion: """
            With the stored session (or --token) these are the logged-in player's achievements. \
            With --server-key or --admin-key name the player with --player.
            """,
        subcommands: [AchievementListCommand.self, AchievementReportCommand.self, AchievementResetCommand.self])
}

/// The options every achievements subcommand shares.
typealias AchievementsOptions = GameCommandOptions
