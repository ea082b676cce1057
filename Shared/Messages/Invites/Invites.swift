/// What an invite code lets whoever enters it do.
public enum InvitePurpose: String, Codable, Sendable, CaseIterable {
    /// Send the code's owner a friend request (`auth.invites.redeem`).
    case friend
    /// Join the owner's time-boxed challenge (`challenge.join`).
    case challenge
}

/// `auth.invites.create`: a friend invite of the player's own.
public struct InviteRequest: Codable, Sendable, Equatable {
    /// How long the code works: 1 minute to 30 days; default 1 day.
    public var expiresInMilliseconds: Int64?
    public init(expiresInMilliseconds: Int64? = nil) { self.expiresInMilliseconds = expiresInMilliseconds }
}

/// An invite code as its owner sees it.
public struct Invite: Codable, Sendable, Equatable {
    /// `XXXXX-XXXXX`.
    public var code: String
    public var purpose: InvitePurpose
    /// The challenge a `challenge` code joins.
    public var challengeId: String?
    public var gameId: String?
    public var createdAt: Int64
    public var expiresAt: Int64
    /// When its owner revoked it; absent while it works.
    public var revokedAt: Int64?
    /// How many times it was used.
    public var uses: Int

    public init(
        code: String, purpose: InvitePurpose, challengeId: String? = nil, gameId: String? = nil, createdAt: Int64,
        expiresAt: Int64,
        revokedAt: Int64? = nil, uses: Int = 0
    ) {
        self.code = code
        self.purpose = purpose
        self.challengeId = challengeId
        self.gameId = gameId
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        self.revokedAt = revokedAt
        self.uses = uses
    }
}

/// The reply to `auth.invites.list`: the player's codes that still work, newest first.
public struct InviteList: Codable, Sendable, Equatable {
    public var invites: [Invite]
    public init(invites: [Invite]) { self.invites = invites }
}

/// `auth.invites.redeem`, `auth.invites.revoke` and `challenge.join`: a code as entered.
public struct InviteEntry: Codable, Sendable, Equatable {
    public var code: String
    public init(code: String) { self.code = code }
}

/// The reply to `auth.invites.revoke`.
public struct InviteRevocation: Codable, Sendable, Equatable {
    public var code: String
    /// False when it had already been revoked.
    public var revoked: Bool
    public init(code: String, revoked: Bool) {
        self.code = code
        self.revoked = revoked
    }
}

/// `auth.invites.issue` (services only): a code for another service's purpose, owned by a player.
public struct InviteIssue: Codable, Sendable, Equatable {
    public var ownerId: String
    public var purpose: InvitePurpose
    public var challengeId: String?
    public var gameId: String?
    public var expiresInMilliseconds: Int64?
    /// The id of the request the code is made for (the client's `auth.invites.create` or
    /// `challenge.invite`): a resend of that request (the same id, after a timeout, a reconnect
    /// or an instance's loss) gets the code made the first time instead of a second one.
    /// Absent: every issue makes a code.
    public var requestId: String?

    public init(
        ownerId: String, purpose: InvitePurpose, challengeId: String?, gameId: String?, expiresInMilliseconds: Int64?,
        requestId: String? = nil
    ) {
        self.requestId = requestId
        self.ownerId = ownerId
        self.purpose = purpose
        self.challengeId = challengeId
        self.gameId = gameId
        self.expiresInMilliseconds = expiresInMilliseconds
    }
}

/// `auth.invites.resolve` (services only): who is entering which code.
public struct InviteResolution: Codable, Sendable, Equatable {
    public var code: String
    public var playerId: String
    /// The client address the code came from (guessing is limited per address too).
    public var address: String?
    /// The id of the request the player entered the code with (`challenge.join`'s): a resend
    /// of that request (the same id, after a timeout or a reconnect) is the same entry, and
    /// counts no second use. Absent: every resolution counts.
    public var entryId: String?
    public init(code: String, playerId: String, address: String?, entryId: String? = nil) {
        self.code = code
        self.playerId = playerId
        self.address = address
        self.entryId = entryId
    }
}

/// The reply to `auth.invites.resolve`: the code's owner and what it is for (counted as a use).
public struct ResolvedInvite: Codable, Sendable, Equatable {
    public var ownerId: String
    public var purpose: InvitePurpose
    public var challengeId: String?
    public var gameId: String?
    public init(ownerId: String, purpose: InvitePurpose, challengeId: String?, gameId: String?) {
        self.ownerId = ownerId
        self.purpose = purpose
        self.challengeId = challengeId
        self.gameId = gameId
    }
}

/// `challenge.invite`: a code that lets others join a running time-boxed challenge.
public struct ChallengeInviteRequest: Codable, Sendable, Equatable {
    public var challengeId: String
    public var expiresInMilliseconds: Int64?
    public init(challengeId: String, expiresInMilliseconds: Int64? = nil) {
        self.challengeId = challengeId
        self.expiresInMilliseconds = expiresInMilliseconds
    }
}
