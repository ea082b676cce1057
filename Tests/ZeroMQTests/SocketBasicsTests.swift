import Foundation
import Testing
import ZeroMQ

/// Options, errors and the life cycle of a synchronous ``ZMQSocket``.
@Suite("Socket basics", .timeLimit(.minutes(1)))
struct SocketBasicsTests {
    @Test("The library version is libzmq 4.x")
    func libraryVersion() {
        let version = ZMQContext.libraryVersion
        #expect(version.hasPrefix("4."))
        #expect(version.split(separator: ".").count == 3)
    }

    @Test("Integer options read back what was set")
    func optionsReadBack() throws {
        let context = try ZMQContext()
        let socket = try context.makeSocket(.dealer)
        defer { socket.close() }
        try socket.set(.sendHighWaterMark(123))
        try socket.set(.receiveHighWaterMark(456))
        try socket.set(.lingerMilliseconds(789))
        try socket.set(.heartbeatIntervalMilliseconds(1_500))
        try socket.set(.heartbeatTimeoutMilliseconds(4_500))
        try socket.set(.heartbeatTTLMilliseconds(9_000))
        try socket.set(.reconnectIntervalMilliseconds(250))

        #expect(try socket.value(of: .sendHighWaterMark) == 123)
        #expect(try socket.value(of: .receiveHighWaterMark) == 456)
        #expect(try socket.value(of: .lingerMilliseconds) == 789)
        #expect(try socket.value(of: .heartbeatIntervalMilliseconds) == 1_500)
        #expect(try socket.value(of: .heartbeatTimeoutMilliseconds) == 4_500)
        #expect(try socket.value(of: .reconnectIntervalMilliseconds) == 250)
    }

    @Test("A new socket lingers for the default period, so closing never hangs on an absent peer")
    func defaultLinger() throws {
        let context = try ZMQContext()
        let socket = try context.makeSocket(.push)
        defer { socket.close() }
        #expect(try socket.value(of: .lingerMilliseconds) == ZMQSocket.defaultLingerMilliseconds)
        #expect(ZMQSocket.defaultLingerMilliseconds >= 0)
    }

    @Test("Every option kind is accepted by a socket type it applies to")
    func optionsAreAccepted() throws {
        let context = try ZMQContext()
        let router = try context.makeSocket(.router)
        defer { router.close() }
        try router.set(.routerMandatory(true))
        try router.set(.routerHandover(true))
        try router.set(.maxMessageSize(1 << 20))
        try router.set(.reconnectIntervalMaxMilliseconds(5_000))
        try router.set(.immediate(true))
        let publisher = try context.makeSocket(.extendedPublisher)
        defer { publisher.close() }
        try publisher.set(.publisherVerbose(true))
        try publisher.set(.publisherManual(true))
        let subscriber = try context.makeSocket(.subscriber)
        defer { subscriber.close() }
        try subscriber.set(.subscribe(bytes("topic")))
        try subscriber.set(.unsubscribe(bytes("topic")))
        #expect(!router.isClosed && !publisher.isClosed && !subscriber.isClosed)
    }

    @Test("An option value out of the C int range throws EINVAL instead of being truncated")
    func outOfRangeOption() throws {
        let context = try ZMQContext()
        let socket = try context.makeSocket(.push)
        defer { socket.close() }
        let error = try #require(throws: ZMQError.self) {
            try socket.set(.sendHighWaterMark(Int(Int32.max) + 1))
        }
        #expect(error.errno == EINVAL)
        #expect(error.call == "zmq_setsockopt")
        // libzmq's default high-water mark is untouched by the refused value.
        #expect(try socket.value(of: .sendHighWaterMark) == 1000)
    }

    @Test(
        "Binding to a bad endpoint throws a zmq_bind error carrying errno and the endpoint",
        arguments: ["tcp://127.0.0.1:not-a-port", "nosuchtransport://somewhere", "tcp://"]
    )
    func badBind(endpoint: String) throws {
        let context = try ZMQContext()
        let socket = try context.makeSocket(.pull)
        defer { socket.close() }
        let error = try #require(throws: ZMQError.self) { try socket.bind(endpoint) }
        #expect(error.call == "zmq_bind")
        #expect(error.errno != 0)
        #expect(error.detail == endpoint)
        #expect(!error.message.isEmpty)
        #expect(error.description.contains("zmq_bind"))
    }

    @Test("Binding a TCP port already bound fails with EADDRINUSE")
    func bindingTwiceFails() throws {
        let context = try ZMQContext()
        let first = try context.makeSocket(.pull)
        defer { first.close() }
        let second = try context.makeSocket(.pull)
        defer { second.close() }
        try first.bind(anyLocalTCP)
        let endpoint = try first.lastEndpoint()
        #expect(endpoint.hasPrefix("tcp://127.0.0.1:"))
        #expect(!endpoint.hasSuffix(":*"))
        let error = try #require(throws: ZMQError.self) { try second.bind(endpoint) }
        #expect(error.errno == EADDRINUSE)
        #expect(error.call == "zmq_bind")
    }

    @Test("A non-blocking receive on an empty socket returns nil")
    func nonBlockingReceiveOnEmptySocket() throws {
        let context = try ZMQContext()
        let pull = try context.makeSocket(.pull)
        defer { pull.close() }
        try pull.bind(uniqueInproc("empty"))
        #expect(try pull.receive(wait: false) == nil)
        #expect(try !pull.currentEvents().contains(.readable))
        #expect(try ZMQSocket.poll([(pull, .readable)], timeoutMilliseconds: 0) == [[]])
    }

    @Test("A non-blocking send with no peer returns false instead of blocking")
    func nonBlockingSendWithoutPeer() throws {
        let context = try ZMQContext()
        let dealer = try context.makeSocket(.dealer)
        defer { dealer.close() }
        try dealer.bind(uniqueInproc("no-peer"))
        #expect(try dealer.send([bytes("nobody listens")], wait: false) == false)
    }

    @Test("A readable socket reports it through currentEvents and poll")
    func readinessIsReported() throws {
        let context = try ZMQContext()
        let endpoint = uniqueInproc("readiness")
        let pull = try context.makeSocket(.pull)
        defer { pull.close() }
        let push = try context.makeSocket(.push)
        defer { push.close() }
        try pull.bind(endpoint)
        try push.connect(endpoint)
        try send(push, [bytes("ready")], "the message")
        let ready = try ZMQSocket.poll([(pull, .readable)], timeoutMilliseconds: TestWait.milliseconds)
        #expect(ready == [.readable])
        #expect(try pull.currentEvents().contains(.readable))
        #expect(try pull.receive(wait: false) == [bytes("ready")])
    }

    @Test("A closed socket refuses every call with socketClosed; closing twice is harmless")
    func closedSocketRefusesCalls() throws {
        let context = try ZMQContext()
        let socket = try context.makeSocket(.pair)
        try socket.bind(uniqueInproc("closed"))
        #expect(!socket.isClosed)
        socket.close()
        socket.close()
        #expect(socket.isClosed)
        #expect(throws: ZMQError.socketClosed) { try socket.send([bytes("late")]) }
        #expect(throws: ZMQError.socketClosed) { try socket.receive(wait: false) }
        #expect(throws: ZMQError.socketClosed) { try socket.set(.lingerMilliseconds(0)) }
        #expect(throws: ZMQError.socketClosed) { try socket.value(of: .lingerMilliseconds) }
        #expect(throws: ZMQError.socketClosed) { try socket.bind(uniqueInproc("closed-again")) }
        #expect(throws: ZMQError.socketClosed) { try ZMQSocket.poll([(socket, .readable)], timeoutMilliseconds: 0) }
    }

    @Test("Unbinding and disconnecting work on live endpoints and fail on unknown ones")
    func unbindAndDisconnect() throws {
        let context = try ZMQContext()
        let pull = try context.makeSocket(.pull)
        defer { pull.close() }
        let push = try context.makeSocket(.push)
        defer { push.close() }
        try pull.bind(anyLocalTCP)
        let endpoint = try pull.lastEndpoint()
        try push.connect(endpoint)
        try push.disconnect(endpoint)
        try pull.unbind(endpoint)
        let unbindError = try #require(throws: ZMQError.self) { try pull.unbind(endpoint) }
        #expect(unbindError.call == "zmq_unbind")
        let disconnectError = try #require(throws: ZMQError.self) { try push.disconnect(endpoint) }
        #expect(disconnectError.call == "zmq_disconnect")
    }

    @Test("ZMQError keeps errno, call and detail, and classifies common errnos")
    func errorValue() {
        let wouldBlock = ZMQError(errno: EAGAIN, call: "zmq_send")
        #expect(wouldBlock.isWouldBlock)
        #expect(!wouldBlock.isContextTerminated)
        #expect(wouldBlock.description.hasPrefix("zmq_send failed: "))
        let detailed = ZMQError(errno: EINVAL, call: "zmq_bind", detail: "tcp://x")
        #expect(detailed.description.contains("(tcp://x)"))
        #expect(detailed.description.hasSuffix("[errno \(EINVAL)]"))
        #expect(ZMQError.socketClosed.errno == ENOTSOCK)
    }
}
