import Foundation
import PodiumRuntime
import PodiumTokens
import Synchronization

/// The gateway's open WebSockets as the rest of it sees them: how many are open, which listen to
/// which private notification topics (``SocketSubscribers``), and ending those whose session
/// expired or was revoked. The HTTP front's sockets register here; the notification relay
/// delivers through it; session changes end sockets through it.
final class WebSocketHub: Sendable {
    private let subscribers = Locked(SocketSubscribers())
    private let open = Atomic<Int>(0)
    /// Reads a hello's session token, for how long its socket may listen.
    private let tokens: SessionTokens
    private let clock: any PodiumClock

    init(tokens: SessionTokens, clock: any PodiumClock) {
        self.tokens = tokens
        self.clock = clock
    }

    /// Open WebSockets.
    var openCount: Int { open.load(ordering: .relaxed) }

    /// A socket opened; ``closed(_:)`` when it closes.
    func opened() { open.add(1, ordering: .relaxed) }

    /// A socket closed: its subscriptions go.
    func closed(_ id: UUID) {
        open.subtract(1, ordering: .relaxed)
        subscribers.withLock { $0.remove(id) }
    }

    /// Makes the socket `id` listen to `topics` (replacing what it listened to) for as long as
    /// the hello's session token lasts (`token`; nil for the admin key, which does not expire).
    func listen(
        _ id: UUID, topics: [String], token: String?, deliver: @escaping @Sendable (Data) -> Void,
        end: @escaping @Sendable (SocketEnd) -> Void
    ) async {
        var session: (id: String, expiresAt: Int64)?
        if let token, let claims = try? await tokens.verify(token, as: .session, now: clock.nowMilliseconds) {
            session = (claims.sid, claims.expiresAtMilliseconds)
        }
        subscribers.withLock { subscribers in
            subscribers.remove(id)
            for topic in topics {
                subscribers.add(.init(id: id, session: session, deliver: deliver, end: end), topic: topic)
            }
        }
    }

    /// Hands a notification to the sockets listening to its topic.
    func deliver(_ body: Data, topic: String) {
        for listener in subscribers.withLock({ $0.listeners(topic) }) {
            listener.deliver(body)
        }
    }

    /// Closes the sockets that listen for these sessions (their subscriptions go first, so
    /// nothing more is pushed to them).
    func end(sessionIds: [String], _ reason: SocketEnd) {
        for listener in subscribers.withLock({ $0.remove(sessionIds: sessionIds) }) {
            listener.end(reason)
        }
    }

    /// Closes the sockets whose hello's session token has expired.
    func endExpired() {
        for listener in subscribers.withLock({ $0.removeExpired(now: clock.nowMilliseconds) }) {
            listener.end(.sessionExpired)
        }
    }
}
