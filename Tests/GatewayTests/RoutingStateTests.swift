import Foundation
import PodiumMessages
import PodiumRuntime
import Testing

@testable import Gateway

/// Routing as a state machine (``Routing``), without sockets: what each event calls for.
@Suite("Routing (pure)")
struct RoutingStateTests {
    static let limits = Routing.Limits(requestTimeout: 1000, maxInFlight: 3, knownServices: ["leaderboard", "auth"])
    static let one = Data("l1".utf8)
    static let two = Data("l2".utf8)

    static func client(_ id: UInt8) -> ClientConnection {
        ClientConnection(key: .init(transport: .zeromq, id: Data([id])), peer: nil) { _ in }
    }

    static func announcement(
        _ service: String = "leaderboard", instance: String,
        types: [String] = ["leaderboard.top", "leaderboard.health"],
        partitions: [Int]? = nil
    ) -> RawEnvelope {
        let payload = ServiceAnnouncement(
            service: service, instance: instance, requestTypes: types, heartbeatIntervalMilliseconds: 100,
            partitions: partitions)
        return RawEnvelope(type: .serviceAnnouncement, timestamp: 0, payload: try! WireCodec.jsonValue(payload))
    }

    /// A client's request as the pipeline forwards it.
    static func request(
        _ type: MessageType = "leaderboard.top", clientID: String, internalID: String = MessageID.make()
    ) -> RawEnvelope {
        RawEnvelope(type: type, id: internalID, correlationId: clientID, timestamp: 0, payload: .object([:]))
    }

    static func reply(to internalID: String) -> RawEnvelope {
        RawEnvelope(type: .reply, correlationId: internalID, timestamp: 0, payload: .object(["ok": true]))
    }

    /// The error a refused forward throws, or nil if it was admitted.
    static func refusal(
        _ routing: inout Routing, _ envelope: RawEnvelope, from client: ClientConnection, now: Int64 = 0
    ) -> ErrorCode? {
        do {
            _ = try routing.forward(envelope, from: client, now: now)
            return nil
        } catch {
            return error.code
        }
    }

    /// Routing with one leaderboard instance (or the given ones) announced at time 0.
    static func routing(instances: [Data] = [one]) -> Routing {
        var routing = Routing(limits: limits)
        for (index, instance) in instances.enumerated() {
            _ = routing.announced(announcement(instance: "l\(index + 1)"), from: instance, now: 0)
        }
        return routing
    }

    @Test("a request is refused without an instance (unknown or unavailable) and sent to one once it announced itself")
    func admission() throws {
        var routing = Routing(limits: Self.limits)
        let ann = Self.client(1)
        #expect(
            Self.refusal(&routing, Self.request(clientID: "a"), from: ann) == .serviceUnavailable,
            "a known service, not connected")
        #expect(Self.refusal(&routing, Self.request("nothing.here", clientID: "b"), from: ann) == .unknownType)
        guard
            case .serviceConnected(let connected)? = routing.announced(
                Self.announcement(instance: "l1"), from: Self.one, now: 0)
        else {
            Issue.record("a new instance is not announced to operators")
            return
        }
        #expect(connected.instance == "l1")
        #expect(
            routing.announced(Self.announcement(instance: "l1"), from: Self.one, now: 50) == nil,
            "a heartbeat is not news")
        #expect(Self.refusal(&routing, Self.request("leaderboard.other", clientID: "c"), from: ann) == .unknownType)
        let request = Self.request(clientID: "d", internalID: "i1")
        guard case .send(let sent, let instance, let internalID) = try routing.forward(request, from: ann, now: 0)
        else {
            Issue.record("an admitted request is not sent")
            return
        }
        #expect(sent == request && instance == Self.one && internalID == "i1")
        #expect(routing.inFlight == 1)
        #expect(routing.inFlight(fromConnection: ann.key) == 1)
        #expect(routing.isAnnounced("leaderboard.top") && !routing.isAnnounced("auth.login"))
        #expect(routing.connectedServices == ["leaderboard"])
    }

    @Test("an announcement naming another service's types is refused")
    func refusedAnnouncement() {
        var routing = Routing(limits: Self.limits)
        guard
            case .announcementRefused? = routing.announced(
                Self.announcement(instance: "l1", types: ["auth.login"]), from: Self.one, now: 0)
        else {
            Issue.record("accepted another service's type")
            return
        }
        #expect(routing.connectedServices.isEmpty)
    }

    @Test(
        "a connection's request id is refused while in flight, free again once answered; other connections may use it")
    func duplicateIDs() throws {
        var routing = Self.routing()
        let ann = Self.client(1)
        let bob = Self.client(2)
        _ = try routing.forward(Self.request(clientID: "same", internalID: "i1"), from: ann, now: 0)
        #expect(
            Self.refusal(&routing, Self.request(clientID: "same", internalID: "i2"), from: ann) == .duplicateRequestID)
        #expect(Self.refusal(&routing, Self.request(clientID: "same", internalID: "i3"), from: bob) == nil)
        guard case .resolve(let entry, _)? = routing.replied(Self.reply(to: "i1")) else {
            Issue.record("the reply found no request")
            return
        }
        guard case .client(let client, let requestID) = entry.origin else {
            Issue.record("not the client's request")
            return
        }
        #expect(client.key == ann.key && requestID == "same")
        #expect(Self.refusal(&routing, Self.request(clientID: "same", internalID: "i4"), from: ann) == nil)
    }

    @Test("past the in-flight limit clients are refused overloaded; the gateway's own questions are not")
    func overload() throws {
        var routing = Self.routing()
        for index in 0..<3 {
            _ = try routing.forward(Self.request(clientID: "r\(index)"), from: Self.client(UInt8(index)), now: 0)
        }
        #expect(Self.refusal(&routing, Self.request(clientID: "r3"), from: Self.client(9)) == .overloaded)
        let question = RawEnvelope(type: "leaderboard.health", id: "q1", timestamp: 0, payload: .object([:]))
        let slot = ReplySlot<RawEnvelope>()
        guard case .send = try routing.ask(question, answer: slot, timeout: 500, now: 0) else {
            Issue.record("the gateway's question was refused")
            return
        }
        #expect(routing.inFlight == 4)
        let drained = routing.drain()
        #expect(drained.count == 4)
        for action in drained {
            guard case .fail(_, let error, let failure) = action else {
                Issue.record("drained with \(action)")
                continue
            }
            #expect(error.code == .serviceUnavailable && failure == .shuttingDown)
        }
        #expect(routing.inFlight == 0)
    }

    @Test("a request past its deadline is answered service_timeout once; its late reply is dropped")
    func timeouts() throws {
        var routing = Self.routing()
        let ann = Self.client(1)
        _ = try routing.forward(Self.request(clientID: "slow", internalID: "i1"), from: ann, now: 100)
        _ = routing.announced(Self.announcement(instance: "l1"), from: Self.one, now: 1000)
        #expect(routing.tick(now: 1099).isEmpty, "not yet")
        let expired = routing.tick(now: 1100)
        guard expired.count == 1, case .fail(let entry, let error, .timedOut) = expired[0] else {
            Issue.record("no timeout: \(expired)")
            return
        }
        #expect(error.code == .serviceTimeout)
        #expect(entry.service == "leaderboard")
        #expect(routing.inFlight(fromConnection: ann.key) == 0)
        #expect(routing.tick(now: 1101).isEmpty, "answered once")
        #expect(routing.replied(Self.reply(to: "i1")) == nil, "the late reply is dropped")
        #expect(routing.replied(Self.reply(to: "never-sent")) == nil)
    }

    @Test("an instance whose heartbeats stopped is lost: operators hear of it and its service is unavailable")
    func serviceLost() throws {
        var routing = Self.routing(instances: [Self.one, Self.two])
        _ = routing.announced(Self.announcement(instance: "l2"), from: Self.two, now: 400)
        let lost = routing.tick(now: 560)
        guard lost.count == 1, case .serviceLost(let announcement) = lost[0] else {
            Issue.record("no instance lost: \(lost)")
            return
        }
        #expect(announcement.instance == "l1")
        guard
            case .send(_, let instance, _) = try routing.forward(
                Self.request(clientID: "a"), from: Self.client(1), now: 560)
        else {
            Issue.record("the survivor does not serve")
            return
        }
        #expect(instance == Self.two)
        _ = routing.tick(now: 1000)
        #expect(
            Self.refusal(&routing, Self.request(clientID: "b"), from: Self.client(1), now: 1000) == .serviceUnavailable)
    }

    @Test("instances of a service take turns; with leases only the owners serve, and any instance the built-in types")
    func roundRobinAndOwnership() throws {
        var routing = Self.routing(instances: [Self.one, Self.two])
        var picked: [Data] = []
        for index in 0..<4 {
            if case .send(_, let instance, _) = try routing.forward(
                Self.request(clientID: "r\(index)"), from: Self.client(1), now: 0)
            {
                picked.append(instance)
            }
            _ = routing.drain()
        }
        #expect(Set(picked) == [Self.one, Self.two])
        #expect(picked[0] != picked[1] && picked[1] != picked[2], "in turn")

        var leased = Routing(limits: Self.limits)
        _ = leased.announced(Self.announcement(instance: "l1", partitions: [0, 1]), from: Self.one, now: 0)
        _ = leased.announced(Self.announcement(instance: "l2", partitions: []), from: Self.two, now: 0)
        for index in 0..<3 {
            guard
                case .send(_, let instance, _) = try leased.forward(
                    Self.request(clientID: "o\(index)"), from: Self.client(1), now: 0)
            else {
                Issue.record("the owner does not serve")
                return
            }
            #expect(instance == Self.one, "the standby never serves owned data")
        }
        var standbyOnly = Routing(limits: Self.limits)
        _ = standbyOnly.announced(Self.announcement(instance: "l2", partitions: []), from: Self.two, now: 0)
        #expect(Self.refusal(&standbyOnly, Self.request(clientID: "s"), from: Self.client(1)) == .serviceUnavailable)
        #expect(
            Self.refusal(&standbyOnly, Self.request("leaderboard.health", clientID: "h"), from: Self.client(1)) == nil)
    }

    @Test("an unreachable instance is forgotten when gone, and its request answered service_unavailable once")
    func unreachable() throws {
        var routing = Self.routing()
        _ = try routing.forward(Self.request(clientID: "a", internalID: "i1"), from: Self.client(1), now: 0)
        guard
            case .fail(_, let error, .unreachable)? = routing.unreachable(
                internalID: "i1", instance: Self.one, instanceGone: false)
        else {
            Issue.record("the request was not answered")
            return
        }
        #expect(error.code == .serviceUnavailable)
        #expect(routing.connectedServices == ["leaderboard"], "a full queue is not a lost instance")
        #expect(routing.unreachable(internalID: "i1", instance: Self.one, instanceGone: true) == nil, "answered once")
        #expect(routing.connectedServices.isEmpty)
    }

    @Test("services ask each other through routing: only announced ones, events.read is the gateway's, replies go back")
    func serviceRequests() throws {
        var routing = Self.routing()
        let stranger = Data("x".utf8)
        let question = RawEnvelope(type: "leaderboard.top", id: "q1", timestamp: 0, payload: .object([:]))
        guard
            case .answerInstance(let to, let requestID, let refusal) = routing.serviceAsked(
                question, from: stranger, internalID: "i1", now: 0)
        else {
            Issue.record("an unannounced instance was served")
            return
        }
        #expect(to == stranger && requestID == "q1" && refusal.code == .forbidden)
        let read = RawEnvelope(type: .eventsRead, id: "q2", timestamp: 0, payload: .object([:]))
        guard case .readEventLog(_, _, let asker) = routing.serviceAsked(read, from: Self.one, internalID: "i2", now: 0)
        else {
            Issue.record("events.read was routed")
            return
        }
        #expect(asker == "leaderboard")
        let toAuth = RawEnvelope(type: "auth.friends.check", id: "q3", timestamp: 0, payload: .object([:]))
        guard
            case .answerInstance(_, _, let unavailable) = routing.serviceAsked(
                toAuth, from: Self.one, internalID: "i3", now: 0)
        else {
            Issue.record("routed to a service that is not connected")
            return
        }
        #expect(unavailable.code == .serviceUnavailable)
        _ = routing.announced(
            Self.announcement("auth", instance: "a1", types: ["auth.friends.check"]), from: Self.two, now: 0)
        guard
            case .send(let forwarded, let instance, "i4") = routing.serviceAsked(
                toAuth, from: Self.one, internalID: "i4", now: 0)
        else {
            Issue.record("not forwarded")
            return
        }
        #expect(instance == Self.two)
        #expect(forwarded.id == "i4" && forwarded.correlationId == "q3")
        #expect(forwarded.actor == Actor(kind: .service, service: "leaderboard"))
        guard case .resolve(let entry, _)? = routing.replied(Self.reply(to: "i4")),
            case .service(let back, "q3") = entry.origin
        else {
            Issue.record("the reply does not go back to the asker")
            return
        }
        #expect(back == Self.one)
    }

    @Test("a reply is taken for passing on only when the taker accepts its request")
    func passingOn() throws {
        var routing = Self.routing()
        _ = try routing.forward(Self.request(clientID: "a", internalID: "i1"), from: Self.client(1), now: 0)
        let declined: Bool? = routing.take(internalID: "i1") { _ in nil }
        #expect(declined == nil)
        #expect(routing.inFlight == 1, "left for the long way")
        let taken = routing.take(internalID: "i1") { entry in entry.service }
        #expect(taken == "leaderboard")
        #expect(routing.inFlight == 0)
        #expect(routing.replied(Self.reply(to: "i1")) == nil)
    }
}
