import PodiumMessages
import PodiumRuntime

/// A stored account.
public struct AccountRecord: Sendable, Equatable {
    public var playerId: String
    public var displayName: String
    public var username: String?
    public var passwordHash: String?
    public var createdAt: Int64

    public init(
        playerId: String, displayName: String, username: String? = nil, passwordHash: String? = nil, createdAt: Int64
    ) {
        self.playerId = playerId
        self.displayName = displayName
        self.username = username
        self.passwordHash = passwordHash
        self.createdAt = createdAt
    }
}

/// What rotating a refresh token found.
public enum RefreshOutcome: Sendable, Equatable {
    /// The presented token was current; it is now replaced.
    case rotated
    /// The presented token was already used: someone replayed it, so the session was revoked.
    case reused
    /// The session was revoked or does not exist.
    case revoked
}

/// The auth service's storage: accounts, devices, sessions, friends.
///
/// Every method is one atomic transaction.
public protocol AccountStore: ServiceStore, DeletedAccountStore, PlayerDirectory {
    /// Where the login and invite-code throttles count when several instances share the store
    /// (PostgreSQL); nil: each instance counts in memory (``ThrottleLedger``).
    var throttles: (any ThrottleLedger)? { get }
    /// Creates a username/password account; throws `username_taken` if the key is in use.
    func createAccount(
        playerId: String, username: String, usernameKey: String, passwordHash: String, displayName: String, now: Int64
    ) async throws -> AccountRecord
    /// The account with this username key.
    func account(usernameKey: String) async throws -> AccountRecord?
    func account(playerId: String) async throws -> AccountRecord?
    /// Public profiles of the ids that exist.
    func profiles(playerIds: [String]) async throws -> [PublicProfile]
    /// The device's account, created with `newPlayerId` if the device is new.
    func deviceAccount(deviceId: String, newPlayerId: String, displayName: String, now: Int64) async throws -> (
        AccountRecord, created: Bool
    )
    /// Gives an account without a username one; throws `username_taken` or `conflict`.
    func linkCredentials(playerId: String, username: String, usernameKey: String, passwordHash: String) async throws
        -> AccountRecord
    func setDisplayName(playerId: String, displayName: String) async throws -> AccountRecord
    func linkedDeviceCount(playerId: String) async throws -> Int

    func createSession(sessionId: String, playerId: String, refreshTokenId: String, now: Int64, refreshExpiresAt: Int64)
        async throws
    /// Rotates the session's refresh token as ``RefreshRotation`` decides, in one transaction.
    func rotateRefreshToken(
        sessionId: String, playerId: String, presentedTokenId: String, newTokenId: String, refreshExpiresAt: Int64,
        now: Int64
    ) async throws -> RefreshOutcome
    /// Revokes one session (or all the player's when nil); returns the ids revoked now.
    func revokeSessions(playerId: String, sessionId: String?, now: Int64) async throws -> [String]
    /// Whether the session exists, belongs to the player and is not revoked.
    func isSessionActive(sessionId: String, playerId: String) async throws -> Bool
    /// The player a session belongs to.
    func sessionOwner(sessionId: String) async throws -> String?
    /// The player's sessions that are neither revoked nor past their refresh expiry, newest first.
    func activeSessions(playerId: String, now: Int64) async throws -> [PlayerRecord.Session]
    /// The devices linked to the player.
    func devices(playerId: String) async throws -> [PlayerRecord.Device]
    /// The player a device belongs to.
    func devicePlayer(deviceId: String) async throws -> String?

    /// Bans the player (replacing an earlier ban) and revokes every active session of theirs, in
    /// one transaction; returns the ids revoked.
    func ban(playerId: String, reason: String, until: Int64?, now: Int64) async throws -> [String]
    /// Ends the player's ban; false when there was none.
    func unban(playerId: String) async throws -> Bool
    /// The player's ban as stored, whether or not its end has passed (``BanRules`` decides).
    func ban(playerId: String) async throws -> PlayerRecord.Ban?

    /// The relation from `playerId`'s side.
    func friendState(playerId: String, otherPlayerId: String) async throws -> FriendState
    /// Loads both sides of the relation between two players, lets `change` (one of
    /// ``FriendRules``'s rules) change them and writes both back with what `announce` makes of
    /// the sides before and after (the outbox message of ``FriendNews``), in one transaction;
    /// with `requireBoth`, throws `unknown_player` unless both players exist. Returns what
    /// `change` returned. `now` dates the sides written (no side is written for a rule that only
    /// removes).
    func updateRelation(
        _ playerId: String, _ otherPlayerId: String, requireBoth: Bool, now: Int64, announce: @escaping RelationWrites,
        _ change: @escaping @Sendable (inout FriendRules) throws -> FriendState
    ) async throws -> FriendState
    func friendList(playerId: String) async throws -> FriendList
    func friendIDs(playerId: String) async throws -> [String]
    /// Whether either player blocked the other.
    func isBlocked(_ playerId: String, _ otherPlayerId: String) async throws -> Bool

    // Invite codes (their rules are ``InviteRules``).
    /// Stores a new code, made for request `requestId` of its owner when given; false when the
    /// code is taken already (the caller draws another) or the owner's request already made one
    /// (``invite(ownerId:requestId:)`` finds it).
    func createInvite(_ invite: Invite, ownerId: String, requestId: String?) async throws -> Bool
    /// The code an owner's request made, if any.
    func invite(ownerId: String, requestId: String) async throws -> Invite?
    /// A code and its owner, whatever its state.
    func invite(code: String) async throws -> (invite: Invite, ownerId: String)?
    /// The owner's codes that still work at `now`, newest first.
    func invites(ownerId: String, now: Int64) async throws -> [Invite]
    /// Marks the owner's code revoked; nil when the owner has no such code, false when it was
    /// revoked already.
    func revokeInvite(code: String, ownerId: String, now: Int64) async throws -> Bool?
    /// Counts one use of a code by `playerId`, unless `entryId` is the id of that player's last
    /// entry of this code (a resend of the same request: already counted). A nil `entryId`
    /// always counts.
    func useInvite(code: String, playerId: String, entryId: String?) async throws
}

/// What a relation change writes besides both sides, from the sides before and after it.
public typealias RelationWrites = @Sendable (_ before: FriendRules, _ after: FriendRules) throws -> DurableWrites

extension AccountStore {
    /// Sends a request, or accepts the other's pending one; `cause` names the request (its game
    /// and id) for the news it makes (``FriendNews``).
    func requestFriend(from playerId: String, to otherPlayerId: String, now: Int64, cause: FriendNews.Cause)
        async throws -> FriendState
    {
        try await updateRelation(
            playerId, otherPlayerId, requireBoth: true, now: now,
            announce: FriendNews.writes(cause, other: otherPlayerId, now: now)
        ) { try $0.request() }
    }

    func acceptFriend(playerId: String, from otherPlayerId: String, now: Int64, cause: FriendNews.Cause) async throws
        -> FriendState
    {
        try await updateRelation(
            playerId, otherPlayerId, requireBoth: false, now: now,
            announce: FriendNews.writes(cause, other: otherPlayerId, now: now)
        ) { try $0.accept() }
    }

    func declineFriend(playerId: String, from otherPlayerId: String) async throws -> FriendState {
        try await updateRelation(playerId, otherPlayerId, requireBoth: false, now: 0, announce: Self.nothing) {
            try $0.decline()
        }
    }

    func removeFriend(playerId: String, otherPlayerId: String) async throws -> FriendState {
        try await updateRelation(playerId, otherPlayerId, requireBoth: false, now: 0, announce: Self.nothing) {
            $0.remove()
        }
    }

    func block(playerId: String, otherPlayerId: String, now: Int64) async throws -> FriendState {
        try await updateRelation(playerId, otherPlayerId, requireBoth: true, now: now, announce: Self.nothing) {
            $0.block()
        }
    }

    func unblock(playerId: String, otherPlayerId: String) async throws -> FriendState {
        try await updateRelation(playerId, otherPlayerId, requireBoth: false, now: 0, announce: Self.nothing) {
            $0.unblock()
        }
    }

    /// A change that is never news: declines, removals, blocks.
    static var nothing: RelationWrites { { _, _ in DurableWrites() } }
}

/// What deleting an account removed (``AccountStore/deleteAccount(_:)``).
public struct DeletedAccount: Sendable, Equatable {
    /// The sessions that were live (their tokens must be forgotten, their sockets closed).
    public var sessionIds: [String]
    public var devices: Int

    public init(sessionIds: [String], devices: Int) {
        self.sessionIds = sessionIds
        self.devices = devices
    }
}

/// A deletion for ``AccountStore/deleteAccount(_:)``.
public struct AccountDeletion: Sendable {
    public var erasure: AccountErasure
    /// The account's username key, kept until `usernameFreeAt` so that nobody takes the name at
    /// once (nil: the account had none).
    public var usernameKey: String?
    public var usernameFreeAt: Int64?
    /// The `auth.account-deleted` message, committed with the deletion.
    public var writes: DurableWrites

    public init(erasure: AccountErasure, usernameKey: String?, usernameFreeAt: Int64?, writes: DurableWrites) {
        self.erasure = erasure
        self.usernameKey = usernameKey
        self.usernameFreeAt = usernameFreeAt
        self.writes = writes
    }
}

/// Finding players for operators.
public protocol PlayerDirectory: Sendable {
    /// Players whose username key or lower-cased display name starts with `prefix` (already
    /// lower-cased), or whose id is `prefix`, by display name, at most `limit`.
    func searchPlayers(prefix: String, limit: Int) async throws -> [PlayerSummary]
    /// Removes a device's link; the player it was linked to, nil when none.
    func unlinkDevice(deviceId: String) async throws -> String?
}

/// Deleted accounts (docs/PROTOCOL.md 8.14): every method one transaction.
public protocol DeletedAccountStore: Sendable {
    /// Deletes the account in one transaction: the player row, its devices, sessions, relations
    /// (both sides), ban, invite codes and entries; records the deletion (its pseudonym, the
    /// quarantined username) and commits `deletion.writes`. Throws `unknown_player` when there is
    /// no such account.
    func deleteAccount(_ deletion: AccountDeletion) async throws -> DeletedAccount
    /// Deletions whose logs outside the services are not yet pseudonymised, oldest first.
    func pendingErasures(limit: Int) async throws -> [AccountErasure]
    /// Marks a deletion's logs pseudonymised; false when it was already (or is unknown).
    func markErased(playerId: String, now: Int64) async throws -> Bool
    /// Whether a username key is held by a recent deletion's quarantine.
    func isQuarantined(usernameKey: String, now: Int64) async throws -> Bool
    /// Forgets the usernames whose quarantine is over; how many.
    func releaseQuarantine(now: Int64) async throws -> Int
}

/// Opens a service's account store once its settings are known.
public typealias AccountStoreOpener = @Sendable (RuntimeSettings) async throws -> any AccountStore

/// Refusals every account store gives in the same words.
public enum AccountErrors {
    public static let usernameTaken = ErrorReply(
        code: .usernameTaken, message: "that username is taken", field: "payload.username")
    public static let unknownPlayer = ErrorReply(
        code: .unknownPlayer, message: "no player has this id", field: "payload.playerId")
}

extension AccountStore {
    /// Nothing to let go of (SQLite files close with their last reference).
    public func close() async {}
    /// One instance counts in its memory.
    public var throttles: (any ThrottleLedger)? { nil }
}

extension AccountStore {
    /// Where this service's instances lease their data (PostgreSQL); nil: one instance owns it all.
    public var leases: (any LeaseStore)? { nil }
}
