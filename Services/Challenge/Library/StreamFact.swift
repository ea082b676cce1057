import PodiumMessages

/// What a message of a followed stream says, decoded once: a score accepted or an achievement
/// earned; nil for anything else.
enum StreamFact {
    case score(ScoreReceipt)
    case earned(AchievementEarned)

    init?(of envelope: RawEnvelope) {
        if envelope.type == .scoreAccepted, let receipt = try? envelope.decodePayload(as: ScoreReceipt.self) {
            self = .score(receipt)
        } else if envelope.type == .achievementEarned, let earned = try? envelope.decodePayload(as: AchievementEarned.self) {
            self = .earned(earned)
        } else {
            return nil
        }
    }
}
