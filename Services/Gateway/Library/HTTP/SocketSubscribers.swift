import Foundation

/// The WebSocket connections that listen to each private notification topic: the same topics
/// the notification endpoint uses (``NotificationTopics``), so the gateway forwards one
/// notification to both kinds of subscriber from one place.
///
/// A socket listens for as long as the session its hello named: when that session's token
/// expires or the session is revoked, the gateway takes the socket's subscriptions away and closes
/// it (``SocketEnd``). Pure state; a listener's `deliver` and `end` must not block (they queue for
/// the socket's writer).
struct SocketSubscribers: Sendable {
    struct Listener: Sendable {
        let id: UUID
        /// The session the hello's token belongs to, and when the token expires (Unix
        /// milliseconds); nil for the admin key, which does not expire.
        var session: (id: String, expiresAt: Int64)?
        let deliver: @Sendable (Data) -> Void
        let end: @Sendable (SocketEnd) -> Void
    }

    private var byTopic: [String: [UUID: Listener]] = [:]
    private var sockets: [UUID: Listener] = [:]

    /// How many (topic, socket) subscriptions there are.
    var count: Int { byTopic.values.reduce(0) { $0 + $1.count } }

    mutating func add(_ listener: Listener, topic: String) {
        byTopic[topic, default: [:]][listener.id] = listener
        sockets[listener.id] = listener
    }

    /// Removes every subscription of one socket.
    mutating func remove(_ id: UUID) {
        guard sockets.removeValue(forKey: id) != nil else { return }
        for topic in Array(byTopic.keys) {
            byTopic[topic]?.removeValue(forKey: id)
            if byTopic[topic]?.isEmpty == true { byTopic.removeValue(forKey: topic) }
        }
    }

    func listeners(_ topic: String) -> [Listener] {
        byTopic[topic].map { Array($0.values) } ?? []
    }

    /// Removes and returns the sockets of these sessions.
    mutating func remove(sessionIds: some Collection<String>) -> [Listener] {
        let ids = Set(sessionIds)
        return removeAll { listener in listener.session.map { ids.contains($0.id) } ?? false }
    }

    /// Removes and returns the sockets whose session token has expired at `now`.
    mutating func removeExpired(now: Int64) -> [Listener] {
        removeAll { listener in listener.session.map { $0.expiresAt <= now } ?? false }
    }

    private mutating func removeAll(where matches: (Listener) -> Bool) -> [Listener] {
        let gone = sockets.values.filter(matches)
        for listener in gone { remove(listener.id) }
        return gone
    }
}

/// Why the gateway ends a WebSocket: the close code (from the range RFC 6455 leaves to
/// applications) and reason it is closed with. docs/PROTOCOL.md section 21 lists them.
enum SocketEnd: Sendable, Equatable {
    /// The hello's session token expired: refresh the session and connect again.
    case sessionExpired
    /// The hello's session was logged out or revoked: log in again.
    case sessionRevoked
    /// The hello's player was banned: every session of theirs is revoked.
    case playerBanned
    /// The player deleted their account (or an operator did): nothing of theirs is kept.
    case accountDeleted

    var code: UInt16 {
        switch self {
        case .sessionExpired: 4001
        case .sessionRevoked: 4003
        case .playerBanned: 4004
        case .accountDeleted: 4005
        }
    }

    var reason: String {
        switch self {
        case .sessionExpired: "session expired: refresh it and say hello again"
        case .sessionRevoked: "session revoked: log in again"
        case .playerBanned: "player banned: the account is suspended"
        case .accountDeleted: "account deleted"
        }
    }
}
