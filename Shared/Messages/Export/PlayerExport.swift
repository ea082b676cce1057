/// `account.export`: one JSON document with everything Podium holds about a player
/// (docs/PROTOCOL.md 8.15): a player asks for their own, an operator names the player.
public struct ExportRequest: Codable, Sendable, Equatable {
    /// The operator's choice of player; a player's own request leaves it out (or gives their own id).
    public var playerId: String?
    public init(playerId: String? = nil) { self.playerId = playerId }
}

/// The player a service's part of an export is for (`<service>.export`, asked by the gateway).
public struct ExportTarget: Codable, Sendable, Equatable {
    public var playerId: String
    public init(playerId: String) { self.playerId = playerId }
}

/// The whole export: each service's part, assembled by the gateway.
public struct PlayerExport: Codable, Sendable, Equatable {
    /// `podium-export-1`: the document's format.
    public var format: String
    public var playerId: String
    /// Unix milliseconds.
    public var exportedAt: Int64
    public var account: AccountExport
    public var leaderboards: LeaderboardExport
    public var achievements: AchievementExport
    public var challenges: ChallengeExport
    /// The player's game events still in the event log (retention prunes older ones), newest first.
    public var events: [ExportedEvent]

    public static let currentFormat = "podium-export-1"

    public init(
        playerId: String, exportedAt: Int64, account: AccountExport, leaderboards: LeaderboardExport,
        achievements: AchievementExport, challenges: ChallengeExport, events: [ExportedEvent]
    ) {
        format = Self.currentFormat
        self.playerId = playerId
        self.exportedAt = exportedAt
        self.account = account
        self.leaderboards = leaderboards
        self.achievements = achievements
        self.challenges = challenges
        self.events = events
    }
}

/// The auth service's part: the profile, devices, live sessions, friends, invite codes and a ban.
public struct AccountExport: Codable, Sendable, Equatable {
    public var profile: PlayerProfile
    public var devices: [PlayerRecord.Device]
    public var sessions: [PlayerRecord.Session]
    public var friends: FriendList
    public var invites: [Invite]
    public var ban: PlayerRecord.Ban?

    public init(
        profile: PlayerProfile, devices: [PlayerRecord.Device], sessions: [PlayerRecord.Session], friends: FriendList,
        invites: [Invite], ban: PlayerRecord.Ban?
    ) {
        self.profile = profile
        self.devices = devices
        self.sessions = sessions
        self.friends = friends
        self.invites = invites
        self.ban = ban
    }
}

/// The leaderboard service's part: the player's entries (current standings, past periods
/// `<board>#<period>` and archives `…@archive-n`) and score history.
public struct LeaderboardExport: Codable, Sendable, Equatable {
    public struct Entry: Codable, Sendable, Equatable {
        public var gameId: String
        /// Where the entry stands: the board id, or a period's or archive's storage id.
        public var boardId: String
        public var value: Int64
        public var context: Int64?
        public var metadata: JSONValue?
        public var submittedAt: Int64

        public init(
            gameId: String, boardId: String, value: Int64, context: Int64?, metadata: JSONValue?, submittedAt: Int64
        ) {
            self.gameId = gameId
            self.boardId = boardId
            self.value = value
            self.context = context
            self.metadata = metadata
            self.submittedAt = submittedAt
        }
    }

    public struct Score: Codable, Sendable, Equatable {
        public var gameId: String
        public var boardId: String
        public var value: Int64
        public var submittedAt: Int64

        public init(gameId: String, boardId: String, value: Int64, submittedAt: Int64) {
            self.gameId = gameId
            self.boardId = boardId
            self.value = value
            self.submittedAt = submittedAt
        }
    }

    public var entries: [Entry]
    /// Every accepted score, newest first (at most ``maximumScores``).
    public var scores: [Score]
    /// True when the history had more than ``maximumScores`` rows.
    public var scoresTruncated: Bool?

    public static let maximumScores = 10_000

    public init(entries: [Entry], scores: [Score], scoresTruncated: Bool? = nil) {
        self.entries = entries
        self.scores = scores
        self.scoresTruncated = scoresTruncated
    }
}

/// The achievement service's part: every stored record of the player.
public struct AchievementExport: Codable, Sendable, Equatable {
    public struct Record: Codable, Sendable, Equatable {
        public var gameId: String
        public var achievementId: String
        public var steps: Int64
        /// The highest percent reported directly.
        public var percent: Double
        public var timesEarned: Int
        public var earnedAt: Int64?

        public init(
            gameId: String, achievementId: String, steps: Int64, percent: Double, timesEarned: Int, earnedAt: Int64?
        ) {
            self.gameId = gameId
            self.achievementId = achievementId
            self.steps = steps
            self.percent = percent
            self.timesEarned = timesEarned
            self.earnedAt = earnedAt
        }
    }

    public var records: [Record]
    public init(records: [Record]) { self.records = records }
}

/// The challenge service's part: the challenges the player issued and takes part in, and
/// their inbox in every game.
public struct ChallengeExport: Codable, Sendable, Equatable {
    public struct Item: Codable, Sendable, Equatable {
        public var gameId: String
        public var item: InboxItem
        public init(gameId: String, item: InboxItem) {
            self.gameId = gameId
            self.item = item
        }
    }

    public var issued: [ChallengeDetail]
    public var received: [ChallengeDetail]
    public var inbox: [Item]

    public init(issued: [ChallengeDetail], received: [ChallengeDetail], inbox: [Item]) {
        self.issued = issued
        self.received = received
        self.inbox = inbox
    }
}

/// One of the player's logged game events.
public struct ExportedEvent: Codable, Sendable, Equatable {
    public var sequence: UInt64
    public var gameId: String
    public var acceptedAt: Int64
    public var event: GameEvent

    public init(sequence: UInt64, gameId: String, acceptedAt: Int64, event: GameEvent) {
        self.sequence = sequence
        self.gameId = gameId
        self.acceptedAt = acceptedAt
        self.event = event
    }

    /// At most this many events, the newest.
    public static let maximum = 10_000
}
