import Testing

@testable import Gateway

/// The console's sessions: pure state, no server.
@Suite("Console sessions")
struct ConsoleSessionsTests {
    @Test("a session lives while it is used, ends after 30 idle minutes or 12 hours, and can be revoked")
    func lifetime() {
        var sessions = ConsoleSessions()
        let session = sessions.create(now: 0, peer: "127.0.0.1:1")
        #expect(session.id.count == 64 && session.csrf.count == 64 && session.id != session.csrf)
        let alive = sessions.touch(session.id, now: ConsoleSessions.idleLimit - 1)
        #expect(alive != nil)
        // Kept alive by use, but not past its lifetime.
        var now = ConsoleSessions.idleLimit - 1
        while now + ConsoleSessions.idleLimit / 2 < ConsoleSessions.lifetime {
            now += ConsoleSessions.idleLimit / 2
            let used = sessions.touch(session.id, now: now)
            #expect(used != nil)
        }
        let tooOld = sessions.touch(session.id, now: ConsoleSessions.lifetime)
        let gone = sessions.touch(session.id, now: 0)
        #expect(tooOld == nil)
        #expect(gone == nil, "an expired session is gone for good")

        let idle = sessions.create(now: 1000, peer: nil)
        let idled = sessions.touch(idle.id, now: 1000 + ConsoleSessions.idleLimit)
        #expect(idled == nil)

        let kept = sessions.create(now: 5000, peer: nil)
        let revoked = sessions.create(now: 6000, peer: nil)
        #expect(sessions.active(now: 7000).map(\.id) == [revoked.id, kept.id])
        let first = sessions.revoke(revoked.label)
        let second = sessions.revoke(revoked.id)
        #expect(first && !second)
        let afterRevoke = sessions.touch(revoked.id, now: 7000)
        let stillKept = sessions.touch(kept.id, now: 7000)
        let nonsense = sessions.touch("nonsense", now: 7000)
        #expect(afterRevoke == nil && stillKept != nil && nonsense == nil)
    }

    @Test("the CSRF token must be the session's own, whole")
    func csrf() {
        var sessions = ConsoleSessions()
        let session = sessions.create(now: 0, peer: nil)
        let other = sessions.create(now: 0, peer: nil)
        #expect(ConsoleSessions.csrfMatches(session.csrf, session))
        #expect(!ConsoleSessions.csrfMatches(other.csrf, session))
        #expect(!ConsoleSessions.csrfMatches(nil, session))
        #expect(!ConsoleSessions.csrfMatches("", session))
        #expect(!ConsoleSessions.csrfMatches(String(session.csrf.dropLast()), session))
    }

    @Test("a notice is left for its own session only, shown once, and goes with the session")
    func notices() {
        var sessions = ConsoleSessions()
        let session = sessions.create(now: 0, peer: nil)
        let other = sessions.create(now: 0, peer: nil)
        sessions.leave(notice: "score removed", for: session.id)
        sessions.leave(notice: "nobody's", for: "no-such-session")
        #expect(sessions.takeNotice(for: other.id) == nil, "another session sees nothing")
        #expect(sessions.takeNotice(for: "no-such-session") == nil)
        #expect(sessions.takeNotice(for: session.id) == "score removed")
        #expect(sessions.takeNotice(for: session.id) == nil, "shown once")
        sessions.leave(notice: String(repeating: "x", count: 2000), for: other.id)
        _ = sessions.revoke(other.label)
        #expect(sessions.takeNotice(for: other.id) == nil, "a revoked session's notice goes with it")
    }
}
