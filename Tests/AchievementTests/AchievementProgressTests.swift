import PodiumMessages
import Testing

@testable import Achievement

/// Achievement progress as pure rules: no database, no sockets, the time given.
@Suite("Achievement progress rules")
struct AchievementProgressTests {
    static let tenSteps = AchievementDefinition(
        id: "ten", title: "Ten", description: "d", earnedDescription: "e", points: 5, target: 10)
    static let repeatable = AchievementDefinition(
        id: "again", title: "Again", description: "d", earnedDescription: "e", points: 5, repeatable: true, target: 4)

    @Test("steps and percent move progress forward only; lower reports are ignored and change nothing")
    func forwardOnly() {
        let (status, record) = AchievementProgress.report(
            ProgressRecord(), steps: 3, percentComplete: nil, definition: Self.tenSteps, now: 1)
        #expect(status == .progressed && record.steps == 3 && record.timesEarned == 0)
        let lower = AchievementProgress.report(
            record, steps: 2, percentComplete: nil, definition: Self.tenSteps, now: 2)
        #expect(lower.status == .ignoredLower && lower.record == record && !lower.status.changesRecord)
        let byPercent = AchievementProgress.report(
            record, steps: nil, percentComplete: 50, definition: Self.tenSteps, now: 3)
        #expect(byPercent.status == .progressed && byPercent.record.percentComplete(target: 10) == 50)
        let clamped = AchievementProgress.report(
            record, steps: 7, percentComplete: nil, definition: Self.tenSteps, now: 4)
        #expect(clamped.record.steps == 7)
    }

    @Test("reaching the target earns once; a non-repeatable earned achievement ignores further reports")
    func earnOnce() {
        let earned = AchievementProgress.report(
            ProgressRecord(steps: 9), steps: 99, percentComplete: nil, definition: Self.tenSteps, now: 42)
        #expect(earned.status == .earned)
        #expect(earned.record.timesEarned == 1 && earned.record.earnedAt == 42 && earned.record.steps == 10)
        let after = AchievementProgress.report(
            earned.record, steps: 10, percentComplete: 100, definition: Self.tenSteps, now: 43)
        #expect(after.status == .ignoredEarned && after.record == earned.record)
    }

    @Test("a repeatable achievement starts from zero when earned and can be earned again")
    func repeatable() {
        let first = AchievementProgress.report(
            ProgressRecord(), steps: 4, percentComplete: nil, definition: Self.repeatable, now: 10)
        #expect(
            first.status == .earned && first.record.timesEarned == 1 && first.record.steps == 0
                && first.record.percent == 0)
        let progressed = AchievementProgress.report(
            first.record, steps: 2, percentComplete: nil, definition: Self.repeatable, now: 11)
        #expect(progressed.status == .progressed && progressed.record.timesEarned == 1)
        let again = AchievementProgress.report(
            progressed.record, steps: nil, percentComplete: 100, definition: Self.repeatable, now: 12)
        #expect(again.status == .earnedAgain && again.record.timesEarned == 2 && again.record.earnedAt == 12)
    }
}
