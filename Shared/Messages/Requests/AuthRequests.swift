/// The auth service's requests (docs/PROTOCOL.md 8 and 9): accounts, sessions, profiles, friends.
public enum AuthRequests {
    public static let register = RequestDefinition<Registration, SessionGrant>(
        "auth.register", access: .anyone, changesState: true)
    public static let login = RequestDefinition<PasswordLogin, SessionGrant>(
        "auth.login", access: .anyone, changesState: true)
    public static let deviceLogin = RequestDefinition<DeviceLogin, SessionGrant>(
        "auth.device-login", access: .anyone, changesState: true)
    public static let refresh = RequestDefinition<SessionRefresh, SessionGrant>(
        "auth.refresh", access: .anyone, changesState: true)
    public static let link = RequestDefinition<AccountLink, PlayerProfile>(
        "auth.link", access: .player, changesState: true)
    public static let logout = RequestDefinition<EmptyPayload, RevocationReceipt>(
        "auth.logout", access: .player, changesState: true)
    public static let revoke = RequestDefinition<SessionRevocation, RevocationReceipt>(
        "auth.revoke", access: .player, changesState: true)
    public static let profile = RequestDefinition<EmptyPayload, PlayerProfile>(
        "auth.profile", access: .player)
    public static let displayName = RequestDefinition<DisplayNameChange, PlayerProfile>(
        "auth.display-name", access: .player, changesState: true)
    /// The player deletes their account (docs/PROTOCOL.md 8.14).
    public static let deleteAccount = RequestDefinition<AccountDeletionRequest, AccountDeletionReceipt>(
        "auth.account.delete", access: .player, changesState: true)
    /// Public profiles of other players (display names), for any credential.
    public static let players = RequestDefinition<ProfileLookup, ProfileList>(
        "auth.players", access: .signedIn)

    // Friends (a player's own relations).
    public static let friendRequest = RequestDefinition<FriendTarget, FriendRelation>(
        "auth.friends.request", access: .player, changesState: true)
    public static let friendAccept = RequestDefinition<FriendTarget, FriendRelation>(
        "auth.friends.accept", access: .player, changesState: true)
    public static let friendDecline = RequestDefinition<FriendTarget, FriendRelation>(
        "auth.friends.decline", access: .player, changesState: true)
    public static let friendRemove = RequestDefinition<FriendTarget, FriendRelation>(
        "auth.friends.remove", access: .player, changesState: true)
    public static let friendBlock = RequestDefinition<FriendTarget, FriendRelation>(
        "auth.friends.block", access: .player, changesState: true)
    public static let friendUnblock = RequestDefinition<FriendTarget, FriendRelation>(
        "auth.friends.unblock", access: .player, changesState: true)
    public static let friendList = RequestDefinition<EmptyPayload, FriendList>(
        "auth.friends.list", access: .player)

    // Invite codes (docs/PROTOCOL.md 9.5).
    public static let createInvite = RequestDefinition<InviteRequest, Invite>(
        "auth.invites.create", access: .player, changesState: true)
    public static let listInvites = RequestDefinition<EmptyPayload, InviteList>(
        "auth.invites.list", access: .player)
    public static let revokeInvite = RequestDefinition<InviteEntry, InviteRevocation>(
        "auth.invites.revoke", access: .player, changesState: true)
    public static let redeemInvite = RequestDefinition<InviteEntry, FriendRelation>(
        "auth.invites.redeem", access: .player, changesState: true)
    /// A code for another service's purpose (a challenge to join), owned by a player.
    public static let issueInvite = RequestDefinition<InviteIssue, Invite>(
        "auth.invites.issue", access: .service, changesState: true)
    /// Who owns an entered code and what it is for; counts guesses and uses.
    public static let resolveInvite = RequestDefinition<InviteResolution, ResolvedInvite>(
        "auth.invites.resolve", access: .service, changesState: true)

    // Asked by other services (and operators).
    /// Whether a session is still valid (the gateway, before it trusts a token).
    public static let sessionCheck = RequestDefinition<SessionCheck, SessionStatus>(
        "auth.session-check", access: .serviceOrOperator)
    /// The relation between two players (challenges).
    public static let friendCheck = RequestDefinition<FriendshipQuery, Friendship>(
        "auth.friends.check", access: .serviceOrOperator)
    /// A player's friends' ids (friends-only leaderboards, challenge candidates).
    public static let friendsOf = RequestDefinition<FriendsOfQuery, FriendIDs>(
        "auth.friends.of", access: .serviceOrOperator)

    // Operators.
    public static let ban = RequestDefinition<BanRequest, PlayerBan>(
        "auth.admin.ban", access: .operator, changesState: true)
    public static let unban = RequestDefinition<PlayerTarget, UnbanReceipt>(
        "auth.admin.unban", access: .operator, changesState: true)
    public static let revokeSession = RequestDefinition<SessionTarget, RevocationReceipt>(
        "auth.admin.revoke-session", access: .operator, changesState: true)
    public static let lookup = RequestDefinition<PlayerLookup, PlayerRecord>(
        "auth.admin.lookup", access: .operator)
    /// A device no longer logs in to its player's account.
    public static let unlinkDevice = RequestDefinition<DeviceTarget, DeviceUnlinkReceipt>(
        "auth.admin.unlink-device", access: .operator, changesState: true)
    /// Players by username or display-name prefix, or by id.
    public static let search = RequestDefinition<PlayerSearch, PlayerSearchResult>(
        "auth.admin.search", access: .operator)
    /// The failed-login limits reached now.
    public static let lockouts = RequestDefinition<LockoutQuery, LockoutList>(
        "auth.admin.lockouts", access: .operator)
    /// Forgets failed logins counted against an account and/or an address.
    public static let unlock = RequestDefinition<LockoutQuery, UnlockReceipt>(
        "auth.admin.unlock", access: .operator, changesState: true)

    /// An operator deletes a player's account.
    public static let adminDeleteAccount = RequestDefinition<AccountDeletionOrder, AccountDeletionReceipt>(
        "auth.admin.delete-account", access: .operator, changesState: true)
    /// Deletions whose records outside the services are not yet pseudonymised (the gateway's).
    public static let pendingErasures = RequestDefinition<EmptyPayload, PendingErasures>(
        "auth.deletions.pending", access: .service)
    /// The gateway pseudonymised its logs for a deleted player.
    public static let erasureDone = RequestDefinition<ErasureDone, ErasureDoneReceipt>(
        "auth.deletions.erased", access: .service, changesState: true)

    /// Every auth request type.
    /// The service's part of a player's export (`account.export`), asked by the gateway.
    public static let export = RequestDefinition<ExportTarget, AccountExport>("auth.export", access: .service)

    public static let all: [RequestInfo] = [
        register.info, login.info, deviceLogin.info, refresh.info, link.info, logout.info, revoke.info,
        profile.info,
        displayName.info, players.info, friendRequest.info, friendAccept.info, friendDecline.info,
        friendRemove.info,
        friendBlock.info, friendUnblock.info, friendList.info, sessionCheck.info, friendCheck.info,
        friendsOf.info, createInvite.info, listInvites.info, revokeInvite.info, redeemInvite.info, issueInvite.info,
        resolveInvite.info, ban.info,
        unban.info, revokeSession.info, lookup.info, lockouts.info, unlock.info, deleteAccount.info,
        adminDeleteAccount.info, pendingErasures.info, erasureDone.info, search.info, unlinkDevice.info, export.info,
    ]
}
