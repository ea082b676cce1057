import Foundation

/// A challenge (docs/PROTOCOL.md section 12): beat a score, earn an achievement, or the best score
/// on a board within a time window. GameKit's `GKChallenge`, with Podium's time-boxed challenges
/// and challenge definitions (``PodiumChallengeDefinition``) beside.
///
/// The server completes challenges by itself from the scores and achievements that come in, and
/// tells everyone concerned with a notification (``PodiumNotification/Kind/challengeReceived``,
/// ``PodiumNotification/Kind/challengeCompleted``, …).
public struct PodiumChallenge: Sendable, Equatable, Decodable {
    /// What the challenge asks; unknown kinds keep their raw value.
    public struct Kind: RawRepresentable, Sendable, Hashable, Decodable {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public init(from decoder: any Decoder) throws {
            rawValue = try decoder.singleValueContainer().decode(String.self)
        }

        /// Beat the issuer's score on a board.
        public static let score = Kind(rawValue: "score")
        /// Earn an achievement the issuer has earned.
        public static let achievement = Kind(rawValue: "achievement")
        /// The best score on a board within a window wins.
        public static let timed = Kind(rawValue: "timed")
    }

    /// A receiver's state, or a time-boxed challenge's; unknown ones keep their raw value.
    public struct State: RawRepresentable, Sendable, Hashable, Decodable {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public init(from decoder: any Decoder) throws {
            rawValue = try decoder.singleValueContainer().decode(String.self)
        }

        public static let pending = State(rawValue: "pending")
        public static let completed = State(rawValue: "completed")
        public static let declined = State(rawValue: "declined")
        public static let invalid = State(rawValue: "invalid")
        /// A time-boxed challenge whose window is open.
        public static let running = State(rawValue: "running")
        /// A time-boxed challenge whose window has closed.
        public static let ended = State(rawValue: "ended")
    }

    /// One receiver (for a time-boxed challenge, one participant) and how it went.
    public struct Receiver: Sendable, Equatable, Decodable {
        public var playerId: String
        public var state: State
        /// When the receiver left `pending`.
        public var completedDate: Date?
        /// The score that beat the challenge, or the best in the window.
        public var value: Int64?
        /// A defined challenge's runs counted so far.
        public var attempts: Int?

        private enum CodingKeys: String, CodingKey { case playerId, state, completedAt, value, attempts }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            playerId = try container.decode(String.self, forKey: .playerId)
            state = try container.decode(State.self, forKey: .state)
            completedDate = try container.decodeIfPresent(Int64.self, forKey: .completedAt).map(
                Date.init(milliseconds:))
            value = try container.decodeIfPresent(Int64.self, forKey: .value)
            attempts = try container.decodeIfPresent(Int.self, forKey: .attempts)
        }
    }

    /// What a score or achievement challenge asks (``issue(_:to:message:expiresIn:idempotencyKey:for:)``).
    public enum Goal: Sendable, Equatable {
        /// Beat the local player's entry on the board.
        case score(boardId: String)
        /// Earn an achievement the local player has earned.
        case achievement(achievementId: String)
    }

    public var challengeId: String
    public var gameId: String
    public var kind: Kind
    public var issuerId: String
    public var boardId: String?
    public var achievementId: String?
    /// A score challenge's value to beat: the issuer's entry when it was issued.
    public var issuerValue: Int64?
    public var message: String?
    /// When it was issued; for a time-boxed challenge, the start of the window.
    public var createdDate: Date
    public var expirationDate: Date?
    /// A time-boxed challenge's end of the window.
    public var endDate: Date?
    /// A time-boxed challenge's state (``State/running`` or ``State/ended``); nil for the others.
    public var state: State?
    /// Sorted by player id; for a time-boxed challenge every participant, the issuer included.
    public var receivers: [Receiver]
    /// The challenge this one is a rematch of.
    public var rematchOf: String?
    /// The studio's definition it was started from.
    public var definitionId: String?
    /// A defined challenge's runs per participant; nil for unlimited or a challenge that is not defined.
    public var attemptsAllowed: Int?
    /// A time-boxed challenge's duration.
    public var duration: Duration?

    private enum CodingKeys: String, CodingKey {
        case challengeId, gameId, kind, issuerId, boardId, achievementId, issuerValue, message, createdAt, expiresAt,
            endsAt, state, receivers, rematchOf, definitionId, attemptsAllowed, durationMilliseconds
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        challengeId = try container.decode(String.self, forKey: .challengeId)
        gameId = try container.decode(String.self, forKey: .gameId)
        kind = try container.decode(Kind.self, forKey: .kind)
        issuerId = try container.decode(String.self, forKey: .issuerId)
        boardId = try container.decodeIfPresent(String.self, forKey: .boardId)
        achievementId = try container.decodeIfPresent(String.self, forKey: .achievementId)
        issuerValue = try container.decodeIfPresent(Int64.self, forKey: .issuerValue)
        message = try container.decodeIfPresent(String.self, forKey: .message)
        createdDate = Date(milliseconds: try container.decode(Int64.self, forKey: .createdAt))
        expirationDate = try container.decodeIfPresent(Int64.self, forKey: .expiresAt).map(Date.init(milliseconds:))
        endDate = try container.decodeIfPresent(Int64.self, forKey: .endsAt).map(Date.init(milliseconds:))
        state = try container.decodeIfPresent(State.self, forKey: .state)
        receivers = try container.decode([Receiver].self, forKey: .receivers)
        rematchOf = try container.decodeIfPresent(String.self, forKey: .rematchOf)
        definitionId = try container.decodeIfPresent(String.self, forKey: .definitionId)
        attemptsAllowed = try container.decodeIfPresent(Int.self, forKey: .attemptsAllowed)
        duration = try container.decodeIfPresent(Int64.self, forKey: .durationMilliseconds).map(Duration.milliseconds)
    }

    /// The receiver `playerId`, if they are one.
    public func receiver(_ playerId: String) -> Receiver? { receivers.first { $0.playerId == playerId } }
}

/// The live order of a time-boxed challenge (docs/PROTOCOL.md 12.12).
public struct PodiumChallengeStandings: Sendable, Equatable, Decodable {
    public struct Standing: Sendable, Equatable, Decodable {
        public var rank: Int
        public var playerId: String
        public var value: Int64
        public var attempts: Int?
    }

    public var challengeId: String
    public var state: PodiumChallenge.State
    public var endDate: Date?
    /// The participants with a value, best first.
    public var standings: [Standing]

    private enum CodingKeys: String, CodingKey { case challengeId, state, endsAt, standings }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        challengeId = try container.decode(String.self, forKey: .challengeId)
        state = try container.decode(PodiumChallenge.State.self, forKey: .state)
        endDate = try container.decodeIfPresent(Int64.self, forKey: .endsAt).map(Date.init(milliseconds:))
        standings = try container.decode([Standing].self, forKey: .standings)
    }
}
