import PodiumMessages

/// The rules of achievement progress, as pure functions of a player's record: what a direct
/// progress report does (`progressed`, `earned`, `earned_again`, or ignored as lower or already
/// earned), and what earning does to the record. No database, no clock: the caller gives `now`.
public enum AchievementProgress {
    /// What a report did.
    public enum Status: String, Sendable, Equatable {
        case progressed
        case earned
        case earnedAgain = "earned_again"
        case ignoredLower = "ignored_lower"
        case ignoredEarned = "ignored_earned"

        /// Whether the record changed (and must be stored).
        public var changesRecord: Bool { self != .ignoredLower && self != .ignoredEarned }
    }

    /// Applies one report (`steps` and/or `percentComplete`) to `record`. Progress never goes
    /// back; reaching 100 % earns the achievement; an earned achievement that is not repeatable
    /// ignores further reports.
    public static func report(
        _ record: ProgressRecord, steps: Int64?, percentComplete: Double?, definition: AchievementDefinition, now: Int64
    ) -> (status: Status, record: ProgressRecord) {
        if record.timesEarned > 0 && !definition.repeatable { return (.ignoredEarned, record) }
        let target = definition.completionSteps
        let before = record.percentComplete(target: target)
        var candidate = record
        if let percentComplete { candidate.percent = max(candidate.percent, percentComplete) }
        if let steps { candidate.steps = max(candidate.steps, min(steps, target)) }
        let after = candidate.percentComplete(target: target)
        if after <= before { return (.ignoredLower, record) }
        if after >= 100 {
            return (record.timesEarned > 0 ? .earnedAgain : .earned, earn(candidate, definition: definition, now: now))
        }
        return (.progressed, candidate)
    }

    /// Marks an achievement earned; a repeatable one starts again from zero.
    public static func earn(_ record: ProgressRecord, definition: AchievementDefinition, now: Int64) -> ProgressRecord {
        var earned = record
        earned.timesEarned += 1
        earned.earnedAt = now
        if definition.repeatable {
            earned.steps = 0
            earned.percent = 0
            earned.ruleState = nil
        } else {
            earned.steps = definition.completionSteps
        }
        return earned
    }
}
