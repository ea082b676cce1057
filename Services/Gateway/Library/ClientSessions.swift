import Foundation
import Logging
import PodiumMessages
import PodiumRuntime

/// Who a request acts for, with the session cache (``SessionCache``) in front of the auth
/// service: a session token is verified, then checked once with the auth service, then served
/// from the cache until it expires or its session is revoked. Revocations reach it two ways:
/// from replies to the requests that revoke (applied before the client hears the reply) and from
/// the auth service's `auth/…` announcements on the bus; either also ends the sessions' WebSockets.
final class ClientSessions: Sendable {
    private let cache = Locked(SessionCache())
    let authorizer: Authorizer
    /// Where a token not yet cached is checked (`auth.session.check`).
    private let router: ServiceRouter
    private let sockets: WebSocketHub
    /// The longest a session check may take.
    private let checkTimeout: Duration
    private let clock: any PodiumClock
    private let logger: Logger

    init(
        authorizer: Authorizer, router: ServiceRouter, sockets: WebSocketHub, checkTimeout: Duration,
        clock: any PodiumClock,
        logger: Logger
    ) {
        self.authorizer = authorizer
        self.router = router
        self.sockets = sockets
        self.checkTimeout = checkTimeout
        self.clock = clock
        self.logger = logger
    }

    /// How long a revoked session is remembered: longer than any session token lives.
    static let revocationMemoryMilliseconds: Int64 = 25 * 3_600_000

    static let sessionRevoked = ErrorReply(
        code: .sessionRevoked, message: "this session was logged out or revoked; log in again", field: "token")

    /// Tokens cached now.
    var count: Int { cache.withLock { $0.count } }

    /// Forgets expired tokens and revocations older than any token.
    func evictExpired() {
        let now = clock.nowMilliseconds
        cache.withLock { $0.evictExpired(now: now) }
    }

    /// Who the request acts for; throws the refusal of a bad, revoked or banned credential.
    func authenticate(_ request: ClientRequest, peer: String?) async throws -> Actor {
        let now = clock.nowMilliseconds
        if let token = request.token, let cached = cache.withLock({ $0.lookup(token, now: now) }) {
            return Actor(kind: .player, playerId: cached.playerId, sessionId: cached.sessionId, peer: peer)
        }
        let (actor, claims) = try await authorizer.identify(request, peer: peer, now: now)
        guard let claims, let token = request.token else { return actor }
        if let revocation = cache.withLock({ $0.revocation(claims.sid) }) {
            if let ban = revocation.ban, ban.holds(at: now) { throw ban.refusal }
            throw Self.sessionRevoked
        }
        let answer = await router.ask(
            AuthRequests.sessionCheck.type,
            payload: try WireCodec.jsonValue(SessionCheck(sessionId: claims.sid, playerId: claims.playerId)),
            timeout: checkTimeout)
        if answer.type == .error {
            throw (try? answer.decodePayload(as: ErrorReply.self))
                ?? ErrorReply(code: .serviceUnavailable, message: "the auth service could not check the session")
        }
        guard let status = try? answer.decodePayload(as: SessionStatus.self) else {
            throw ErrorReply(code: .internalError, message: "the auth service sent an unreadable answer")
        }
        guard status.valid else {
            if let ban = status.ban, ban.holds(at: now) { throw ban.refusal }
            throw Self.sessionRevoked
        }
        cache.withLock {
            $0.store(
                token,
                SessionCache.Entry(
                    playerId: claims.playerId, sessionId: claims.sid, expiresAt: claims.expiresAtMilliseconds),
                now: now)
        }
        return actor
    }

    /// Whether a reply to the request type changes what the gateway knows of sessions (so it is
    /// decoded and applied before the client hears it).
    static func changesSessions(_ type: MessageType?) -> Bool {
        switch type {
        case AuthRequests.logout.type?, AuthRequests.revoke.type?, AuthRequests.revokeSession.type?,
            AuthRequests.ban.type?, AuthRequests.deleteAccount.type?, AuthRequests.adminDeleteAccount.type?,
            AuthRequests.unban.type?, AuthRequests.refresh.type?:
            true
        default:
            false
        }
    }

    /// The connection, with the session changes of its request's reply applied before the reply
    /// goes out (its replies are always decoded: no `deliverEncoded`). `connection` as it is for
    /// types that change nothing.
    func applyingChanges(of request: ClientRequest, to connection: ClientConnection) -> ClientConnection {
        guard Self.changesSessions(request.type) else { return connection }
        let type = request.type
        let refreshToken = type == AuthRequests.refresh.type ? request.payload?["refreshToken"]?.stringValue : nil
        return ClientConnection(key: connection.key, peer: connection.peer) { [self] reply in
            await applyChanges(of: type, refreshToken: refreshToken, answer: reply)
            await connection.deliver(reply)
        }
    }

    /// Forgets revoked sessions before the client hears that they are revoked, so that no token
    /// of theirs is accepted after the reply (the bus announcement may arrive a moment later).
    private func applyChanges(of type: MessageType, refreshToken: String?, answer: RawEnvelope) async {
        let until = clock.nowMilliseconds + Self.revocationMemoryMilliseconds
        switch type {
        case AuthRequests.logout.type, AuthRequests.revoke.type, AuthRequests.revokeSession.type:
            guard answer.type == .reply, let receipt = try? answer.decodePayload(as: RevocationReceipt.self) else {
                return
            }
            cache.withLock { $0.revoke(sessionIds: receipt.sessionIds, until: until) }
            sockets.end(sessionIds: receipt.sessionIds, .sessionRevoked)
        case AuthRequests.ban.type:
            guard answer.type == .reply, let ban = try? answer.decodePayload(as: PlayerBan.self) else { return }
            let record = PlayerRecord.Ban(reason: ban.reason, bannedAt: ban.bannedAt, until: ban.until)
            cache.withLock { $0.revoke(sessionIds: ban.sessionIds, until: until, ban: record, playerId: ban.playerId) }
            sockets.end(sessionIds: ban.sessionIds, .playerBanned)
        case AuthRequests.deleteAccount.type, AuthRequests.adminDeleteAccount.type:
            guard answer.type == .reply, let receipt = try? answer.decodePayload(as: AccountDeletionReceipt.self) else {
                return
            }
            cache.withLock { $0.revoke(sessionIds: receipt.sessionIds, until: until) }
            sockets.end(sessionIds: receipt.sessionIds, .accountDeleted)
        case AuthRequests.unban.type:
            guard answer.type == .reply, let receipt = try? answer.decodePayload(as: UnbanReceipt.self),
                receipt.unbanned
            else { return }
            cache.withLock { $0.liftBan(playerId: receipt.playerId) }
        case AuthRequests.refresh.type:
            guard answer.type == .error, let refreshToken,
                (try? answer.decodePayload(as: ErrorReply.self))?.code == .sessionRevoked,
                let claims = try? await authorizer.tokens.verify(refreshToken, as: .refresh, now: clock.nowMilliseconds)
            else { return }
            cache.withLock { $0.revoke(sessionIds: [claims.sid], until: until) }
            sockets.end(sessionIds: [claims.sid], .sessionRevoked)
        default:
            return
        }
    }

    /// Follows the auth service's `auth/…` family: a gap in its sequence (a revocation may be
    /// lost) flushes the token cache; a revocation (`isRevocation`) drops its sessions' tokens.
    func follow(authMessage body: Data, isRevocation: Bool, tracker: inout SequenceTracker) {
        guard let header = try? WireCodec.decode(RawEnvelope.self, from: body) else {
            logger.warning("auth message dropped: undecodable")
            return
        }
        if let publisher = header.publisher, let sequence = header.sequence,
            case .gap = tracker.observe(publisher: publisher, sequence: sequence)
        {
            logger.warning("revocations may have been missed; forgetting every cached session token")
            cache.withLock { $0.flush() }
        }
        guard isRevocation, let payload = try? header.decodePayload(as: SessionsRevoked.self) else { return }
        let until = clock.nowMilliseconds + Self.revocationMemoryMilliseconds
        cache.withLock {
            $0.revoke(sessionIds: payload.sessionIds, until: until, ban: payload.ban, playerId: payload.playerId)
        }
        sockets.end(
            sessionIds: payload.sessionIds,
            payload.deleted == true ? .accountDeleted : payload.ban == nil ? .sessionRevoked : .playerBanned)
        logger.info(
            "sessions revoked",
            metadata: ["player.id": "\(payload.playerId)", "sessions": "\(payload.sessionIds.count)"])
    }
}
