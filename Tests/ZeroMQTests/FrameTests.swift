import Foundation
import Testing
import ZeroMQ

/// What arrives is exactly what was sent: frame boundaries, empty frames, large frames, limits.
@Suite("Frames", .timeLimit(.minutes(1)))
struct FrameTests {
    /// Several frames, empty ones among them (first, middle and last), and binary content.
    static let multipart: [Data] = [
        Data(), bytes("header"), Data(), bytes("body"), Data([0, 1, 2, 0xFE, 0xFF]), Data(),
    ]

    @Test("A multipart message with empty frames arrives intact and in order (sync)")
    func multipartRoundTripSync() throws {
        let context = try ZMQContext()
        let pull = try context.makeSocket(.pull)
        defer { pull.close() }
        let push = try context.makeSocket(.push)
        defer { push.close() }
        try pull.bind(anyLocalTCP)
        try push.connect(try pull.lastEndpoint())

        try send(push, Self.multipart, "the multipart message")
        try send(push, [Data()], "a message of one empty frame")
        #expect(try receive(pull, "the multipart message") == Self.multipart)
        #expect(try receive(pull, "the empty message") == [Data()])
    }

    @Test("A multipart message with empty frames arrives intact and in order (async)")
    func multipartRoundTripAsync() async throws {
        let context = try ZMQContext()
        let endpoint = uniqueInproc("multipart")
        let right = try AsyncSocket(context: context, type: .pair, name: "tests.multipart.right", bind: [endpoint])
        let left = try AsyncSocket(context: context, type: .pair, name: "tests.multipart.left", connect: [endpoint])
        try await closingAfterwards([left, right]) {
            try await send(left, Self.multipart, "the multipart message")
            #expect(try await receive(right, "the multipart message") == Self.multipart)
            try await send(right, Self.multipart.reversed(), "the reversed message")
            #expect(try await receive(left, "the reversed message") == Self.multipart.reversed())
        }
    }

    @Test("A 1 MiB frame of random bytes round trips byte for byte (sync)")
    func largeFrameSync() throws {
        let payload = randomBytes(1 << 20)
        let context = try ZMQContext()
        let receiver = try context.makeSocket(.pair)
        defer { receiver.close() }
        let sender = try context.makeSocket(.pair)
        defer { sender.close() }
        try receiver.bind(anyLocalTCP)
        try sender.connect(try receiver.lastEndpoint())

        try send(sender, [bytes("large"), payload], "the large frame")
        let message = try receive(receiver, "the large frame")
        try #require(message.count == 2)
        #expect(message[0] == bytes("large"))
        #expect(message[1].count == payload.count)
        #expect(message[1] == payload)
    }

    @Test("A 1 MiB frame of random bytes round trips byte for byte (async)")
    func largeFrameAsync() async throws {
        let payload = randomBytes(1 << 20)
        let context = try ZMQContext()
        let pull = try AsyncSocket(context: context, type: .pull, name: "tests.large.pull", bind: [anyLocalTCP])
        let push = try AsyncSocket(
            context: context, type: .push, name: "tests.large.push", connect: [pull.boundEndpoints[0]])
        try await closingAfterwards([push, pull]) {
            try await send(push, [payload], "the large frame")
            try await send(push, [bytes("after")], "the frame after")
            let message = try await receive(pull, "the large frame")
            try #require(message.count == 1)
            #expect(message[0].count == payload.count)
            #expect(message[0] == payload)
            #expect(try await receive(pull, "the frame after") == [bytes("after")])
        }
    }

    @Test("A frame over MAXMSGSIZE disconnects its sender and is never delivered")
    func oversizedFrameIsRejected() throws {
        let context = try ZMQContext()
        let receiver = try context.makeSocket(.pull)
        defer { receiver.close() }
        try receiver.set(.maxMessageSize(1024))
        try receiver.bind(anyLocalTCP)
        let endpoint = try receiver.lastEndpoint()

        // With IMMEDIATE the sender only has a pipe while its connection is up, so losing
        // writability shows that the receiver dropped it; the long reconnect interval keeps it down.
        let oversized = try context.makeSocket(.push)
        defer { oversized.close() }
        try oversized.set(.immediate(true))
        try oversized.set(.reconnectIntervalMilliseconds(60_000))
        try oversized.set(.lingerMilliseconds(0))
        try oversized.connect(endpoint)
        try send(oversized, [randomBytes(4096)], "the oversized frame")
        let deadline = Deadline("the receiver to disconnect the oversized sender")
        while try oversized.currentEvents().contains(.writable) {
            try deadline.check()
            Thread.sleep(forTimeInterval: 0.01)
        }

        let small = try context.makeSocket(.push)
        defer { small.close() }
        try small.connect(endpoint)
        try send(small, [bytes("small")], "the small frame")
        try send(small, [bytes("second small")], "the second small frame")

        #expect(try receive(receiver, "the small frame") == [bytes("small")])
        #expect(try receive(receiver, "the second small frame") == [bytes("second small")])
        #expect(try receiver.receive(wait: false) == nil)
    }

    @Test("Sending a message of no frames throws EINVAL (sync)")
    func emptyMessageIsRefusedSync() throws {
        let context = try ZMQContext()
        let socket = try context.makeSocket(.push)
        defer { socket.close() }
        try socket.bind(uniqueInproc("no-frames"))
        let error = try #require(throws: ZMQError.self) { try socket.send([]) }
        #expect(error.errno == EINVAL)
        #expect(error.call == "zmq_send")
    }

    @Test("Sending a message of no frames throws EINVAL and leaves the socket usable (async)")
    func emptyMessageIsRefusedAsync() async throws {
        let context = try ZMQContext()
        let endpoint = uniqueInproc("no-frames-async")
        let pull = try AsyncSocket(context: context, type: .pull, name: "tests.no-frames.pull", bind: [endpoint])
        let push = try AsyncSocket(context: context, type: .push, name: "tests.no-frames.push", connect: [endpoint])
        try await closingAfterwards([push, pull]) {
            let error = try await #require(throws: ZMQError.self) {
                try await withTimeout("the refusal") { try await push.send([]) }
            }
            #expect(error.errno == EINVAL)
            #expect(error.call == "zmq_send")
            try await send(push, [bytes("still works")], "a message after the refusal")
            #expect(try await receive(pull, "the message after the refusal") == [bytes("still works")])
        }
    }
}
