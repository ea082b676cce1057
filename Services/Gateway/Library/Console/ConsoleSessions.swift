import Foundation

/// The web console's sessions (`/console`): made when an operator logs in (with an operator
/// account's name, password and code, or with the admin key),
/// held in an HttpOnly cookie, each with its own CSRF token for the forms. A session ends when
/// it is logged out or revoked, after 30 minutes without a request, or 12 hours after login.
///
/// Pure state, tested without a server; the gateway keeps it in memory (a restart logs every
/// operator out).
struct ConsoleSessions: Sendable {
    struct Session: Sendable, Equatable {
        let id: String
        let csrf: String
        let createdAt: Int64
        var lastSeen: Int64
        let peer: String?
        /// The operator account logged in (nil: the shared admin key).
        var operatorAccount: ConsoleOperator? = nil
        /// The first 8 hex digits of the session id's SHA-256 would do as a name; the id's own
        /// first 8 characters are shown instead (the id is 64 random hex digits).
        var label: String { String(id.prefix(8)) }
    }

    static let idleLimit: Int64 = 30 * 60_000
    static let lifetime: Int64 = 12 * 3_600_000

    private var sessions: [String: Session] = [:]
    /// Session id → the notice its next page shows (what the last action did). Kept here, never
    /// in the URL, so that nobody can make a genuine-looking notice with a link.
    private var notices: [String: String] = [:]

    /// A new session with a random id and CSRF token.
    mutating func create(now: Int64, peer: String?, operator account: ConsoleOperator? = nil) -> Session {
        let session = Session(
            id: Self.randomToken(), csrf: Self.randomToken(), createdAt: now, lastSeen: now, peer: peer,
            operatorAccount: account)
        sessions[session.id] = session
        return session
    }

    /// The session with this id if it is still alive, marked as seen now.
    mutating func touch(_ id: String, now: Int64) -> Session? {
        guard var session = sessions[id] else { return nil }
        guard now - session.lastSeen < Self.idleLimit, now - session.createdAt < Self.lifetime else {
            sessions.removeValue(forKey: id)
            return nil
        }
        session.lastSeen = now
        sessions[id] = session
        return session
    }

    /// Ends a session by its id or its label; true when one ended.
    mutating func revoke(_ idOrLabel: String) -> Bool {
        if sessions.removeValue(forKey: idOrLabel) != nil {
            notices.removeValue(forKey: idOrLabel)
            return true
        }
        guard let match = sessions.values.first(where: { $0.label == idOrLabel }) else { return false }
        sessions.removeValue(forKey: match.id)
        notices.removeValue(forKey: match.id)
        return true
    }

    /// Leaves `notice` for the session's next page (replacing one not shown yet).
    mutating func leave(notice: String, for id: String) {
        guard sessions[id] != nil else { return }
        notices[id] = String(notice.prefix(500))
    }

    /// The notice left for the session, once: a reload does not show it again.
    mutating func takeNotice(for id: String) -> String? {
        notices.removeValue(forKey: id)
    }

    /// The live sessions, newest first.
    func active(now: Int64) -> [Session] {
        sessions.values
            .filter { now - $0.lastSeen < Self.idleLimit && now - $0.createdAt < Self.lifetime }
            .sorted { $0.createdAt > $1.createdAt }
    }

    /// Whether a presented CSRF token is the session's (compared in constant time).
    static func csrfMatches(_ presented: String?, _ session: Session) -> Bool {
        guard let presented else { return false }
        let a = Array(presented.utf8)
        let b = Array(session.csrf.utf8)
        guard a.count == b.count else { return false }
        return zip(a, b).reduce(UInt8(0)) { $0 | ($1.0 ^ $1.1) } == 0
    }

    /// 32 random bytes as 64 hex digits.
    static func randomToken() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &generator)) }.joined()
    }
}
