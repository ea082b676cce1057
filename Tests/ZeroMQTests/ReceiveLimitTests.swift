import Foundation
import Testing
import ZeroMQ

/// What a receiver keeps of a message that breaks its limits.
@Suite("Receive limits", .timeLimit(.minutes(1)))
struct ReceiveLimitTests {
    @Test("receive limits keep the first frames and bytes, and count the rest")
    func receiveLimits() throws {
        let context = try ZMQContext()
        let pull = try context.makeSocket(.pull)
        defer { pull.close() }
        let push = try context.makeSocket(.push)
        defer { push.close() }
        try pull.bind(anyLocalTCP)
        try push.connect(try pull.lastEndpoint())
        let limits = ReceiveLimits(maxFrames: 3, maxBytes: 10)
        try send(push, [bytes("a"), bytes("b"), bytes("c"), bytes("d"), bytes("e")], "five frames")
        try send(push, [bytes("12345"), bytes("67890"), bytes("x")], "eleven bytes")
        try send(push, [bytes("ok"), bytes("fine")], "a message within the limits")
        _ = try ZMQSocket.poll([(pull, .readable)], timeoutMilliseconds: TestWait.milliseconds)
        let many = try #require(try pull.receiveMessage(wait: true, peerAddress: false, limits: limits))
        #expect(texts(many.frames) == ["a", "b", "c"])
        #expect(many.frameCount == 5 && many.isTruncated)
        let big = try #require(try pull.receiveMessage(wait: true, peerAddress: false, limits: limits))
        #expect(texts(big.frames) == ["12345", "67890"])
        #expect(big.byteCount == 11 && big.isTruncated)
        let small = try #require(try pull.receiveMessage(wait: true, peerAddress: false, limits: limits))
        #expect(texts(small.frames) == ["ok", "fine"])
        #expect(!small.isTruncated)
    }
}
