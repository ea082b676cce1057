/// `receipt.get`: what became of an earlier state-changing request, by its request id (the
/// game and the player come from the envelope, as for the request itself).
public struct ReceiptQuery: Codable, Sendable, Equatable {
    /// The request id of the `event.publish`, `leaderboard.submit` or `achievement.report`.
    public var id: String
    /// The original request's type, when the client knows it: then only the one place that
    /// keeps that type's receipts is asked (the event log for `event.publish`, else the
    /// service the type belongs to), so the answer does not depend on other services.
    public var type: String?

    public init(id: String, type: String? = nil) {
        self.id = id
        self.type = type
    }
}

/// The answer to `receipt.get`. `found: false` means no service holds the id: the request never
/// arrived (or was refused), so sending it again is safe.
public struct RequestReceipt: Codable, Sendable, Equatable {
    public var id: String
    public var found: Bool
    /// Which request it was: `event.publish`, `leaderboard.submit` or `achievement.report`.
    public var type: String?
    /// For an event: its acknowledgement (log sequence, event id, topic, when).
    public var acknowledgement: EventAcknowledgement?
    /// For an event: what it caused in the achievement service once applied.
    public var effects: EventEffects?
    /// For a submission or report: the original reply (rank, progress, unlocks).
    public var reply: JSONValue?

    public init(
        id: String, found: Bool, type: String? = nil, acknowledgement: EventAcknowledgement? = nil,
        effects: EventEffects? = nil,
        reply: JSONValue? = nil
    ) {
        self.id = id
        self.found = found
        self.type = type
        self.acknowledgement = acknowledgement
        self.effects = effects
        self.reply = reply
    }
}

/// What one logged event did to achievements.
public struct EventEffects: Codable, Sendable, Equatable {
    /// Whether the achievement service has applied the event yet.
    public var applied: Bool
    /// Achievement progress it changed (empty when it changed nothing).
    public var achievements: [ReportOutcome]

    public init(applied: Bool, achievements: [ReportOutcome]) {
        self.applied = applied
        self.achievements = achievements
    }
}

/// What the gateway asks a service about a request id or an event (service-only requests
/// `leaderboard.receipt`, `achievement.receipt`, `achievement.event-effects`).
public struct ReceiptLookup: Codable, Sendable, Equatable {
    public var gameId: String
    public var playerId: String
    public var id: String?
    public var sequence: UInt64?

    public init(gameId: String, playerId: String, id: String? = nil, sequence: UInt64? = nil) {
        self.gameId = gameId
        self.playerId = playerId
        self.id = id
        self.sequence = sequence
    }
}

/// A service's answer to a ``ReceiptLookup`` by id.
public struct StoredReply: Codable, Sendable, Equatable {
    public var found: Bool
    /// The type of the request the receipt is for.
    public var type: String?
    public var reply: JSONValue?

    public init(found: Bool, type: String? = nil, reply: JSONValue?) {
        self.found = found
        self.type = type
        self.reply = reply
    }
}
