import Foundation
import PodiumRuntime
import Testing

@testable import Gateway

/// The WebSocket listeners: who gets a topic's notifications, and which sockets end when their
/// session expires or is revoked. Pure state, no sockets.
@Suite("WebSocket subscribers")
struct SocketSubscribersTests {
    /// A listener that records what it was sent and how it was ended.
    final class Recorder: Sendable {
        let delivered = Locked<[Data]>([])
        let ended = Locked<[SocketEnd]>([])

        func listener(_ id: UUID, session: (id: String, expiresAt: Int64)?) -> SocketSubscribers.Listener {
            .init(
                id: id, session: session, deliver: { data in self.delivered.withLock { $0.append(data) } },
                end: { reason in self.ended.withLock { $0.append(reason) } })
        }
    }

    @Test("a socket listening to two games is one listener per topic and removed from both at once")
    func twoTopicsOneSocket() {
        var subscribers = SocketSubscribers()
        let recorder = Recorder()
        let id = UUID()
        subscribers.add(recorder.listener(id, session: ("s1", 1000)), topic: "t/a")
        subscribers.add(recorder.listener(id, session: ("s1", 1000)), topic: "t/b")
        subscribers.add(recorder.listener(UUID(), session: ("s2", 1000)), topic: "t/a")
        #expect(subscribers.count == 3)
        #expect(subscribers.listeners("t/a").count == 2)
        subscribers.remove(id)
        #expect(subscribers.count == 1)
        #expect(subscribers.listeners("t/b").isEmpty)
    }

    @Test("revoking a session removes its sockets from every topic and only them")
    func revocation() {
        var subscribers = SocketSubscribers()
        let recorder = Recorder()
        let revoked = UUID()
        let kept = UUID()
        let admin = UUID()
        subscribers.add(recorder.listener(revoked, session: ("s1", 10_000)), topic: "t/a")
        subscribers.add(recorder.listener(revoked, session: ("s1", 10_000)), topic: "t/b")
        subscribers.add(recorder.listener(kept, session: ("s2", 10_000)), topic: "t/a")
        subscribers.add(recorder.listener(admin, session: nil), topic: "ops")
        let gone = subscribers.remove(sessionIds: ["s1", "unknown"])
        #expect(gone.map(\.id) == [revoked])
        #expect(subscribers.listeners("t/a").map(\.id) == [kept])
        #expect(subscribers.listeners("t/b").isEmpty)
        #expect(subscribers.listeners("ops").map(\.id) == [admin])
        #expect(subscribers.remove(sessionIds: ["s1"]).isEmpty)
    }

    @Test("sockets whose token expired are removed at their expiry, the admin key's never")
    func expiry() {
        var subscribers = SocketSubscribers()
        let recorder = Recorder()
        let early = UUID()
        let late = UUID()
        let admin = UUID()
        subscribers.add(recorder.listener(early, session: ("s1", 1_000)), topic: "t/a")
        subscribers.add(recorder.listener(late, session: ("s2", 5_000)), topic: "t/a")
        subscribers.add(recorder.listener(admin, session: nil), topic: "ops")
        #expect(subscribers.removeExpired(now: 999).isEmpty)
        #expect(subscribers.removeExpired(now: 1_000).map(\.id) == [early])
        #expect(subscribers.listeners("t/a").map(\.id) == [late])
        #expect(subscribers.removeExpired(now: 4_999).isEmpty)
        #expect(subscribers.removeExpired(now: 1 << 50).map(\.id) == [late])
        #expect(subscribers.listeners("ops").map(\.id) == [admin])
    }

    @Test("the close codes are Podium's own, from the application range")
    func closeCodes() {
        #expect(SocketEnd.sessionExpired.code == 4001)
        #expect(SocketEnd.sessionRevoked.code == 4003)
        #expect(SocketEnd.playerBanned.code == 4004)
        #expect(SocketEnd.sessionExpired.reason != SocketEnd.sessionRevoked.reason)
    }
}
