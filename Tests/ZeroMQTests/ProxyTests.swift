import Foundation
import Testing
import ZeroMQ

/// ``ZMQProxy`` as the bus hub: publishers connect to its XSUB side, subscribers to its XPUB side.
@Suite("Proxy", .timeLimit(.minutes(1)))
struct ProxyTests {
    @Test("XSUB ⇄ XPUB proxy carries publications from several publishers to matching subscribers")
    func proxyForwardsPublications() async throws {
        let context = try ZMQContext()
        let frontend = try context.makeSocket(.extendedSubscriber)
        try frontend.bind(anyLocalTCP)
        let publisherEndpoint = try frontend.lastEndpoint()
        let backend = try context.makeSocket(.extendedPublisher)
        try backend.bind(anyLocalTCP)
        let subscriberEndpoint = try backend.lastEndpoint()
        let proxy = try ZMQProxy(context: context, name: "tests.bus", frontend: frontend, backend: backend)

        let outcome = Result {
            try Self.relay(
                context: context, publisherEndpoint: publisherEndpoint, subscriberEndpoint: subscriberEndpoint)
        }
        try await withTimeout("the proxy to stop") { await proxy.stop() }
        let (everything, onlyB) = try outcome.get()

        #expect(everything.contains { $0.hasPrefix("bus.a.") })
        #expect(everything.contains { $0.hasPrefix("bus.b.") })
        #expect(everything.allSatisfy { $0.hasPrefix("bus.") }, "the bus.* subscriber got \(everything)")
        #expect(!onlyB.isEmpty)
        #expect(onlyB.allSatisfy { $0.hasPrefix("bus.b.") }, "the bus.b.* subscriber got \(onlyB)")
    }

    @Test("Stopping a proxy twice is harmless")
    func stopIsIdempotent() async throws {
        let context = try ZMQContext()
        let frontend = try context.makeSocket(.extendedSubscriber)
        try frontend.bind(uniqueInproc("proxy-front"))
        let backend = try context.makeSocket(.extendedPublisher)
        try backend.bind(uniqueInproc("proxy-back"))
        let proxy = try ZMQProxy(context: context, name: "tests.stop-twice", frontend: frontend, backend: backend)
        #expect(proxy.name == "tests.stop-twice")

        try await withTimeout("the first stop") { await proxy.stop() }
        try await withTimeout("the second stop") { await proxy.stop() }
    }

    @Test(
        "stop() returns even when the proxy thread has already ended on a forwarding error"
    )
    func stopAfterProxyEndedOnItsOwn() async throws {
        let context = try ZMQContext()
        let frontendEndpoint = uniqueInproc("proxy-dies-front")
        let backendEndpoint = uniqueInproc("proxy-dies-back")
        let frontend = try context.makeSocket(.pull)
        try frontend.bind(frontendEndpoint)
        let backend = try context.makeSocket(.router)
        try backend.set(.routerMandatory(true))
        try backend.bind(backendEndpoint)
        let proxy = try ZMQProxy(context: context, name: "tests.proxy-dies", frontend: frontend, backend: backend)
        let push = try context.makeSocket(.push)
        defer { push.close() }
        let dealer = try context.makeSocket(.dealer)
        defer { dealer.close() }
        try push.connect(frontendEndpoint)
        try send(push, [bytes("no-such-peer"), bytes("payload")], "the unroutable message")
        // A connected peer makes the ROUTER writable, so the proxy forwards the message, gets
        // EHOSTUNREACH and returns; its thread then closes the frontend, which the PUSH sees.
        try dealer.connect(backendEndpoint)
        let deadline = Deadline("the proxy thread to end")
        while try push.currentEvents().contains(.writable) {
            try deadline.check()
            try await Task.sleep(for: .milliseconds(10))
        }

        try await withTimeout("stop() after the proxy ended") { await proxy.stop() }
    }

    /// Publishes through the proxy until both subscribers have seen what they subscribed to,
    /// and returns the topics each one received.
    private static func relay(
        context: ZMQContext,
        publisherEndpoint: String,
        subscriberEndpoint: String
    ) throws -> (everything: [String], onlyB: [String]) {
        let publisherA = try context.makeSocket(.publisher)
        defer { publisherA.close() }
        let publisherB = try context.makeSocket(.publisher)
        defer { publisherB.close() }
        let everythingSubscriber = try context.makeSocket(.subscriber)
        defer { everythingSubscriber.close() }
        let onlyBSubscriber = try context.makeSocket(.subscriber)
        defer { onlyBSubscriber.close() }
        try publisherA.connect(publisherEndpoint)
        try publisherB.connect(publisherEndpoint)
        try everythingSubscriber.set(.subscribe(bytes("bus.")))
        try onlyBSubscriber.set(.subscribe(bytes("bus.b.")))
        try everythingSubscriber.connect(subscriberEndpoint)
        try onlyBSubscriber.connect(subscriberEndpoint)

        // Subscriptions travel subscriber → XPUB → proxy → XSUB → publisher asynchronously,
        // so the first rounds may be dropped: publish until both subscribers are served.
        var everything: [String] = []
        var onlyB: [String] = []
        let deadline = Deadline("publications through the proxy")
        var round = 0
        while !(everything.contains { $0.hasPrefix("bus.a.") } && everything.contains { $0.hasPrefix("bus.b.") }
            && onlyB.contains { $0.hasPrefix("bus.b.") })
        {
            try deadline.check()
            round += 1
            try publisherA.send([bytes("bus.a.\(round)"), bytes("from A")])
            try publisherA.send([bytes("other.\(round)"), bytes("from A")])
            try publisherB.send([bytes("bus.b.\(round)"), bytes("from B")])
            _ = try ZMQSocket.poll(
                [(everythingSubscriber, .readable), (onlyBSubscriber, .readable)],
                timeoutMilliseconds: TestWait.retrySliceMilliseconds)
            everything += try drain(everythingSubscriber).map { text($0[0]) }
            onlyB += try drain(onlyBSubscriber).map { text($0[0]) }
        }
        return (everything, onlyB)
    }
}
