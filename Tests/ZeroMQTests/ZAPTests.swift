import Foundation
import Synchronization
import Testing

@testable import ZeroMQ

/// The ZAP handler and the socket monitor over real TCP sockets: a CURVE server that admits
/// only the keys it is told about. Waits for what must not arrive are bounded and their length
/// is never asserted.
@Suite("ZAP", .timeLimit(.minutes(1)), .enabled(if: CurveKeyPair.isAvailable, "this libzmq has no CURVE"))
struct ZAPTests {
    @Test("ZAP request frames parse; anything else is ignored")
    func parse() throws {
        let key = try CurveKeyPair.generate().publicKey
        let frames = [
            bytes("peer"), Data(), bytes("1.0"), bytes("7"), bytes("bus"), bytes("10.0.0.2"), Data(), bytes("CURVE"),
            Data(key.bytes),
        ]
        let (envelope, request) = try #require(ZAPRequest.parse(frames))
        #expect(envelope == [bytes("peer"), Data()])
        #expect(request.domain == "bus" && request.address == "10.0.0.2" && request.mechanism == "CURVE")
        #expect(request.curveKey == key)
        let reply = ZAPVerdict.deny(reason: "unknown key").frames(for: request)
        #expect(texts(reply) == ["1.0", "7", "400", "unknown key", "", ""])
        #expect(texts(ZAPVerdict.allow(userID: "svc").frames(for: request)) == ["1.0", "7", "200", "OK", "svc", ""])
        #expect(ZAPRequest.parse(Array(frames.prefix(7))) == nil)
        var wrongVersion = frames
        wrongVersion[2] = bytes("2.0")
        #expect(ZAPRequest.parse(wrongVersion) == nil)
        var plain = frames
        plain[7] = bytes("NULL")
        #expect(try #require(ZAPRequest.parse(plain)).request.curveKey == nil)
    }

    @Test("monitor events parse from their 6-byte frame")
    func monitorFrames() {
        let frame = Data([0x00, 0x20, 0x0b, 0x00, 0x00, 0x00])  // 0x2000 handshake failed (protocol), value 11
        let event = SocketEvent.parse([frame, bytes("tcp://127.0.0.1:5560")])
        #expect(event == SocketEvent(kind: .handshakeFailed(.protocol), value: 11, endpoint: "tcp://127.0.0.1:5560"))
        #expect(SocketEvent.parse([Data([1, 2, 3]), bytes("x")]) == nil)
    }

    @Test("only admitted keys get through; unknown keys and plain peers are refused, and the monitor sees it")
    func admits() async throws {
        let context = try ZMQContext()
        let server = try CurveKeyPair.generate()
        let member = try CurveKeyPair.generate()
        let stranger = try CurveKeyPair.generate()
        let zap = try ZAPHandler(context: context)
        let asked = Mutex<[ZAPRequest]>([])
        let zapTask = Task {
            await zap.run { request in
                asked.withLock { $0.append(request) }
                guard request.domain == "test.bus" else { return .allow(userID: "") }
                return request.curveKey == member.publicKey ? .allow(userID: "member") : .deny(reason: "unknown key")
            }
        }
        let monitorEndpoint = SocketMonitor.makeEndpoint("zap-test")
        let router = try context.makeSocket(.router)
        defer { router.close() }
        for option in server.serverOptions + [.zapDomain("test.bus")] { try router.set(option) }
        try router.monitor(monitorEndpoint)
        let monitor = try SocketMonitor(context: context, endpoint: monitorEndpoint)
        let events = Mutex<[SocketEvent]>([])
        let monitorTask = Task { await monitor.run { event in events.withLock { $0.append(event) } } }
        try router.bind(anyLocalTCP)
        let endpoint = try router.lastEndpoint()

        let admitted = try context.makeSocket(.dealer)
        let unknown = try context.makeSocket(.dealer)
        let plain = try context.makeSocket(.dealer)
        defer { for socket in [admitted, unknown, plain] { socket.close() } }
        for option in member.clientOptions(server: server.publicKey) { try admitted.set(option) }
        for option in stranger.clientOptions(server: server.publicKey) { try unknown.set(option) }
        for socket in [admitted, unknown, plain] { try socket.connect(endpoint) }
        try unknown.send([bytes("from a stranger")], wait: false)
        try plain.send([bytes("plain")], wait: false)
        try send(admitted, [bytes("from a member")], "the member's message")
        let first = try receive(router, "the member's message")
        #expect(texts(Array(first.dropFirst())) == ["from a member"])
        // A bounded wait for what must not arrive.
        _ = try ZMQSocket.poll([(router, .readable)], timeoutMilliseconds: 1000)
        #expect(try drain(router).isEmpty, "nothing from the stranger or the plain peer")

        let deadline = Deadline("the monitor to report both refusals")
        while true {
            let kinds = events.withLock { $0.map(\.kind) }
            if kinds.contains(.handshakeFailed(.auth)) && kinds.contains(.handshakeFailed(.protocol)) { break }
            try deadline.check()
            try await Task.sleep(for: .milliseconds(20))
        }
        let keys = asked.withLock { $0.compactMap(\.curveKey) }
        #expect(keys.contains(member.publicKey) && keys.contains(stranger.publicKey))
        #expect(asked.withLock { $0.allSatisfy { $0.domain == "test.bus" && $0.address == "127.0.0.1" } })
        await zap.close()
        await monitor.close()
        await zapTask.value
        await monitorTask.value
    }
}
