import PodiumMessages

/// Session tokens the gateway has verified, so that verification is not paid on every event,
/// and the sessions it knows were revoked.
///
/// Pure state. A token stays cached until it expires, its session is revoked (the auth service
/// announces it on `auth/revoked`), or the cache is flushed because revocations may have been
/// missed (a gap on the bus).
struct SessionCache: Sendable {
    struct Entry: Sendable, Equatable {
        let playerId: String
        let sessionId: String
        let expiresAt: Int64
    }

    /// Most tokens kept; past it, expired ones go first, then everything.
    var capacity = 100_000
    private var tokens: [String: Entry] = [:]
    private var tokensBySession: [String: Set<String>] = [:]
    /// Why a session was revoked, and until when to remember it (the longest a token lives).
    struct Revocation: Sendable, Equatable {
        let until: Int64
        /// Set when the session ended because its player was banned.
        var ban: PlayerRecord.Ban?
        var playerId: String?
    }

    private var revoked: [String: Revocation] = [:]

    var count: Int { tokens.count }

    func lookup(_ token: String, now: Int64) -> Entry? {
        guard let entry = tokens[token], entry.expiresAt > now, revoked[entry.sessionId] == nil else { return nil }
        return entry
    }

    func isRevoked(_ sessionId: String) -> Bool { revoked[sessionId] != nil }

    /// The session's revocation, if it was revoked.
    func revocation(_ sessionId: String) -> Revocation? { revoked[sessionId] }

    /// Caches a verified token unless its session was revoked meanwhile.
    mutating func store(_ token: String, _ entry: Entry, now: Int64) {
        guard revoked[entry.sessionId] == nil else { return }
        if tokens.count >= capacity { evictExpired(now: now) }
        if tokens.count >= capacity { flush() }
        tokens[token] = entry
        tokensBySession[entry.sessionId, default: []].insert(token)
    }

    /// Forgets a session's tokens and remembers it as revoked until `until`.
    mutating func revoke(sessionIds: [String], until: Int64, ban: PlayerRecord.Ban? = nil, playerId: String? = nil) {
        for sessionId in sessionIds {
            revoked[sessionId] = Revocation(until: until, ban: ban, playerId: ban == nil ? nil : playerId)
            for token in tokensBySession.removeValue(forKey: sessionId) ?? [] { tokens.removeValue(forKey: token) }
        }
    }

    /// After an unban: the player's revoked sessions stay revoked, no longer for the ban.
    mutating func liftBan(playerId: String) {
        for (sessionId, revocation) in revoked where revocation.playerId == playerId {
            revoked[sessionId] = Revocation(until: revocation.until, ban: nil, playerId: nil)
        }
    }

    /// Forgets every cached token (revocations may have been missed), keeping the revoked set.
    mutating func flush() {
        tokens.removeAll()
        tokensBySession.removeAll()
    }

    mutating func evictExpired(now: Int64) {
        for (token, entry) in tokens where entry.expiresAt <= now {
            tokens.removeValue(forKey: token)
            tokensBySession[entry.sessionId]?.remove(token)
            if tokensBySession[entry.sessionId]?.isEmpty == true {
                tokensBySession.removeValue(forKey: entry.sessionId)
            }
        }
        revoked = revoked.filter { $0.value.until > now }
    }
}
