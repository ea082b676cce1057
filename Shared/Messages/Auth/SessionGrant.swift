/// The reply to register, login, device login and refresh: who the player is and their tokens.
public struct SessionGrant: Codable, Sendable, Equatable {
    /// The stable, opaque player id.
    public var playerId: String
    public var displayName: String
    /// The username, if the account has one (device accounts may not).
    public var username: String?
    /// The session these tokens belong to.
    public var sessionId: String
    /// Send as `token` on every request. Short-lived.
    public var sessionToken: String
    /// When the session token expires, ms since the epoch.
    public var sessionExpiresAt: Int64
    /// Trade for new tokens with `auth.refresh`; each refresh token works once.
    public var refreshToken: String
    /// When the refresh token expires, ms since the epoch.
    public var refreshExpiresAt: Int64
    /// True when this request created the account.
    public var created: Bool

    public init(
        playerId: String, displayName: String, username: String?, sessionId: String, sessionToken: String,
        sessionExpiresAt: Int64, refreshToken: String, refreshExpiresAt: Int64, created: Bool
    ) {
        self.playerId = playerId
        self.displayName = displayName
        self.username = username
        self.sessionId = sessionId
        self.sessionToken = sessionToken
        self.sessionExpiresAt = sessionExpiresAt
        self.refreshToken = refreshToken
        self.refreshExpiresAt = refreshExpiresAt
        self.created = created
    }
}

/// A player as anyone may see them.
public struct PublicProfile: Codable, Sendable, Equatable, Hashable {
    public var playerId: String
    public var displayName: String

    public init(playerId: String, displayName: String) {
        self.playerId = playerId
        self.displayName = displayName
    }
}

/// The reply to `auth.profile`: the player's own account.
public struct PlayerProfile: Codable, Sendable, Equatable {
    public var playerId: String
    public var displayName: String
    public var username: String?
    /// Devices whose anonymous login returns this account.
    public var linkedDevices: Int
    public var createdAt: Int64

    public init(playerId: String, displayName: String, username: String?, linkedDevices: Int, createdAt: Int64) {
        self.playerId = playerId
        self.displayName = displayName
        self.username = username
        self.linkedDevices = linkedDevices
        self.createdAt = createdAt
    }
}

/// `auth.players`: public profiles for a list of player ids (unknown ids are left out).
public struct ProfileLookup: Codable, Sendable, Equatable {
    public var playerIds: [String]

    public init(playerIds: [String]) { self.playerIds = playerIds }
}

/// The reply to `auth.players`.
public struct ProfileList: Codable, Sendable, Equatable {
    public var players: [PublicProfile]

    public init(players: [PublicProfile]) { self.players = players }
}

/// The reply to `auth.logout` and `auth.revoke`.
public struct RevocationReceipt: Codable, Sendable, Equatable {
    /// How many sessions ended now.
    public var revokedSessions: Int
    /// Their ids (the gateway stops accepting their tokens before this reply reaches you).
    public var sessionIds: [String]

    public init(revokedSessions: Int, sessionIds: [String] = []) {
        self.revokedSessions = revokedSessions
        self.sessionIds = sessionIds
    }
}

/// `auth.session-check` (gateway only): is this session still valid?
public struct SessionCheck: Codable, Sendable, Equatable {
    public var sessionId: String
    public var playerId: String

    public init(sessionId: String, playerId: String) {
        self.sessionId = sessionId
        self.playerId = playerId
    }
}

/// The reply to `auth.session-check`.
public struct SessionStatus: Codable, Sendable, Equatable {
    public var sessionId: String
    public var valid: Bool
    /// Set when the session is not valid because its player is banned.
    public var ban: PlayerRecord.Ban?

    public init(sessionId: String, valid: Bool, ban: PlayerRecord.Ban? = nil) {
        self.sessionId = sessionId
        self.valid = valid
        self.ban = ban
    }
}

/// Published on `auth/revoked` when sessions end, so that the gateway forgets their tokens at once.
public struct SessionsRevoked: Codable, Sendable, Equatable {
    public var playerId: String
    public var sessionIds: [String]
    /// Set when the sessions ended because an operator banned the player.
    public var ban: PlayerRecord.Ban?
    /// Set when the sessions ended because the account was deleted.
    public var deleted: Bool?

    public init(playerId: String, sessionIds: [String], ban: PlayerRecord.Ban? = nil, deleted: Bool? = nil) {
        self.playerId = playerId
        self.sessionIds = sessionIds
        self.ban = ban
        self.deleted = deleted
    }
}
