import Foundation

/// A notification for the local player (docs/PROTOCOL.md 14.1): a challenge received or
/// completed, an achievement earned, a friend request… pushed live on the ``PodiumSocket``, and
/// (all but the live-only kinds) kept in the ``PodiumInbox``.
///
/// ``challenge``, ``achievement`` and ``friend`` read the details of their kinds as typed values.
public struct PodiumNotification: Sendable, Equatable {
    /// What happened; kinds this version does not know keep their raw value.
    public struct Kind: RawRepresentable, Sendable, Hashable, Codable, CustomStringConvertible {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }
        public init(from decoder: any Decoder) throws {
            rawValue = try decoder.singleValueContainer().decode(String.self)
        }
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode(rawValue)
        }

        /// A player challenged the local player, or started a time-boxed challenge with them.
        public static let challengeReceived = Kind(rawValue: "challenge.received")
        /// The local player completed a challenge.
        public static let challengeCompleted = Kind(rawValue: "challenge.completed")
        /// A receiver completed the local player's challenge (details name the `receiverId`).
        public static let challengeCompletedByReceiver = Kind(rawValue: "challenge.completed-by-receiver")
        /// A time-boxed challenge ended (details hold the `standings`).
        public static let challengeEnded = Kind(rawValue: "challenge.ended")
        /// Someone joined the local player's time-boxed challenge with their code.
        public static let challengeJoined = Kind(rawValue: "challenge.joined")
        /// The order of a running time-boxed challenge changed. Live only: not kept in the inbox.
        public static let challengeStandings = Kind(rawValue: "challenge.standings")
        /// A challenge became invalid (its issuer deleted their account).
        public static let challengeInvalid = Kind(rawValue: "challenge.invalid")
        public static let achievementEarned = Kind(rawValue: "achievement.earned")
        /// Another player's score pushed the local player out of a board's top 10.
        public static let leaderboardLeftTop = Kind(rawValue: "leaderboard.left-top")
        public static let friendRequested = Kind(rawValue: "friend.requested")
        public static let friendAccepted = Kind(rawValue: "friend.accepted")
        /// An operator's notice.
        public static let operatorNotice = Kind(rawValue: "operator.notice")
        /// A `<service>.test-notification` (live only).
        public static let diagnosticTest = Kind(rawValue: "diagnostic.test")
    }

    /// Where a notification came from.
    public enum Source: Sendable, Equatable {
        /// Pushed on the socket as it happened.
        case live
        /// Read from the inbox after a reconnection: it happened while the socket was closed.
        case inbox
    }

    public var kind: Kind
    /// A short text to show the player as it is.
    public var message: String
    /// What depends on the kind (the typed views below read it).
    public var details: [String: PodiumJSON]
    public var gameId: String?
    public var playerId: String?
    /// The request that caused it (a `challenge.issue`'s or a `leaderboard.submit`'s id).
    public var correlationId: String?
    public var date: Date?
    public var source: Source

    public init(
        kind: Kind, message: String, details: [String: PodiumJSON], gameId: String? = nil, playerId: String? = nil,
        correlationId: String? = nil, date: Date? = nil, source: Source = .live
    ) {
        self.kind = kind
        self.message = message
        self.details = details
        self.gameId = gameId
        self.playerId = playerId
        self.correlationId = correlationId
        self.date = date
        self.source = source
    }

    /// A `notification` envelope as the socket pushes it; nil for anything else.
    init?(envelope: PodiumJSON) {
        guard envelope["type"]?.stringValue == "notification", let payload = envelope["payload"],
            let kind = payload["kind"]?.stringValue
        else { return nil }
        self.init(
            kind: Kind(rawValue: kind), message: payload["message"]?.stringValue ?? "",
            details: payload["details"]?.objectValue ?? [:], gameId: envelope["gameId"]?.stringValue,
            playerId: envelope["playerId"]?.stringValue, correlationId: envelope["correlationId"]?.stringValue,
            date: envelope["timestamp"]?.integerValue.map(Date.init(milliseconds:)))
    }

    /// The inbox item it is kept as (absent for live-only kinds): mark it read or delete it with this id.
    public var inboxId: String? { details["inboxId"]?.stringValue }

    /// The challenge of a `challenge.*` notification.
    public var challenge: ChallengeNotice? {
        guard kind.rawValue.hasPrefix("challenge."), let challengeId = details["challengeId"]?.stringValue else {
            return nil
        }
        return ChallengeNotice(
            challengeId: challengeId, kind: PodiumChallenge.Kind(rawValue: details["kind"]?.stringValue ?? ""),
            issuerId: details["issuerId"]?.stringValue, boardId: details["boardId"]?.stringValue,
            achievementId: details["achievementId"]?.stringValue, issuerValue: details["issuerValue"]?.integerValue,
            message: details["message"]?.stringValue, receiverId: details["receiverId"]?.stringValue,
            joinedPlayerId: kind == .challengeJoined ? details["playerId"]?.stringValue : nil,
            standings: details["standings"]?.arrayValue?.compactMap { row in
                guard let rank = row["rank"]?.integerValue, let playerId = row["playerId"]?.stringValue,
                    let value = row["value"]?.integerValue
                else { return nil }
                return ChallengeNotice.Standing(
                    rank: Int(rank), playerId: playerId, value: value,
                    attempts: row["attempts"]?.integerValue.map(Int.init)
                )
            })
    }

    /// The achievement of an `achievement.earned` notification.
    public var achievement: AchievementNotice? {
        guard kind == .achievementEarned, let achievementId = details["achievementId"]?.stringValue else { return nil }
        return AchievementNotice(
            achievementId: achievementId, title: details["title"]?.stringValue ?? "",
            earnedDescription: details["earnedDescription"]?.stringValue ?? "",
            points: Int(details["points"]?.integerValue ?? 0),
            timesEarned: Int(details["timesEarned"]?.integerValue ?? 1))
    }

    /// The other player of a `friend.requested` or `friend.accepted` notification.
    public var friend: PodiumPlayer? {
        guard kind == .friendRequested || kind == .friendAccepted, let playerId = details["playerId"]?.stringValue
        else { return nil }
        return PodiumPlayer(playerId: playerId, displayName: details["displayName"]?.stringValue)
    }

    /// What a `challenge.*` notification says about its challenge (docs/PROTOCOL.md 12.9).
    public struct ChallengeNotice: Sendable, Equatable {
        public struct Standing: Sendable, Equatable {
            public var rank: Int
            public var playerId: String
            public var value: Int64
            public var attempts: Int?
        }

        public var challengeId: String
        public var kind: PodiumChallenge.Kind
        public var issuerId: String?
        public var boardId: String?
        public var achievementId: String?
        /// A score challenge's value to beat.
        public var issuerValue: Int64?
        /// The issuer's message.
        public var message: String?
        /// `challenge.completed-by-receiver`: who completed it.
        public var receiverId: String?
        /// `challenge.joined`: who joined.
        public var joinedPlayerId: String?
        /// `challenge.ended` and `challenge.standings`: the order, best first.
        public var standings: [Standing]?
    }

    /// What an `achievement.earned` notification says (docs/PROTOCOL.md 11.5).
    public struct AchievementNotice: Sendable, Equatable {
        public var achievementId: String
        public var title: String
        public var earnedDescription: String
        public var points: Int
        public var timesEarned: Int
    }
}
