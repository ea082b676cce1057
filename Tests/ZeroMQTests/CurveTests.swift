import Foundation
import Testing
import ZeroMQ

/// CURVE keys and the CURVE handshake over real TCP sockets.
@Suite("CURVE", .timeLimit(.minutes(1)), .enabled(if: CurveKeyPair.isAvailable, "this libzmq has no CURVE"))
struct CurveTests {
    @Test("a generated pair: Z85 round trip, and the public key derives from the secret")
    func keys() throws {
        let pair = try CurveKeyPair.generate()
        #expect(pair.publicKey != pair.secretKey)
        #expect(pair.secretKey.z85.utf8.count == CurveKey.z85Count)
        #expect(CurveKey(z85: pair.secretKey.z85) == pair.secretKey)
        #expect(try CurveKeyPair(secretKey: pair.secretKey) == pair)
        #expect(CurveKey(bytes: pair.publicKey.bytes) == pair.publicKey)
        #expect(!"\(pair.secretKey)".contains(pair.secretKey.z85))
    }

    @Test(
        "Z85 text that is not exactly a key is refused",
        arguments: [
            "", "short", String(repeating: "a", count: 39), String(repeating: "a", count: 41),
            String(repeating: "~", count: 40), String(repeating: "\"", count: 40),
        ])
    func badText(_ text: String) {
        #expect(CurveKey(z85: text) == nil)
    }

    @Test("raw keys must be 32 bytes")
    func badBytes() {
        #expect(CurveKey(bytes: [UInt8](repeating: 1, count: 31)) == nil)
        #expect(CurveKey(bytes: [UInt8](repeating: 1, count: 32)) != nil)
    }

    /// A CURVE ROUTER server bound on loopback TCP, and its key pair.
    private func server(_ context: ZMQContext) throws -> (ZMQSocket, CurveKeyPair, String) {
        let pair = try CurveKeyPair.generate()
        let router = try context.makeSocket(.router)
        for option in pair.serverOptions { try router.set(option) }
        try router.bind(anyLocalTCP)
        return (router, pair, try router.lastEndpoint())
    }

    @Test("a CURVE client with the server's public key is answered")
    func handshake() throws {
        let context = try ZMQContext()
        let (router, pair, endpoint) = try server(context)
        defer { router.close() }
        let dealer = try context.makeSocket(.dealer)
        defer { dealer.close() }
        for option in try CurveKeyPair.generate().clientOptions(server: pair.publicKey) { try dealer.set(option) }
        try dealer.connect(endpoint)
        try send(dealer, [bytes("hello")], "the request")
        let request = try receive(router, "the request")
        #expect(texts(Array(request.dropFirst())) == ["hello"])
        try send(router, [request[0], bytes("welcome")], "the reply")
        #expect(try texts(receive(dealer, "the reply")) == ["welcome"])
    }

    @Test("a plain client and a client with the wrong server key get nothing through")
    func refused() throws {
        let context = try ZMQContext()
        let (router, _, endpoint) = try server(context)
        defer { router.close() }
        let plain = try context.makeSocket(.dealer)
        defer { plain.close() }
        let impostor = try context.makeSocket(.dealer)
        defer { impostor.close() }
        let wrongServer = try CurveKeyPair.generate().publicKey
        for option in try CurveKeyPair.generate().clientOptions(server: wrongServer) { try impostor.set(option) }
        try plain.connect(endpoint)
        try impostor.connect(endpoint)
        try plain.send([bytes("plain")], wait: false)
        try impostor.send([bytes("impostor")], wait: false)
        // A bounded wait for something that must not happen; its length is not asserted.
        let ready = try ZMQSocket.poll([(router, .readable)], timeoutMilliseconds: 1000)
        #expect(!ready[0].contains(.readable))
        #expect(try drain(router).isEmpty)
    }
}
