import ArgumentParser
import PodiumMessages

/// `podium achievements reset`: deletes the player's achievement progress in one game.
struct AchievementResetCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reset",
        abstract: "Delete the player's achievements and progress in the game (achievement.reset).",
        discussion: """
            This cannot be undone, so it needs --yes; the request then carries the confirmation the \
            service asks for ({"confirm": true, "gameId": <the game>}).
            """)

    @OptionGroup var options: AchievementsOptions

    @Flag(help: "Confirm the reset.")
    var yes = false

    func run() throws {
        guard yes else {
            throw CommandFailure(
                "a reset deletes every achievement and all progress of the player in game \(options.gameId) "
                    + "and cannot be undone; add --yes to confirm")
        }
        let confirmation = AchievementResetConfirmation(confirm: true, gameId: options.gameId)
        let (receipt, reply) = try options.send(AchievementRequests.reset, confirmation)
        if options.json { return }
        let player = reply.envelope.playerId ?? options.playerId ?? "the player"
        emit("reset \(receipt.resetAchievements) achievement record(s) of \(player) in game \(options.gameId)")
    }
}
