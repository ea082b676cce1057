import Foundation
import Synchronization
import Testing
import ZeroMQ

/// Batches through ``AsyncSocket``: one hand-over for many messages each way, ``SendQueue``'s
/// ordering and refusals, and a ROUTER whose full peer holds up nobody else.
@Suite("Socket batches", .timeLimit(.minutes(2)))
struct BatchTests {
    @Test("A batch send delivers every message in order; a batch receive takes what is waiting, up to its maximum")
    func batchSendAndReceive() async throws {
        let context = try ZMQContext()
        let pull = try AsyncSocket(context: context, type: .pull, name: "tests.batch.pull", bind: [anyLocalTCP])
        let push = try AsyncSocket(
            context: context, type: .push, name: "tests.batch.push", connect: [pull.boundEndpoints[0]])
        try await closingAfterwards([push, pull]) {
            let failures = try await withTimeout("batch send") {
                await push.send(batch: (0..<1000).map { [bytes("\($0)")] })
            }
            #expect(failures.isEmpty)
            #expect(await push.send(batch: []).isEmpty)
            var received: [Int] = []
            var largest = 0
            while received.count < 1000 {
                let batch = try #require(
                    try await withTimeout("batch receive") { try await pull.receiveBatch(maximum: 300) })
                #expect(!batch.isEmpty)
                #expect(batch.count <= 300)
                largest = max(largest, batch.count)
                received += batch.map { Int(text($0.frames[0]))! }
            }
            #expect(received == Array(0..<1000))
            // The sender handed over all 1,000 at once, so the reader found more than one waiting.
            #expect(largest > 1)
        }
    }

    @Test("A batch on a closed socket comes back refused, every message by its index")
    func batchOnClosedSocket() async throws {
        let context = try ZMQContext()
        let push = try AsyncSocket(context: context, type: .push, name: "tests.batch.closed", bind: [anyLocalTCP])
        await push.close()
        let failures = await push.send(batch: [[bytes("a")], [bytes("b")], [bytes("c")]])
        #expect(failures.map(\.index).sorted() == [0, 1, 2])
        #expect(failures.allSatisfy { $0.error == .socketClosed })
        #expect(try await push.receiveBatch() == nil)
    }

    @Test("A ROUTER refuses only the message for an unknown peer of a batch; the others arrive")
    func routerRefusesOneOfABatch() async throws {
        let context = try ZMQContext()
        let router = try AsyncSocket(
            context: context, type: .router, name: "tests.batch.router", options: [.routerMandatory(true)],
            bind: [anyLocalTCP])
        let dealer = try AsyncSocket(
            context: context, type: .dealer, name: "tests.batch.dealer", options: [.routingID(bytes("known"))],
            connect: [router.boundEndpoints[0]])
        try await closingAfterwards([dealer, router]) {
            try await send(dealer, [bytes("hello")], "hello")
            _ = try await receive(router, "hello at the router")
            let failures = await router.send(batch: [
                [bytes("known"), bytes("1")], [bytes("nobody"), bytes("2")], [bytes("known"), bytes("3")],
            ])
            #expect(failures.map(\.index) == [1])
            #expect(failures.first?.error.errno == EHOSTUNREACH)
            #expect(texts(try await receive(dealer, "first")) == ["1"])
            #expect(texts(try await receive(dealer, "third")) == ["3"])
        }
    }

    @Test("A ROUTER peer that stopped reading holds up only its own messages, which wait in order")
    func fullPeerHoldsUpNobodyElse() async throws {
        let context = try ZMQContext()
        let router = try AsyncSocket(
            context: context, type: .router, name: "tests.batch.router2",
            options: [.routerMandatory(true), .sendHighWaterMark(10)], bind: [anyLocalTCP])
        // The slow peer is a plain socket that reads nothing until the end; its queues are tiny.
        let slow = try context.makeSocket(.dealer)
        try slow.set(.routingID(bytes("slow")))
        try slow.set(.receiveHighWaterMark(10))
        try slow.connect(router.boundEndpoints[0])
        let fast = try AsyncSocket(
            context: context, type: .dealer, name: "tests.batch.fast", options: [.routingID(bytes("fast"))],
            connect: [router.boundEndpoints[0]])
        try await closingAfterwards([fast, router]) {
            try send(slow, [bytes("hello")], "slow hello")
            try await send(fast, [bytes("hello")], "fast hello")
            _ = try await receive(router, "first hello")
            _ = try await receive(router, "second hello")
            // Far more than the slow peer's queues hold: the batch cannot finish while it reads nothing.
            let slowMessages = (0..<2000).map { [bytes("slow"), bytes("\($0)")] }
            let slowSend = Task { await router.send(batch: slowMessages) }
            // The fast peer still gets its messages while the slow peer's wait.
            try await withTimeout("fast peer's batch") {
                _ = await router.send(batch: (0..<50).map { [bytes("fast"), bytes("\($0)")] })
            }
            for index in 0..<50 { #expect(texts(try await receive(fast, "fast \(index)")) == ["\(index)"]) }
            // Now the slow peer reads: everything arrives, in order.
            var next = 0
            let deadline = ContinuousClock.now + .seconds(20)
            while next < 2000 && ContinuousClock.now < deadline {
                if let message = try slow.receive(wait: false) {
                    #expect(text(message[0]) == "\(next)")
                    next += 1
                } else {
                    try await Task.sleep(for: .milliseconds(1))
                }
            }
            #expect(next == 2000)
            #expect(await slowSend.value.isEmpty)
        }
        slow.close()
    }

    @Test("SendQueue: messages from many tasks all leave, each task's in order, without waiting for the socket")
    func sendQueueOrdersAndDelivers() async throws {
        let context = try ZMQContext()
        let pull = try AsyncSocket(context: context, type: .pull, name: "tests.queue.pull", bind: [anyLocalTCP])
        let push = try AsyncSocket(
            context: context, type: .push, name: "tests.queue.push", connect: [pull.boundEndpoints[0]])
        let queue = SendQueue(socket: push)
        try await closingAfterwards([push, pull]) {
            await withTaskGroup(of: Void.self) { group in
                for sender in 0..<8 {
                    group.addTask { for index in 0..<500 { queue.send([bytes("\(sender)"), bytes("\(index)")]) } }
                }
            }
            var next = [Int](repeating: 0, count: 8)
            for _ in 0..<4000 {
                guard let batch = try await withTimeout("queued messages", { try await pull.receiveBatch() }) else {
                    break
                }
                for message in batch {
                    let sender = Int(text(message.frames[0]))!
                    #expect(Int(text(message.frames[1])) == next[sender], "sender \(sender) out of order")
                    next[sender] += 1
                }
                if next.reduce(0, +) == 4000 { break }
            }
            #expect(next == [Int](repeating: 500, count: 8))
        }
    }

    @Test("SendQueue: a refused message reaches its own failure handler, the others are delivered")
    func sendQueueReportsRefusals() async throws {
        let context = try ZMQContext()
        let router = try AsyncSocket(
            context: context, type: .router, name: "tests.queue.router", options: [.routerMandatory(true)],
            bind: [anyLocalTCP])
        let dealer = try AsyncSocket(
            context: context, type: .dealer, name: "tests.queue.dealer", options: [.routingID(bytes("there"))],
            connect: [router.boundEndpoints[0]])
        let queue = SendQueue(socket: router)
        let refused = Mutex<[String]>([])
        try await closingAfterwards([dealer, router]) {
            try await send(dealer, [bytes("hello")], "hello")
            _ = try await receive(router, "hello")
            for (peer, body) in [("there", "a"), ("gone", "b"), ("there", "c")] {
                queue.send([bytes(peer), bytes(body)]) { error in
                    refused.withLock { $0.append("\(body):\(error.errno == EHOSTUNREACH)") }
                }
            }
            #expect(texts(try await receive(dealer, "a")) == ["a"])
            #expect(texts(try await receive(dealer, "c")) == ["c"])
            let deadline = ContinuousClock.now + .seconds(10)
            while refused.withLock({ $0.isEmpty }) && ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(5))
            }
            #expect(refused.withLock { $0 } == ["b:true"])
        }
    }
}
