import PodiumMessages

/// What a message of a followed stream says, decoded once: a score accepted, an achievement
/// earned, a friend request or a game event; nil for anything else.
enum StreamFact {
    case score(ScoreReceipt)
    case earned(AchievementEarned)
    /// A friend request made or accepted (the auth service's stream).
    case friend(FriendRequestUpdate, accepted: Bool)
    /// An event of the gateway's log (a run of a defined challenge, if one names it).
    case event(GameEvent)

    init?(of envelope: RawEnvelope) {
        if envelope.type == .scoreAccepted, let receipt = try? envelope.decodePayload(as: ScoreReceipt.self) {
            self = .score(receipt)
        } else if envelope.type == .achievementEarned,
            let earned = try? envelope.decodePayload(as: AchievementEarned.self)
        {
            self = .earned(earned)
        } else if envelope.type == .friendRequested || envelope.type == .friendAccepted,
            let update = try? envelope.decodePayload(as: FriendRequestUpdate.self)
        {
            self = .friend(update, accepted: envelope.type == .friendAccepted)
        } else if envelope.type == .gameEvent, let event = try? envelope.decodePayload(as: GameEvent.self) {
            self = .event(event)
        } else {
            return nil
        }
    }
}
