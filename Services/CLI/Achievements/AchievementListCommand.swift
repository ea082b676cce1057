import ArgumentParser
import PodiumMessages

/// `podium achievements list`: every achievement of the game with the player's progress.
struct AchievementListCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "Show the game's achievements with the player's progress (achievement.list).",
        discussion: """
            One line per achievement: title ("(hidden)" for a hidden one without progress), points, \
            progress, when it was (last) earned, how often, the share of the game's players who earned it, \
            and its id (what report takes). Then the points earned out of the game's total.
            """)

    @OptionGroup var options: AchievementsOptions

    func run() throws {
        let (list, _) = try options.send(AchievementRequests.list)
        if options.json { return }
        emit(Self.table(list, gameId: options.gameId))
    }

    static func table(_ list: AchievementList, gameId: String) -> String {
        guard !list.achievements.isEmpty else { return "game \(gameId) has no achievements" }
        var table = TextTable([.left, .right, .left, .right, .left, .left, .right, .right, .left])
        table.append(["title", "points", "progress", "", "", "earned", "times", "players", "id"])
        for status in list.achievements {
            var row = [status.title ?? "(hidden)", status.points.map(String.init) ?? "-"]
            row +=
                status.percentComplete.map {
                    AchievementProgressText.columns(percent: $0, steps: status.steps, target: status.target)
                } ?? ["-", "", ""]
            row += [
                status.earned ? (status.earnedAt.map(Timestamp.text) ?? "yes") : "-",
                String(status.timesEarned),
                status.percentOfPlayersEarned.map(AchievementProgressText.percent) ?? "-",
                status.id,
            ]
            table.append(row)
        }
        return table.text + "\npoints: \(list.pointsEarned) / \(list.pointsTotal)"
    }
}
