import Foundation
import Testing
import ZeroMQ

/// Every socket pattern Podium uses, over real libzmq sockets driven synchronously.
@Suite("Socket patterns", .timeLimit(.minutes(1)))
struct SocketPatternTests {
    @Test("PAIR exchanges messages both ways over TCP")
    func pairExchangesBothWays() throws {
        let context = try ZMQContext()
        let left = try context.makeSocket(.pair)
        defer { left.close() }
        let right = try context.makeSocket(.pair)
        defer { right.close() }
        try left.bind(anyLocalTCP)
        try right.connect(try left.lastEndpoint())

        try send(right, [bytes("ping")], "ping")
        #expect(texts(try receive(left, "ping on the bound PAIR")) == ["ping"])
        try send(left, [bytes("pong")], "pong")
        #expect(texts(try receive(right, "pong on the connected PAIR")) == ["pong"])
    }

    @Test("SUB receives only messages whose first frame starts with its topic prefix")
    func subscriberFiltersByTopicPrefix() throws {
        let context = try ZMQContext()
        let publisher = try context.makeSocket(.publisher)
        defer { publisher.close() }
        let subscriber = try context.makeSocket(.subscriber)
        defer { subscriber.close() }
        try publisher.bind(anyLocalTCP)
        try subscriber.set(.subscribe(bytes("news.")))
        try subscriber.connect(try publisher.lastEndpoint())

        // The subscription reaches the publisher asynchronously: publish rounds until one arrives.
        var received: [String] = []
        let deadline = Deadline("the first matching publication")
        var round = 0
        while received.isEmpty {
            try deadline.check()
            round += 1
            try publisher.send([bytes("sport.\(round)"), bytes("ignored")])
            try publisher.send([bytes("news"), bytes("shorter than the prefix")])
            try publisher.send([bytes("news.\(round)"), bytes("body")])
            _ = try ZMQSocket.poll([(subscriber, .readable)], timeoutMilliseconds: TestWait.retrySliceMilliseconds)
            received += try drain(subscriber).map { text($0[0]) }
        }
        // The subscription is now in place; a non-matching message published before a matching
        // one would arrive first, so reading up to the last matching one shows it was filtered.
        try publisher.send([bytes("sport.final")])
        try publisher.send([bytes("newsless")])
        try publisher.send([bytes("news.final")])
        while received.last != "news.final" {
            received.append(text(try receive(subscriber, "news.final")[0]))
        }

        #expect(received.allSatisfy { $0.hasPrefix("news.") }, "received \(received)")
        #expect(received.contains("news.final"))
    }

    @Test("XPUB used directly receives \\x01topic and \\x00topic subscription frames")
    func extendedPublisherSeesSubscriptions() throws {
        let context = try ZMQContext()
        let endpoint = uniqueInproc("xpub-direct")
        let publisher = try context.makeSocket(.extendedPublisher)
        defer { publisher.close() }
        let subscriber = try context.makeSocket(.subscriber)
        defer { subscriber.close() }
        try publisher.bind(endpoint)
        try subscriber.connect(endpoint)

        try subscriber.set(.subscribe(bytes("weather")))
        #expect(try receive(publisher, "the subscription") == [Data([1]) + bytes("weather")])

        // The XPUB applied the subscription before passing it up, so a publication now flows.
        try publisher.send([bytes("weather.today"), bytes("sunny")])
        #expect(texts(try receive(subscriber, "the publication")) == ["weather.today", "sunny"])

        try subscriber.set(.unsubscribe(bytes("weather")))
        #expect(try receive(publisher, "the unsubscription") == [Data([0]) + bytes("weather")])
    }

    @Test("ROUTER sees the DEALER's routing id in frame 0 and replies to the right DEALER")
    func routerRoutesByRoutingID() throws {
        let context = try ZMQContext()
        let router = try context.makeSocket(.router)
        defer { router.close() }
        let dealerA = try context.makeSocket(.dealer)
        defer { dealerA.close() }
        let dealerB = try context.makeSocket(.dealer)
        defer { dealerB.close() }
        try router.bind(anyLocalTCP)
        let endpoint = try router.lastEndpoint()
        try dealerA.set(.routingID(bytes("dealer-A")))
        try dealerB.set(.routingID(bytes("dealer-B")))
        try dealerA.connect(endpoint)
        try dealerB.connect(endpoint)

        try send(dealerA, [bytes("hello from A")], "A's greeting")
        try send(dealerB, [bytes("hello from B")], "B's greeting")
        var greetings: [String: [String]] = [:]
        for _ in 0..<2 {
            let message = texts(try receive(router, "a greeting on the ROUTER"))
            greetings[message[0]] = Array(message.dropFirst())
        }
        #expect(greetings == ["dealer-A": ["hello from A"], "dealer-B": ["hello from B"]])

        try router.send([bytes("dealer-B"), bytes("reply for B")])
        #expect(texts(try receive(dealerB, "B's reply")) == ["reply for B"])

        // Had B's reply gone to A as well, it would be queued ahead of this one.
        try router.send([bytes("dealer-A"), bytes("reply for A")])
        #expect(texts(try receive(dealerA, "A's reply")) == ["reply for A"])
        #expect(try dealerA.receive(wait: false) == nil)
    }

    @Test("ROUTER with routerMandatory throws EHOSTUNREACH for an unknown routing id")
    func mandatoryRouterRejectsUnknownPeer() throws {
        let context = try ZMQContext()
        let router = try context.makeSocket(.router)
        defer { router.close() }
        let dealer = try context.makeSocket(.dealer)
        defer { dealer.close() }
        try router.set(.routerMandatory(true))
        try router.bind(anyLocalTCP)
        try dealer.set(.routingID(bytes("known")))
        try dealer.connect(try router.lastEndpoint())
        try send(dealer, [bytes("hello")], "the greeting")
        #expect(texts(try receive(router, "the greeting")) == ["known", "hello"])

        let error = try #require(throws: ZMQError.self) {
            try router.send([bytes("nobody"), bytes("lost")])
        }
        #expect(error.errno == EHOSTUNREACH)
        #expect(error.call == "zmq_send")

        // The socket stays usable for peers it knows.
        try router.send([bytes("known"), bytes("still here")])
        #expect(texts(try receive(dealer, "the reply to the known peer")) == ["still here"])
    }

    @Test("PUSH delivers to PULL in order, and PULL fans in from several PUSH sockets")
    func pushPullDeliversInOrder() throws {
        let context = try ZMQContext()
        let endpoint = uniqueInproc("push-pull")
        let pull = try context.makeSocket(.pull)
        defer { pull.close() }
        let first = try context.makeSocket(.push)
        defer { first.close() }
        let second = try context.makeSocket(.push)
        defer { second.close() }
        try pull.bind(endpoint)
        try first.connect(endpoint)
        try second.connect(endpoint)

        for index in 0..<5 { try send(first, [bytes("first"), bytes("\(index)")], "first's message \(index)") }
        for index in 0..<5 { try send(second, [bytes("second"), bytes("\(index)")], "second's message \(index)") }
        var bySender: [String: [String]] = [:]
        for _ in 0..<10 {
            let message = texts(try receive(pull, "a pushed message"))
            bySender[message[0], default: []].append(message[1])
        }
        let expected = (0..<5).map(String.init)
        #expect(bySender == ["first": expected, "second": expected])
    }

    @Test("REQ/REP alternate request and reply; a second request before the reply is refused")
    func requestReplyRoundTrip() throws {
        let context = try ZMQContext()
        let reply = try context.makeSocket(.reply)
        defer { reply.close() }
        let request = try context.makeSocket(.request)
        defer { request.close() }
        try reply.bind(anyLocalTCP)
        try request.connect(try reply.lastEndpoint())

        for round in 0..<3 {
            try send(request, [bytes("question \(round)")], "request \(round)")
            // REP strips the envelope: the application sees only the request's own frames.
            #expect(texts(try receive(reply, "request \(round)")) == ["question \(round)"])
            if round == 0 {
                let error = try #require(throws: ZMQError.self) { try request.send([bytes("too early")]) }
                #expect(error.call == "zmq_send")
                #expect(error.errno != 0)
            }
            try reply.send([bytes("answer \(round)")])
            #expect(texts(try receive(request, "reply \(round)")) == ["answer \(round)"])
        }
    }

    @Test("Socket types report whether they can send and receive")
    func socketTypeCapabilities() {
        let sendOnly = SocketType.allCases.filter { !$0.canReceive }
        let receiveOnly = SocketType.allCases.filter { !$0.canSend }
        #expect(Set(sendOnly) == [.publisher, .push])
        #expect(Set(receiveOnly) == [.subscriber, .pull])
        #expect(SocketType.extendedPublisher.description == "XPUB")
        #expect(SocketType.allCases.count == 11)
    }
}
