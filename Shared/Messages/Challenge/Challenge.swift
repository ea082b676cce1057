/// What a challenge asks of its receivers.
public enum ChallengeKind: String, Codable, Sendable {
    /// Beat the issuer's score on a board, as it was when issued.
    case score
    /// Earn an achievement the issuer has earned.
    case achievement
    /// Time-boxed: the best score on a board between `startedAt` and `endsAt` wins.
    case timed
}

/// A receiver's (or, for a time-boxed challenge, the challenge's) state.
public enum ChallengeState: String, Codable, Sendable {
    case pending, completed, declined, invalid
    /// A time-boxed challenge that is still running / has ended.
    case running, ended
}

/// `challenge.issue`: challenge friends to beat a score or earn an achievement.
public struct ChallengeIssue: Codable, Sendable, Equatable {
    public var kind: ChallengeKind
    public var boardId: String?
    public var achievementId: String?
    /// 1-20 player ids.
    public var receivers: [String]
    /// At most 280 characters.
    public var message: String?
    /// Optional: the challenge becomes invalid this long after it was issued.
    public var expiresInMilliseconds: Int64?

    public init(
        kind: ChallengeKind, boardId: String? = nil, achievementId: String? = nil, receivers: [String],
        message: String? = nil,
        expiresInMilliseconds: Int64? = nil
    ) {
        self.kind = kind
        self.boardId = boardId
        self.achievementId = achievementId
        self.receivers = receivers
        self.message = message
        self.expiresInMilliseconds = expiresInMilliseconds
    }
}

/// `challenge.start`: a time-boxed challenge on a board.
public struct TimedChallengeStart: Codable, Sendable, Equatable {
    /// The board; with `definitionId`, the definition's (and then it may be left out).
    public var boardId: String?
    /// A challenge the studio defines (`challenge.definitions`): its board, durations and attempts.
    public var definitionId: String?
    public var durationMilliseconds: Int64
    public var receivers: [String]
    public var message: String?

    public init(
        boardId: String?, definitionId: String? = nil, durationMilliseconds: Int64, receivers: [String],
        message: String? = nil
    ) {
        self.definitionId = definitionId
        self.boardId = boardId
        self.durationMilliseconds = durationMilliseconds
        self.receivers = receivers
        self.message = message
    }
}

/// One receiver of a challenge and how it went.
public struct ChallengeReceiver: Codable, Sendable, Equatable {
    public var playerId: String
    public var state: ChallengeState
    public var completedAt: Int64?
    /// The score that beat the challenge (score challenges), or the best in the window (time-boxed).
    public var value: Int64?
    /// A defined challenge's runs counted for the player so far.
    public var attempts: Int?

    public init(
        playerId: String, state: ChallengeState, completedAt: Int64? = nil, value: Int64? = nil, attempts: Int? = nil
    ) {
        self.attempts = attempts
        self.playerId = playerId
        self.state = state
        self.completedAt = completedAt
        self.value = value
    }
}

/// A challenge as the views show it.
public struct ChallengeDetail: Codable, Sendable, Equatable {
    public var challengeId: String
    public var gameId: String
    public var kind: ChallengeKind
    public var issuerId: String
    public var boardId: String?
    public var achievementId: String?
    /// The score to beat (score challenges).
    public var issuerValue: Int64?
    public var message: String?
    public var createdAt: Int64
    public var expiresAt: Int64?
    /// Time-boxed: the window.
    public var endsAt: Int64?
    /// Time-boxed: running or ended; otherwise absent.
    public var state: ChallengeState?
    public var receivers: [ChallengeReceiver]
    /// Time-boxed: the challenge this one is a rematch of.
    public var rematchOf: String?
    /// The studio's definition it was started from (`challenge.definitions`).
    public var definitionId: String?
    /// A defined challenge's runs per participant; absent: unlimited (or not a defined challenge).
    public var attemptsAllowed: Int?
    /// Time-boxed: the duration it was started for (a rematch runs as long, even when an operator
    /// ended this one early).
    public var durationMilliseconds: Int64?

    public init(
        challengeId: String, gameId: String, kind: ChallengeKind, issuerId: String, boardId: String?,
        achievementId: String?,
        issuerValue: Int64?, message: String?, createdAt: Int64, expiresAt: Int64?, endsAt: Int64?,
        state: ChallengeState?,
        receivers: [ChallengeReceiver], rematchOf: String?, definitionId: String? = nil, attemptsAllowed: Int? = nil,
        durationMilliseconds: Int64? = nil
    ) {
        self.challengeId = challengeId
        self.gameId = gameId
        self.kind = kind
        self.issuerId = issuerId
        self.boardId = boardId
        self.achievementId = achievementId
        self.issuerValue = issuerValue
        self.message = message
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        self.endsAt = endsAt
        self.state = state
        self.receivers = receivers
        self.rematchOf = rematchOf
        self.definitionId = definitionId
        self.attemptsAllowed = attemptsAllowed
        self.durationMilliseconds = durationMilliseconds
    }
}

/// A notification kept for a player (`challenge.inbox`), read or unread.
public struct InboxItem: Codable, Sendable, Equatable {
    public var id: String
    public var kind: String
    public var message: String
    public var details: [String: JSONValue]
    public var createdAt: Int64
    public var read: Bool
    /// The item's place in the player's inbox: later items have higher positions, so a client
    /// that reconnects asks for the items `after` the highest position it has seen. Set on
    /// items read from the inbox, absent on notifications.
    public var position: Int64?
    /// The request (or game event) that caused it, as its notification's `correlationId`;
    /// absent when none did (a time-boxed challenge that ended, an expiry).
    public var correlationId: String?

    public init(
        id: String, kind: String, message: String, details: [String: JSONValue], createdAt: Int64, read: Bool,
        position: Int64? = nil, correlationId: String? = nil
    ) {
        self.correlationId = correlationId
        self.id = id
        self.kind = kind
        self.message = message
        self.details = details
        self.createdAt = createdAt
        self.read = read
        self.position = position
    }
}

/// The challenge a request is about (`challenge.detail`, `decline`, `rematch`, `admin.end`).
public struct ChallengeTarget: Codable, Sendable, Equatable {
    public var challengeId: String
    public init(challengeId: String) { self.challengeId = challengeId }

    enum CodingKeys: String, CodingKey { case challengeId }

    /// `challengeId` absent or not a string: `missing_field` (docs/PROTOCOL.md 12).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        guard let id = try? container.decode(String.self, forKey: .challengeId) else {
            throw ErrorReply(code: .missingField, message: "give the challengeId", field: "payload.challengeId")
        }
        challengeId = id
    }
}

/// `challenge.admin.list`: a game's challenges for operators, newest first.
public struct ChallengeListing: Codable, Sendable, Equatable {
    /// Only running time-boxed challenges and those with a receiver still pending.
    public var openOnly: Bool?
    /// 1-200, default 50.
    public var limit: Int?
    public init(openOnly: Bool? = nil, limit: Int? = nil) {
        self.openOnly = openOnly
        self.limit = limit
    }
}

/// `challenge.join-challenge` (services only): a player who entered a working invite code joins
/// its challenge, at the instance that owns the challenge.
public struct ChallengeJoin: Codable, Sendable, Equatable {
    public var challengeId: String
    public var playerId: String
    /// Who shared the code (told of the join).
    public var ownerId: String
    /// The client's request id, named as the cause of the notification.
    public var cause: String?

    public init(challengeId: String, playerId: String, ownerId: String, cause: String? = nil) {
        self.challengeId = challengeId
        self.playerId = playerId
        self.ownerId = ownerId
        self.cause = cause
    }
}
