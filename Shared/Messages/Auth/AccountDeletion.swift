/// `auth.account.delete`: a player deletes their own account (docs/PROTOCOL.md 8.14). An account
/// with a password must give it again, so that a stolen session token cannot delete it; an
/// account made on a device (no password) is deleted with its session alone.
public struct AccountDeletionRequest: Codable, Sendable, Equatable {
    /// The account's password, when it has one.
    public var password: String?
    /// Must be `true`: a deletion cannot be undone.
    public var confirm: Bool?

    public init(password: String? = nil, confirm: Bool? = true) {
        self.password = password
        self.confirm = confirm
    }
}

/// `auth.admin.delete-account`: an operator deletes a player's account (a request the player made
/// by other means, or a legal order).
public struct AccountDeletionOrder: Codable, Sendable, Equatable {
    public var playerId: String
    /// Why, for the operator's records (1-500 characters; kept in the audit log, not with the player).
    public var reason: String?
    /// Must be `true`: a deletion cannot be undone.
    public var confirm: Bool?

    public init(playerId: String, reason: String? = nil, confirm: Bool? = true) {
        self.playerId = playerId
        self.reason = reason
        self.confirm = confirm
    }
}

/// The reply to both deletion requests: the account is gone from the auth service when it comes
/// (no login, no session, no device, no friend); every other service erases the player's data
/// from the `auth` stream's `auth.account-deleted` message, within seconds while it runs, and
/// after its restart otherwise.
public struct AccountDeletionReceipt: Codable, Sendable, Equatable {
    public var playerId: String
    public var deletedAt: Int64
    /// The sessions ended (their WebSockets are closed with 4005).
    public var revokedSessions: Int
    public var sessionIds: [String]
    /// Devices unlinked: the next device login from one of them makes a new account.
    public var unlinkedDevices: Int
    /// When the username may be registered again (nil: the account had none).
    public var usernameFreeAt: Int64?

    public init(
        playerId: String, deletedAt: Int64, revokedSessions: Int, sessionIds: [String], unlinkedDevices: Int,
        usernameFreeAt: Int64?
    ) {
        self.playerId = playerId
        self.deletedAt = deletedAt
        self.revokedSessions = revokedSessions
        self.sessionIds = sessionIds
        self.unlinkedDevices = unlinkedDevices
        self.usernameFreeAt = usernameFreeAt
    }
}

/// The `auth.account-deleted` message of the `auth` stream (topic `friend/deleted/<playerId>`): every
/// service that holds data about players erases the player's, exactly once, and puts
/// `pseudonym` where a record must stay (an event in the log, an audit entry).
public struct AccountErasure: Codable, Sendable, Equatable {
    public var playerId: String
    /// `deleted-<random>`: the same in every service, linked to the player nowhere.
    public var pseudonym: String
    public var deletedAt: Int64

    public init(playerId: String, pseudonym: String, deletedAt: Int64) {
        self.playerId = playerId
        self.pseudonym = pseudonym
        self.deletedAt = deletedAt
    }

    /// The topic of the message: `friend/deleted/<playerId>`. The auth stream's messages share
    /// one topic family, `friend` (a bus subscriber counts sequences per family: a second family
    /// in one stream would make each see the other's numbers as gaps).
    public static func topic(for playerId: String) -> Topic { Topic(rawValue: "friend/deleted/\(playerId)") }
    /// The topic prefix the followers of the auth stream subscribe to (its one family).
    public static let topicPrefix = "friend/"
}

/// `auth.deletions.pending`: the deletions whose records outside the services (the gateway's
/// event and audit logs) are not yet pseudonymised, oldest first.
public struct PendingErasures: Codable, Sendable, Equatable {
    public var erasures: [AccountErasure]
    public init(erasures: [AccountErasure]) { self.erasures = erasures }
}

/// `auth.deletions.erased`: the gateway pseudonymised its logs for a deleted player.
public struct ErasureDone: Codable, Sendable, Equatable {
    public var playerId: String
    public init(playerId: String) { self.playerId = playerId }
}

/// The reply to `auth.deletions.erased`.
public struct ErasureDoneReceipt: Codable, Sendable, Equatable {
    public var playerId: String
    /// False when the deletion was already marked done (or is unknown).
    public var marked: Bool
    public init(playerId: String, marked: Bool) {
        self.playerId = playerId
        self.marked = marked
    }
}
