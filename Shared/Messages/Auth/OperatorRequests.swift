import Foundation

/// `auth.admin.ban`: bar a player until unbanned or until a time (docs/PROTOCOL.md 22.1).
public struct BanRequest: Codable, Sendable, Equatable {
    public var playerId: String
    /// 1-500 characters, shown to the player.
    public var reason: String
    /// Unix milliseconds when the ban ends by itself; nil: until unbanned.
    public var until: Int64?

    public init(playerId: String, reason: String, until: Int64? = nil) {
        self.playerId = playerId
        self.reason = reason
        self.until = until
    }
}

/// The reply to `auth.admin.ban`.
public struct PlayerBan: Codable, Sendable, Equatable {
    public var playerId: String
    public var reason: String
    public var bannedAt: Int64
    public var until: Int64?
    /// How many sessions ended with the ban, and their ids (the gateway forgets their tokens
    /// before this reply reaches the operator).
    public var revokedSessions: Int
    public var sessionIds: [String]

    public init(
        playerId: String, reason: String, bannedAt: Int64, until: Int64?, revokedSessions: Int, sessionIds: [String]
    ) {
        self.playerId = playerId
        self.reason = reason
        self.bannedAt = bannedAt
        self.until = until
        self.revokedSessions = revokedSessions
        self.sessionIds = sessionIds
    }

    enum CodingKeys: String, CodingKey { case playerId, reason, bannedAt, until, revokedSessions, sessionIds }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(playerId, forKey: .playerId)
        try container.encode(reason, forKey: .reason)
        try container.encode(bannedAt, forKey: .bannedAt)
        try container.encode(until, forKey: .until)
        try container.encode(revokedSessions, forKey: .revokedSessions)
        try container.encode(sessionIds, forKey: .sessionIds)
    }
}

/// `auth.admin.unban` (and the player of other operator requests).
public struct PlayerTarget: Codable, Sendable, Equatable {
    public var playerId: String
    public init(playerId: String) { self.playerId = playerId }
}

/// The reply to `auth.admin.unban`.
public struct UnbanReceipt: Codable, Sendable, Equatable {
    public var playerId: String
    /// False when the player was not banned.
    public var unbanned: Bool
    public init(playerId: String, unbanned: Bool) {
        self.playerId = playerId
        self.unbanned = unbanned
    }
}

/// `auth.admin.revoke-session`: any player's session, by id.
public struct SessionTarget: Codable, Sendable, Equatable {
    public var sessionId: String
    public init(sessionId: String) { self.sessionId = sessionId }
}

/// `auth.admin.lookup`: exactly one of the three.
public struct PlayerLookup: Codable, Sendable, Equatable {
    public var playerId: String?
    public var username: String?
    public var deviceId: String?
    public init(playerId: String? = nil, username: String? = nil, deviceId: String? = nil) {
        self.playerId = playerId
        self.username = username
        self.deviceId = deviceId
    }
}

/// `auth.admin.unlink-device`: a device no longer logs in to its player's account (a lost or
/// sold phone); its next device login makes a new account.
public struct DeviceTarget: Codable, Sendable, Equatable {
    public var deviceId: String
    public init(deviceId: String) { self.deviceId = deviceId }
}

/// The reply to `auth.admin.unlink-device`.
public struct DeviceUnlinkReceipt: Codable, Sendable, Equatable {
    public var deviceId: String
    /// The player it was linked to; nil when no player had it.
    public var playerId: String?
    public init(deviceId: String, playerId: String?) {
        self.deviceId = deviceId
        self.playerId = playerId
    }
}

/// `auth.admin.search`: players whose username or display name starts with `query`
/// (case-insensitive), or whose id is `query`, by display name.
public struct PlayerSearch: Codable, Sendable, Equatable {
    /// 1-64 characters.
    public var query: String
    /// 1-100, default 20.
    public var limit: Int?
    public init(query: String, limit: Int? = nil) {
        self.query = query
        self.limit = limit
    }
}

/// One player found by `auth.admin.search`.
public struct PlayerSummary: Codable, Sendable, Equatable {
    public var playerId: String
    public var displayName: String
    public var username: String?
    public var createdAt: Int64
    public init(playerId: String, displayName: String, username: String?, createdAt: Int64) {
        self.playerId = playerId
        self.displayName = displayName
        self.username = username
        self.createdAt = createdAt
    }
}

/// The reply to `auth.admin.search`.
public struct PlayerSearchResult: Codable, Sendable, Equatable {
    public var players: [PlayerSummary]
    public init(players: [PlayerSummary]) { self.players = players }
}

/// The reply to `auth.admin.lookup`: what an operator sees of a player.
public struct PlayerRecord: Codable, Sendable, Equatable {
    public struct Device: Codable, Sendable, Equatable {
        public var deviceId: String
        public var linkedAt: Int64
        public init(deviceId: String, linkedAt: Int64) {
            self.deviceId = deviceId
            self.linkedAt = linkedAt
        }
    }

    public struct Session: Codable, Sendable, Equatable {
        public var sessionId: String
        public var createdAt: Int64
        /// When its refresh token expires.
        public var expiresAt: Int64
        public init(sessionId: String, createdAt: Int64, expiresAt: Int64) {
            self.sessionId = sessionId
            self.createdAt = createdAt
            self.expiresAt = expiresAt
        }
    }

    public struct Ban: Codable, Sendable, Equatable {
        public var reason: String
        public var bannedAt: Int64
        public var until: Int64?
        public init(reason: String, bannedAt: Int64, until: Int64?) {
            self.reason = reason
            self.bannedAt = bannedAt
            self.until = until
        }

        /// Whether the ban holds at `now`: it has no end, or its end is still ahead.
        public func holds(at now: Int64) -> Bool {
            until.map { $0 > now } ?? true
        }

        /// The refusal the banned player gets (`player_banned`, with the reason and the end).
        public var refusal: ErrorReply {
            let end = until.map { " until \(Timestamps.iso8601($0))" } ?? ""
            return ErrorReply(code: .playerBanned, message: "this player is banned\(end): \(reason)")
        }

        enum CodingKeys: String, CodingKey { case reason, bannedAt, until }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(reason, forKey: .reason)
            try container.encode(bannedAt, forKey: .bannedAt)
            try container.encode(until, forKey: .until)
        }
    }

    public var playerId: String
    public var displayName: String
    public var username: String?
    public var createdAt: Int64
    public var devices: [Device]
    public var sessions: [Session]
    public var friends: Int
    /// The friends' ids (at most 200 of them).
    public var friendIds: [String]
    public var ban: Ban?

    public init(
        playerId: String, displayName: String, username: String?, createdAt: Int64, devices: [Device],
        sessions: [Session],
        friends: Int, friendIds: [String] = [], ban: Ban?
    ) {
        self.playerId = playerId
        self.displayName = displayName
        self.username = username
        self.createdAt = createdAt
        self.devices = devices
        self.sessions = sessions
        self.friends = friends
        self.friendIds = friendIds
        self.ban = ban
    }

    enum CodingKeys: String, CodingKey {
        case playerId, displayName, username, createdAt, devices, sessions, friends, friendIds, ban
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        playerId = try container.decode(String.self, forKey: .playerId)
        displayName = try container.decode(String.self, forKey: .displayName)
        username = try container.decodeIfPresent(String.self, forKey: .username)
        createdAt = try container.decode(Int64.self, forKey: .createdAt)
        devices = try container.decode([Device].self, forKey: .devices)
        sessions = try container.decode([Session].self, forKey: .sessions)
        friends = try container.decode(Int.self, forKey: .friends)
        friendIds = try container.decodeIfPresent([String].self, forKey: .friendIds) ?? []
        ban = try container.decodeIfPresent(Ban.self, forKey: .ban)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(playerId, forKey: .playerId)
        try container.encode(displayName, forKey: .displayName)
        try container.encode(username, forKey: .username)
        try container.encode(createdAt, forKey: .createdAt)
        try container.encode(devices, forKey: .devices)
        try container.encode(sessions, forKey: .sessions)
        try container.encode(friends, forKey: .friends)
        try container.encode(friendIds, forKey: .friendIds)
        try container.encode(ban, forKey: .ban)
    }
}

/// Unix milliseconds as ISO 8601 text, for messages.
enum Timestamps {
    static func iso8601(_ milliseconds: Int64) -> String {
        Date(timeIntervalSince1970: Double(milliseconds) / 1000).formatted(.iso8601)
    }
}
