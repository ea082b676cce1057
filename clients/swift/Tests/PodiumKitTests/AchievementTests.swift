import Foundation
import PodiumKit
import Testing

/// Achievements of the example game blackjack (docs/examples/games/blackjack.json): the two it
/// lets the game report (a tutorial in percent, a repeatable "regular" of 3 steps), the others
/// following from events, one of them hidden.
@Suite(.stack, .timeLimit(.minutes(2))) struct AchievementTests {
    @Test func reportLoadDescribeAndReset() async throws {
        let player = try await TestStack.player("ivy", game: "blackjack")
        let socket = player.makeSocket()
        try await socket.connect()

        // docs:begin achievements-report
        var tutorial = PodiumAchievement(identifier: "com.example.blackjack.tutorial")
        tutorial.percentComplete = 40
        let regular = PodiumAchievement(identifier: "com.example.blackjack.regular", steps: 3)
        let result = try await PodiumAchievement.report([tutorial, regular], for: player)
        for outcome in result.outcomes where outcome.status == .earned {
            print("earned \(outcome.achievementId)")
        }
        // docs:end achievements-report
        #expect(result.outcomes.map(\.status) == [.progressed, .earned])
        #expect(result.outcomes[0].percentComplete == 40)
        #expect(result.outcomes[0].target == 100)
        #expect(result.outcomes[1].timesEarned == 1)
        #expect(result.outcomes[1].target == 3)
        // A repeatable achievement starts over once earned.
        #expect(result.outcomes[1].steps == 0)

        // The earning is announced live.
        let earned = try await socket.next(.achievementEarned)
        #expect(earned.achievement?.achievementId == "com.example.blackjack.regular")
        #expect(earned.achievement?.title == "Regular")
        #expect(earned.achievement?.points == 10)
        #expect(earned.achievement?.timesEarned == 1)
        #expect(earned.message == "Achievement earned: Regular")
        await socket.disconnect()

        // docs:begin achievements-load
        let achievements = try await PodiumAchievement.loadAchievements(for: player)
        let descriptions = try await PodiumAchievementDescription.loadAchievementDescriptions(for: player)
        for achievement in achievements {
            let description = descriptions.first { $0.identifier == achievement.identifier }
            print("\(description?.title ?? achievement.identifier): \(achievement.percentComplete)%")
        }
        // docs:end achievements-load
        #expect(achievements.map(\.identifier) == ["com.example.blackjack.regular", "com.example.blackjack.tutorial"])
        let loadedTutorial = try #require(achievements.first { $0.identifier == "com.example.blackjack.tutorial" })
        #expect(loadedTutorial.percentComplete == 40)
        #expect(!loadedTutorial.isCompleted)
        let loadedRegular = try #require(achievements.first { $0.identifier == "com.example.blackjack.regular" })
        #expect(loadedRegular.isCompleted)
        #expect(loadedRegular.timesEarned == 1)
        #expect(loadedRegular.lastEarnedDate != nil)

        #expect(descriptions.count == 7)
        let bold = try #require(descriptions.first { $0.identifier == "com.example.blackjack.bold" })
        #expect(bold.title == "Fortune Favours the Bold")
        #expect(bold.unachievedDescription == "Win a hand after doubling down.")
        #expect(bold.achievedDescription == "You won after doubling down.")
        #expect(bold.maximumPoints == 10)
        #expect(!bold.isHidden)
        let comeback = try #require(descriptions.first { $0.identifier == "com.example.blackjack.comeback" })
        #expect(comeback.isHidden)
        #expect(comeback.title == nil)
        #expect(comeback.maximumPoints == nil)
        let regularDescription = try #require(descriptions.first { $0.identifier == "com.example.blackjack.regular" })
        #expect(regularDescription.isReplayable)
        #expect(regularDescription.target == 3)
        // Rarity: this player earned it, so some of the game's players did.
        #expect((regularDescription.rarityPercent ?? 0) > 0)
        #expect(bold.rarityPercent != nil)

        let list = try await PodiumAchievement.loadAchievementList(for: player)
        #expect(list.pointsEarned == 10)
        #expect(list.pointsTotal == 130)  // every achievement of blackjack.json, the hidden one too

        // A report of an achievement that follows from events is refused.
        let refused = await #expect(throws: PodiumError.self) {
            let bold = PodiumAchievement(identifier: "com.example.blackjack.bold", percentComplete: 100)
            try await PodiumAchievement.report([bold], for: player)
        }
        #expect(refused?.code == .forbidden)
        #expect(refused?.field == "payload.reports.0.achievementId")

        // docs:begin achievements-reset
        let reset = try await PodiumAchievement.resetAchievements(for: player)
        // docs:end achievements-reset
        #expect(reset == 2)
        #expect(try await PodiumAchievement.loadAchievements(for: player).isEmpty)
    }
}
