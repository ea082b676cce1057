import PodiumMessages
import Testing

@Suite("Topics")
struct TopicTests {
    @Test("topics follow the family/game/subject scheme")
    func scheme() {
        #expect(Topic.gameEvent(gameId: "dash", name: "cactus.hit").rawValue == "event/dash/cactus.hit")
        #expect(Topic.notification(gameId: "dash", playerId: "p-1").rawValue == "notify/dash/p-1")
        #expect(Topic.gameEvent(gameId: "g1", name: "x").rawValue.hasPrefix(Topic.allGameEvents))
    }

    @Test("a notification topic splits into its game and player")
    func notificationTarget() {
        let target = Topic.notification(gameId: "dash", playerId: "p.1").notificationTarget
        #expect(target?.gameId == "dash")
        #expect(target?.playerId == "p.1")
        #expect(Topic(rawValue: "notify/dash").notificationTarget == nil)
        #expect(Topic(rawValue: "notify//p").notificationTarget == nil)
        #expect(Topic(rawValue: "event/dash/p").notificationTarget == nil)
    }

    @Test("message types know their service")
    func serviceName() {
        #expect(MessageType.health(of: "leaderboard").serviceName == "leaderboard")
        #expect(MessageType.eventPublish.serviceName == "event")
        #expect(MessageType("nodots").serviceName == "nodots")
    }
}

@Suite("Sequence tracking")
struct SequenceTrackerTests {
    @Test("in-order, gap, duplicate and restart are told apart per publisher")
    func classification() {
        var tracker = SequenceTracker()
        #expect(tracker.observe(publisher: "a", sequence: 5) == .first)
        #expect(tracker.observe(publisher: "a", sequence: 6) == .inOrder)
        #expect(tracker.observe(publisher: "a", sequence: 9) == .gap(missing: 7...8))
        #expect(tracker.observe(publisher: "a", sequence: 8) == .duplicate)
        #expect(tracker.observe(publisher: "a", sequence: 9) == .duplicate)
        #expect(tracker.observe(publisher: "b", sequence: 1) == .first)
        #expect(tracker.observe(publisher: "b", sequence: 2) == .inOrder)
        #expect(tracker.observe(publisher: "a", sequence: 1) == .restarted)
        #expect(tracker.observe(publisher: "a", sequence: 2) == .inOrder)
        #expect(tracker.lastSequence(of: "a") == 2)
        #expect(tracker.lastSequence(of: "c") == nil)
    }

    @Test(
        "every message twice, as a subscriber of two hubs gets it: the second copy is a duplicate, message 1 included")
    func twoHubs() {
        var tracker = SequenceTracker()
        #expect(tracker.observe(publisher: "p", sequence: 1) == .first)
        #expect(tracker.observe(publisher: "p", sequence: 1) == .duplicate)
        #expect(tracker.observe(publisher: "p", sequence: 2) == .inOrder)
        #expect(tracker.observe(publisher: "p", sequence: 2) == .duplicate)
        // A restart of the publisher is still a restart, and its copy a duplicate.
        #expect(tracker.observe(publisher: "p", sequence: 1) == .restarted)
        #expect(tracker.observe(publisher: "p", sequence: 1) == .duplicate)
    }

    @Test("a single missing message is a one-element gap")
    func singleGap() {
        var tracker = SequenceTracker()
        _ = tracker.observe(publisher: "p", sequence: 1)
        #expect(tracker.observe(publisher: "p", sequence: 3) == .gap(missing: 2...2))
    }
}

@Suite("Identifiers")
struct IdentifierTests {
    @Test("ids accept letters, digits, dot, underscore and dash up to 64 bytes")
    func ids() {
        #expect(Identifiers.isValidID("Player_1.a-b"))
        #expect(!Identifiers.isValidID(""))
        #expect(!Identifiers.isValidID("a b"))
        #expect(!Identifiers.isValidID("a/b"))
        #expect(!Identifiers.isValidID("é"))
        #expect(Identifiers.isValidID(String(repeating: "a", count: 64)))
        #expect(!Identifiers.isValidID(String(repeating: "a", count: 65)))
    }

    @Test("request ids are printable ASCII without spaces, up to 128 bytes")
    func requestIDs() {
        #expect(Identifiers.isValidRequestID("r-1:{x}"))
        #expect(!Identifiers.isValidRequestID("a b"))
        #expect(!Identifiers.isValidRequestID("tab\t"))
        #expect(!Identifiers.isValidRequestID(String(repeating: "a", count: 129)))
    }
}
