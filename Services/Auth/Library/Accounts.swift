import Foundation
import PodiumMessages
import PodiumRuntime
import PodiumTokens

/// The auth service's logic: accounts, sessions and friends over an ``AccountStore``.
final class Accounts: Sendable {
    let store: any AccountStore
    let tokens: SessionTokens
    let hasher: PasswordHasher
    let configuration: AuthConfiguration
    let clock: any PodiumClock
    /// The login limits' counts in this instance's memory (one instance, on SQLite files).
    private let loginGuard: Locked<LoginGuard>
    /// Wrong invite codes per player and address (``InviteGuessing``), in memory likewise.
    let inviteGuessing = Locked(InviteGuessing())
    /// The counts shared by every auth instance (PostgreSQL): used instead of the two above, so
    /// that the limits hold for the deployment (docs/SECURITY.md 3.4).
    let throttles: (any ThrottleLedger)?
    /// A hash checked when the username does not exist, so that unknown and known usernames
    /// take the same time to fail.
    private let decoyHash: Locked<String?> = Locked(nil)

    init(
        store: any AccountStore, tokens: SessionTokens, hasher: PasswordHasher, configuration: AuthConfiguration,
        clock: any PodiumClock
    ) {
        self.store = store
        self.tokens = tokens
        self.hasher = hasher
        self.configuration = configuration
        self.clock = clock
        loginGuard = Locked(LoginGuard(limits: configuration.loginLimits))
        throttles = store.throttles
    }

    var friends: Friends { Friends(store: store) }

    // MARK: - Accounts and sessions

    func register(_ registration: Registration, peer: String?, context: ServiceContext) async throws -> SessionGrant {
        let (username, key) = try AccountRules.validUsername(registration.username)
        try AccountRules.checkPassword(registration.password)
        let displayName = try AccountRules.validDisplayName(registration.displayName ?? username)
        // Fail fast on an obvious duplicate before paying for the hash; the unique index decides races.
        if try await store.account(usernameKey: key) != nil { throw AccountErrors.usernameTaken }
        try await refuseQuarantined(key)
        let hash = try await hasher.hash(registration.password)
        let account = try await store.createAccount(
            playerId: Self.newID(), username: username, usernameKey: key, passwordHash: hash, displayName: displayName,
            now: clock.nowMilliseconds)
        context.logger.info("player registered", metadata: ["player.id": "\(account.playerId)"])
        // The address a player signed up from is theirs as much as one they logged in from.
        try await recordLoginSuccess(account: key, address: Self.loginAddress(peer), now: clock.nowMilliseconds)
        return try await startSession(for: account, created: true)
    }

    func login(_ login: PasswordLogin, peer: String?, context: ServiceContext) async throws -> SessionGrant {
        let account = Self.loginAccount(login.username)
        let address = Self.loginAddress(peer)
        let now = clock.nowMilliseconds
        if let refusal = try await loginRefusal(account: account, address: address, now: now) {
            let wait = refusal.retryAfterMilliseconds
            context.logger.warning(
                "login throttled", metadata: ["peer": "\(address)", "login.limit": "\(refusal.scope.rawValue)"])
            await tellOperators(
                "operator.login-throttled", "failed logins throttled",
                [
                    "peer": .string(address), "limit": .string(refusal.scope.rawValue),
                    "retryAfterMilliseconds": .integer(wait),
                ], context: context)
            throw ErrorReply(
                code: .rateLimited, message: "too many failed logins; try again in \((wait + 999) / 1000) s",
                retryAfterMilliseconds: wait)
        }
        let stored = try await store.account(usernameKey: account)
        let matches: Bool
        if let stored, let hash = stored.passwordHash {
            matches = try await hasher.verify(login.password, against: hash)
        } else {
            _ = try await hasher.verify(login.password, against: try await decoy())
            matches = false
        }
        guard matches, let stored else {
            try await recordLoginFailure(account: account, address: address, now: now)
            context.logger.info("login failed", metadata: ["peer": "\(address)"])
            throw ErrorReply(code: .invalidCredentials, message: "wrong username or password")
        }
        try await recordLoginSuccess(account: account, address: address, now: now)
        return try await startSession(for: stored, created: false)
    }

    // MARK: - Login limits, in memory or shared

    private var loginLimits: LoginGuard.Limits { configuration.loginLimits }

    /// Whether a password login must wait: the limits as this instance counts them, or as every
    /// instance does (the shared marks of this account and address).
    func loginRefusal(account: String, address: String, now: Int64) async throws -> LoginGuard.Refusal? {
        guard let throttles else {
            return loginGuard.withLock { $0.check(account: account, address: address, now: now) }
        }
        let marks = try await throttles.marks(
            [.loginPair, .loginAccount, .loginAddress, .loginKnown], account: account, address: address,
            since: now - max(loginLimits.windowMilliseconds, loginLimits.knownMilliseconds))
        var shared = LoginGuard(limits: loginLimits, marks: marks)
        return shared.check(account: account, address: address, now: now)
    }

    func recordLoginFailure(account: String, address: String, now: Int64) async throws {
        guard let throttles else {
            loginGuard.withLock { $0.recordFailure(account: account, address: address, now: now) }
            return
        }
        try await throttles.add(
            LoginGuard.failureMarks(account: account, address: address, now: now),
            forgetBefore: now - loginLimits.windowMilliseconds, forgetKnownBefore: now - loginLimits.knownMilliseconds)
    }

    /// The right password: the pair's failures are forgotten and the address becomes known.
    private func recordLoginSuccess(account: String, address: String, now: Int64) async throws {
        guard let throttles else {
            loginGuard.withLock { $0.recordSuccess(account: account, address: address, now: now) }
            return
        }
        try await throttles.remove([.loginPair], account: account, address: address)
        guard loginLimits.knownMilliseconds > 0 else { return }
        try await throttles.add(
            [ThrottleMark(.loginKnown, account: account, address: address, at: now)],
            forgetBefore: now - loginLimits.windowMilliseconds, forgetKnownBefore: now - loginLimits.knownMilliseconds)
    }

    /// The key failed logins are counted under: the username as stored (any text, for unknown
    /// and malformed names alike, so that neither stands out).
    /// An empty name and NULs (which the shared counts cannot store) count as U+FFFD.
    static func loginAccount(_ username: String) -> String {
        if let key = try? AccountRules.validUsername(username).key { return key }
        let text = username.lowercased().replacingOccurrences(of: "\u{0}", with: "\u{FFFD}")
        return text.isEmpty ? "\u{FFFD}" : text
    }

    /// The client's address without a port (the gateway sends the address alone; older peers
    /// sent `address:port`), or `unknown` when the transport has none.
    static func loginAddress(_ peer: String?) -> String {
        guard let peer, !peer.isEmpty else { return "unknown" }
        return PeerAddress.withoutPort(peer)
    }

    /// What `auth.admin.lockouts` answers: the limits reached now, for an account and/or address.
    func lockouts(_ query: LockoutQuery) async throws -> LockoutList {
        let now = clock.nowMilliseconds
        let account = query.username.map(Self.loginAccount)
        let found: [LoginGuard.LimitReached]
        if let throttles {
            let marks = try await throttles.marks(
                [.loginPair, .loginAccount, .loginAddress], account: account, address: query.address,
                since: now - loginLimits.windowMilliseconds)
            found = LoginGuard(limits: loginLimits, marks: marks).lockouts(
                account: account, address: query.address, now: now)
        } else {
            found = loginGuard.withLock { $0.lockouts(account: account, address: query.address, now: now) }
        }
        return LockoutList(
            lockouts: found.prefix(200).map {
                Lockout(
                    limit: $0.scope.rawValue, username: $0.account, address: $0.address, failures: $0.failures,
                    retryAfterMilliseconds: $0.retryAfterMilliseconds)
            })
    }

    /// `auth.admin.unlock`: forgets the failed logins counted against an account and/or address.
    func unlock(_ query: LockoutQuery, context: ServiceContext) async throws -> UnlockReceipt {
        guard query.username != nil || query.address != nil else {
            throw ErrorReply(
                code: .missingField, message: "give a username, an address or both", field: "payload.username")
        }
        let account = query.username.map(Self.loginAccount)
        let cleared: Int
        if let throttles {
            var removed = 0
            if let account {
                removed += try await throttles.remove([.loginAccount], account: account, address: nil)
                removed += try await throttles.remove([.loginPair], account: account, address: nil)
            }
            if let address = query.address {
                removed += try await throttles.remove([.loginAddress], account: nil, address: address)
                removed += try await throttles.remove([.loginPair], account: nil, address: address)
            }
            cleared = removed
        } else {
            cleared = loginGuard.withLock { $0.clear(account: account, address: query.address) }
        }
        context.logger.notice(
            "login lockout cleared",
            metadata: [
                "login.account": "\(account ?? "-")", "peer": "\(query.address ?? "-")", "cleared": "\(cleared)",
            ])
        return UnlockReceipt(username: query.username, address: query.address, cleared: cleared)
    }

    func deviceLogin(_ login: DeviceLogin, context: ServiceContext) async throws -> SessionGrant {
        try AccountRules.checkDeviceID(login.deviceId)
        let displayName = try AccountRules.validDisplayName(login.displayName ?? "Player")
        let (account, created) = try await store.deviceAccount(
            deviceId: login.deviceId, newPlayerId: Self.newID(), displayName: displayName, now: clock.nowMilliseconds)
        if created { context.logger.info("device player created", metadata: ["player.id": "\(account.playerId)"]) }
        return try await startSession(for: account, created: created)
    }

    func refresh(_ refresh: SessionRefresh, context: ServiceContext) async throws -> SessionGrant {
        let now = clock.nowMilliseconds
        let claims: TokenClaims
        do {
            claims = try await tokens.verify(refresh.refreshToken, as: .refresh, now: now)
        } catch {
            var located = error
            located.field = "payload.refreshToken"
            throw located
        }
        try await refuseIfBanned(claims.playerId, now: now)
        let newTokenID = Self.newID()
        let refreshExpires = SessionTokens.wholeSeconds(now + configuration.refreshLifetimeMilliseconds)
        switch try await store.rotateRefreshToken(
            sessionId: claims.sid, playerId: claims.playerId, presentedTokenId: claims.tokenId, newTokenId: newTokenID,
            refreshExpiresAt: refreshExpires, now: now)
        {
        case .rotated:
            guard let account = try await store.account(playerId: claims.playerId) else {
                throw ErrorReply(code: .unknownPlayer, message: "the account no longer exists")
            }
            return try await grant(
                account, sessionId: claims.sid, refreshTokenId: newTokenID, refreshExpiresAt: refreshExpires,
                created: false)
        case .reused:
            context.logger.warning("refresh token reused; session revoked", metadata: ["session.id": "\(claims.sid)"])
            await announce(playerId: claims.playerId, sessionIds: [claims.sid], context: context)
            throw ErrorReply(
                code: .sessionRevoked,
                message: "this refresh token was already used, so the session has been revoked; log in again",
                field: "payload.refreshToken")
        case .revoked:
            throw ErrorReply(
                code: .sessionRevoked, message: "the session has been logged out or revoked",
                field: "payload.refreshToken")
        }
    }

    func link(_ playerId: String, _ link: AccountLink) async throws -> PlayerProfile {
        let (username, key) = try AccountRules.validUsername(link.username)
        try AccountRules.checkPassword(link.password)
        if try await store.account(usernameKey: key) != nil { throw AccountErrors.usernameTaken }
        try await refuseQuarantined(key)
        let hash = try await hasher.hash(link.password)
        _ = try await store.linkCredentials(
            playerId: playerId, username: username, usernameKey: key, passwordHash: hash)
        return try await profile(playerId)
    }

    func revoke(playerId: String, sessionId: String?, context: ServiceContext) async throws -> RevocationReceipt {
        let revoked = try await store.revokeSessions(
            playerId: playerId, sessionId: sessionId, now: clock.nowMilliseconds)
        if !revoked.isEmpty {
            context.logger.info(
                "sessions revoked", metadata: ["player.id": "\(playerId)", "sessions": "\(revoked.count)"])
            await announce(playerId: playerId, sessionIds: revoked, context: context)
        }
        return RevocationReceipt(revokedSessions: revoked.count, sessionIds: revoked)
    }

    func profile(_ playerId: String) async throws -> PlayerProfile {
        guard let account = try await store.account(playerId: playerId) else { throw AccountErrors.unknownPlayer }
        return PlayerProfile(
            playerId: account.playerId, displayName: account.displayName, username: account.username,
            linkedDevices: try await store.linkedDeviceCount(playerId: playerId), createdAt: account.createdAt)
    }

    func rename(_ playerId: String, _ change: DisplayNameChange) async throws -> PlayerProfile {
        _ = try await store.setDisplayName(
            playerId: playerId, displayName: try AccountRules.validDisplayName(change.displayName))
        return try await profile(playerId)
    }

    func profiles(_ lookup: ProfileLookup) async throws -> ProfileList {
        guard lookup.playerIds.count <= 200 else {
            throw ErrorReply(
                code: .invalidField, message: "at most 200 player ids per lookup", field: "payload.playerIds")
        }
        return ProfileList(players: try await store.profiles(playerIds: Array(Set(lookup.playerIds))))
    }

    func check(_ check: SessionCheck) async throws -> SessionStatus {
        let ban = try await store.ban(playerId: check.playerId)
        if BanRules.holds(ban, now: clock.nowMilliseconds) {
            return SessionStatus(sessionId: check.sessionId, valid: false, ban: ban)
        }
        return SessionStatus(
            sessionId: check.sessionId,
            valid: try await store.isSessionActive(sessionId: check.sessionId, playerId: check.playerId))
    }

    // MARK: - Operators

    func ban(_ request: BanRequest, context: ServiceContext) async throws -> PlayerBan {
        let now = clock.nowMilliseconds
        let reason = try BanRules.validReason(request.reason)
        let until = try BanRules.validEnd(request.until, now: now)
        let revoked = try await store.ban(playerId: request.playerId, reason: reason, until: until, now: now)
        let ban = PlayerRecord.Ban(reason: reason, bannedAt: now, until: until)
        context.logger.notice(
            "player banned", metadata: ["player.id": "\(request.playerId)", "sessions": "\(revoked.count)"])
        await announce(playerId: request.playerId, sessionIds: revoked, ban: ban, context: context)
        return PlayerBan(
            playerId: request.playerId, reason: reason, bannedAt: now, until: until, revokedSessions: revoked.count,
            sessionIds: revoked)
    }

    func unban(_ target: PlayerTarget, context: ServiceContext) async throws -> UnbanReceipt {
        let unbanned = try await store.unban(playerId: target.playerId)
        if unbanned { context.logger.notice("player unbanned", metadata: ["player.id": "\(target.playerId)"]) }
        return UnbanReceipt(playerId: target.playerId, unbanned: unbanned)
    }

    /// Any player's session, by id (no error for an unknown one: nothing is revoked).
    func revokeSession(_ target: SessionTarget, context: ServiceContext) async throws -> RevocationReceipt {
        guard let owner = try await store.sessionOwner(sessionId: target.sessionId) else {
            return RevocationReceipt(revokedSessions: 0)
        }
        return try await revoke(playerId: owner, sessionId: target.sessionId, context: context)
    }

    func lookup(_ lookup: PlayerLookup) async throws -> PlayerRecord {
        let given = [lookup.playerId, lookup.username, lookup.deviceId].compactMap { $0 }
        guard given.count == 1 else {
            throw ErrorReply(
                code: .invalidField, message: "give exactly one of playerId, username and deviceId", field: "payload")
        }
        let notFound = ErrorReply(code: .unknownPlayer, message: "no player matches", field: "payload")
        let account: AccountRecord?
        if let playerId = lookup.playerId {
            account = try await store.account(playerId: playerId)
        } else if let username = lookup.username {
            let key = (try? AccountRules.validUsername(username).key) ?? username.lowercased()
            account = try await store.account(usernameKey: key)
        } else if let deviceId = lookup.deviceId, let owner = try await store.devicePlayer(deviceId: deviceId) {
            account = try await store.account(playerId: owner)
        } else {
            account = nil
        }
        guard let account else { throw notFound }
        let now = clock.nowMilliseconds
        let ban = try await store.ban(playerId: account.playerId)
        let friendIds = try await store.friendIDs(playerId: account.playerId).sorted()
        return PlayerRecord(
            playerId: account.playerId, displayName: account.displayName, username: account.username,
            createdAt: account.createdAt,
            devices: try await store.devices(playerId: account.playerId),
            sessions: try await store.activeSessions(playerId: account.playerId, now: now),
            friends: friendIds.count, friendIds: Array(friendIds.prefix(200)),
            ban: BanRules.holds(ban, now: now) ? ban : nil)
    }

    private func refuseIfBanned(_ playerId: String, now: Int64) async throws {
        let ban = try await store.ban(playerId: playerId)
        if let ban, BanRules.holds(ban, now: now) { throw BanRules.refusal(ban) }
    }

    // MARK: - Friends

    struct Friends: Sendable {
        let store: any AccountStore
        /// `request` names the request (its game and id) for the message a real change writes
        /// (``FriendNews``); the relay is woken once it commits.
        func request(from playerId: String, to other: String, now: Int64, request: RawEnvelope, context: ServiceContext)
            async throws -> FriendState
        {
            let cause = try await cause(playerId, request)
            let state = try await store.requestFriend(from: playerId, to: other, now: now, cause: cause)
            context.outboxChanged()
            return state
        }
        func accept(playerId: String, from other: String, now: Int64, request: RawEnvelope, context: ServiceContext)
            async throws -> FriendState
        {
            let cause = try await cause(playerId, request)
            let state = try await store.acceptFriend(playerId: playerId, from: other, now: now, cause: cause)
            context.outboxChanged()
            return state
        }
        /// Who acts (with their display name, for the news) in which game, for which request id.
        private func cause(_ playerId: String, _ request: RawEnvelope) async throws -> FriendNews.Cause {
            FriendNews.Cause(
                playerId: playerId, displayName: try await store.account(playerId: playerId)?.displayName,
                gameId: request.gameId,
                requestId: request.correlationId ?? request.id)
        }
        func decline(playerId: String, from other: String) async throws -> FriendState {
            try await store.declineFriend(playerId: playerId, from: other)
        }
        func remove(playerId: String, otherPlayerId: String) async throws -> FriendState {
            try await store.removeFriend(playerId: playerId, otherPlayerId: otherPlayerId)
        }
        func block(playerId: String, otherPlayerId: String, now: Int64) async throws -> FriendState {
            try await store.block(playerId: playerId, otherPlayerId: otherPlayerId, now: now)
        }
        func unblock(playerId: String, otherPlayerId: String) async throws -> FriendState {
            try await store.unblock(playerId: playerId, otherPlayerId: otherPlayerId)
        }
    }

    func friendList(_ playerId: String) async throws -> FriendList {
        try await store.friendList(playerId: playerId)
    }

    func friendship(_ query: FriendshipQuery) async throws -> Friendship {
        let state = try await store.friendState(playerId: query.playerId, otherPlayerId: query.otherPlayerId)
        return Friendship(
            friends: state == .friends, blocked: try await store.isBlocked(query.playerId, query.otherPlayerId))
    }

    func friendIDs(_ query: FriendsOfQuery) async throws -> FriendIDs {
        FriendIDs(playerId: query.playerId, friendIds: try await store.friendIDs(playerId: query.playerId))
    }

    // MARK: - Helpers

    private func startSession(for account: AccountRecord, created: Bool) async throws -> SessionGrant {
        let now = clock.nowMilliseconds
        try await refuseIfBanned(account.playerId, now: now)
        let sessionId = Self.newID()
        let refreshTokenId = Self.newID()
        let refreshExpires = SessionTokens.wholeSeconds(now + configuration.refreshLifetimeMilliseconds)
        try await store.createSession(
            sessionId: sessionId, playerId: account.playerId, refreshTokenId: refreshTokenId, now: now,
            refreshExpiresAt: refreshExpires)
        return try await grant(
            account, sessionId: sessionId, refreshTokenId: refreshTokenId, refreshExpiresAt: refreshExpires,
            created: created)
    }

    private func grant(
        _ account: AccountRecord, sessionId: String, refreshTokenId: String, refreshExpiresAt: Int64, created: Bool
    ) async throws -> SessionGrant {
        let now = clock.nowMilliseconds
        let sessionExpires = SessionTokens.wholeSeconds(now + configuration.sessionLifetimeMilliseconds)
        let sessionToken = try await tokens.issue(
            .session, playerId: account.playerId, sessionId: sessionId, tokenId: Self.newID(), issuedAt: now,
            expiresAt: sessionExpires)
        let refreshToken = try await tokens.issue(
            .refresh, playerId: account.playerId, sessionId: sessionId, tokenId: refreshTokenId, issuedAt: now,
            expiresAt: refreshExpiresAt)
        return SessionGrant(
            playerId: account.playerId, displayName: account.displayName, username: account.username,
            sessionId: sessionId,
            sessionToken: sessionToken, sessionExpiresAt: sessionExpires, refreshToken: refreshToken,
            refreshExpiresAt: refreshExpiresAt, created: created)
    }

    private func announce(playerId: String, sessionIds: [String], ban: PlayerRecord.Ban? = nil, context: ServiceContext)
        async
    {
        do {
            try await context.publisher.publish(
                type: .sessionsRevoked, topic: AuthService.revocationTopic,
                payload: SessionsRevoked(playerId: playerId, sessionIds: sessionIds, ban: ban), playerId: playerId)
        } catch {
            context.logger.error("revocation not announced", metadata: ["error": "\(error)"])
        }
    }

    /// Announces the sessions a deletion ended (the gateways forget their tokens and close their
    /// WebSockets with 4005).
    func announceDeletion(playerId: String, sessionIds: [String], context: ServiceContext) async {
        do {
            try await context.publisher.publish(
                type: .sessionsRevoked, topic: AuthService.revocationTopic,
                payload: SessionsRevoked(playerId: playerId, sessionIds: sessionIds, deleted: true), playerId: playerId)
        } catch {
            context.logger.error("revocation not announced", metadata: ["error": "\(error)"])
        }
    }

    private func tellOperators(
        _ kind: String, _ message: String, _ details: [String: JSONValue], context: ServiceContext
    ) async {
        _ = try? await context.publisher.publish(
            type: .notification, topic: Topic(rawValue: "ops/auth"),
            payload: PlayerNotification(kind: kind, message: message, details: details))
    }

    private func decoy() async throws -> String {
        if let hash = decoyHash.value { return hash }
        let hash = try await hasher.hash(UUID().uuidString)
        decoyHash.withLock { $0 = hash }
        return hash
    }

    static func newID() -> String { UUID().uuidString.lowercased() }
}
