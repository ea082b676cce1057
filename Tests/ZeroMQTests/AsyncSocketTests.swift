import Foundation
import Testing
import ZeroMQ

/// ``AsyncSocket``: the owner thread, its inbox, cancellation, shutdown and receive filters.
@Suite("AsyncSocket", .timeLimit(.minutes(2)))
struct AsyncSocketTests {
    @Test("Bound endpoints report the resolved TCP port; a bad endpoint fails in init")
    func boundEndpointsAndBadBind() async throws {
        let context = try ZMQContext()
        let inproc = uniqueInproc("bound")
        let socket = try AsyncSocket(
            context: context, type: .pull, name: "tests.bound", bind: [anyLocalTCP, inproc])
        try await closingAfterwards([socket]) {
            #expect(socket.boundEndpoints.count == 2)
            #expect(socket.boundEndpoints[0].hasPrefix("tcp://127.0.0.1:"))
            #expect(!socket.boundEndpoints[0].hasSuffix(":*"))
            #expect(socket.boundEndpoints[1] == inproc)
            #expect(socket.type == .pull)
            #expect(socket.name == "tests.bound")
        }

        let error = try #require(throws: ZMQError.self) {
            _ = try AsyncSocket(context: context, type: .pull, name: "tests.bad-bind", bind: ["tcp://127.0.0.1:nope"])
        }
        #expect(error.call == "zmq_bind")
        #expect(error.errno != 0)
    }

    @Test("Ten thousand sends from eight concurrent tasks all arrive, each task's in order")
    func concurrentSendsAllArrive() async throws {
        let senders = 8
        let perSender = 1_250
        let context = try ZMQContext()
        let pull = try AsyncSocket(context: context, type: .pull, name: "tests.many.pull", bind: [anyLocalTCP])
        let push = try AsyncSocket(
            context: context, type: .push, name: "tests.many.push", connect: [pull.boundEndpoints[0]])
        let counts = try await closingAfterwards([push, pull]) {
            try await withThrowingTaskGroup(of: [Int].self) { group in
                for sender in 0..<senders {
                    group.addTask {
                        for index in 0..<perSender {
                            try await push.send([bytes("\(sender)"), bytes("\(index)")])
                        }
                        return []
                    }
                }
                group.addTask {
                    var next = [Int](repeating: 0, count: senders)
                    for _ in 0..<(senders * perSender) {
                        let message = texts(
                            try await receive(pull, "message \(next.reduce(0, +)) of \(senders * perSender)"))
                        let sender = try #require(Int(message[0]))
                        let index = try #require(Int(message[1]))
                        #expect(index == next[sender], "sender \(sender) out of order")
                        next[sender] += 1
                    }
                    return next
                }
                var counts: [Int] = []
                for try await result in group where !result.isEmpty { counts = result }
                return counts
            }
        }
        #expect(counts == [Int](repeating: perSender, count: senders))
    }

    @Test("With a full inbox and a slow consumer the sender is held back and nothing is lost")
    func backPressureKeepsEveryMessageInOrder() async throws {
        let total = 400
        let context = try ZMQContext()
        let endpoint = uniqueInproc("back-pressure")
        let pull = try AsyncSocket(
            context: context, type: .pull, name: "tests.slow.pull",
            options: [.receiveHighWaterMark(2)], bind: [endpoint], inboxCapacity: 4)
        let push = try AsyncSocket(
            context: context, type: .push, name: "tests.slow.push",
            options: [.sendHighWaterMark(2)], connect: [endpoint])
        let sent = SharedCounter()
        try await closingAfterwards([push, pull]) {
            let producer = Task {
                for index in 0..<total {
                    try await push.send([bytes("\(index)")])
                    sent.increment()
                }
            }
            // Nothing is consumed yet, so the inbox and the tiny pipe fill and the sends stall.
            // A longer pause only makes this check stricter; it never makes it fail spuriously.
            try await Task.sleep(for: .milliseconds(200))
            let aheadBeforeConsuming = sent.value
            #expect(aheadBeforeConsuming < 100, "the sender ran \(aheadBeforeConsuming) messages ahead")

            var received: [Int] = []
            for _ in 0..<total {
                received.append(Int(text(try await receive(pull, "message \(received.count)")[0])) ?? -1)
                if received.count % 20 == 0 { try await Task.sleep(for: .milliseconds(2)) }
            }
            try await withTimeout("the producer to finish") { try await producer.value }
            #expect(received == Array(0..<total))
            #expect(sent.value == total)
        }
    }

    @Test("A cancelled receive throws CancellationError and a later receive still works")
    func receiveCancellation() async throws {
        let context = try ZMQContext()
        let endpoint = uniqueInproc("cancel")
        let pull = try AsyncSocket(context: context, type: .pull, name: "tests.cancel.pull", bind: [endpoint])
        let push = try AsyncSocket(context: context, type: .push, name: "tests.cancel.push", connect: [endpoint])
        try await closingAfterwards([push, pull]) {
            let waiting = Task { try await pull.receive() }
            // Whether the cancellation lands before or while the receive waits, it must end it.
            try await Task.sleep(for: .milliseconds(50))
            waiting.cancel()
            let outcome = try await withTimeout("the cancelled receive to end") { await waiting.result }
            #expect(throws: CancellationError.self) { try outcome.get() }

            try await send(push, [bytes("after cancel")], "the message after cancelling")
            #expect(try await receive(pull, "the message after cancelling") == [bytes("after cancel")])
        }
    }

    @Test("Only one task may wait to receive; a second concurrent receive is refused")
    func secondConcurrentReceiveIsRefused() async throws {
        enum Outcome: Sendable, Equatable {
            case message([String])
            case refused(Int32)
            case failed(String)
        }
        let context = try ZMQContext()
        let endpoint = uniqueInproc("two-receivers")
        let pull = try AsyncSocket(context: context, type: .pull, name: "tests.two.pull", bind: [endpoint])
        let push = try AsyncSocket(context: context, type: .push, name: "tests.two.push", connect: [endpoint])
        let (outcomes, report) = AsyncStream.makeStream(of: Outcome.self)
        try await closingAfterwards([push, pull]) {
            for _ in 0..<2 {
                Task {
                    do {
                        let message = try await pull.receive()
                        report.yield(.message(message.map(texts) ?? []))
                    } catch let error as ZMQError where error.call == "receive" {
                        report.yield(.refused(error.errno))
                    } catch {
                        report.yield(.failed("\(error)"))
                    }
                }
            }
            // No message has been sent, so whichever receive came second is the first to end.
            let first = try await withTimeout("the refused receive") {
                var iterator = outcomes.makeAsyncIterator()
                return await iterator.next()
            }
            #expect(first == .refused(EINVAL))

            try await send(push, [bytes("for the waiting one")], "the message")
            let second = try await withTimeout("the waiting receive") {
                var iterator = outcomes.makeAsyncIterator()
                return await iterator.next()
            }
            #expect(second == .message(["for the waiting one"]))
        }
        report.finish()
    }

    @Test("close() ends a pending receive with nil; closing twice is harmless; later calls fail")
    func closeWhileReceiving() async throws {
        let context = try ZMQContext()
        let socket = try AsyncSocket(
            context: context, type: .pair, name: "tests.close.pair", bind: [uniqueInproc("close")])
        let pending = Task { try await socket.receive() }
        // Give the receive time to start waiting; it must end with nil either way.
        try await Task.sleep(for: .milliseconds(50))
        try await withTimeout("close") { await socket.close() }
        let result = try await withTimeout("the pending receive to end") { try await pending.value }
        #expect(result == nil)

        try await withTimeout("the second close") { await socket.close() }
        await #expect(throws: ZMQError.socketClosed) { try await socket.send([bytes("late")]) }
        await #expect(throws: ZMQError.socketClosed) { try await socket.set(.lingerMilliseconds(0)) }
        #expect(try await socket.receive() == nil)
    }

    @Test("A send waiting for a peer fails with socketClosed when the socket is closed")
    func waitingSendFailsOnClose() async throws {
        let context = try ZMQContext()
        let dealer = try AsyncSocket(
            context: context, type: .dealer, name: "tests.no-peer.dealer", bind: [uniqueInproc("no-peer")])
        let (started, markStarted) = AsyncStream.makeStream(of: Void.self)
        let sending = Task {
            markStarted.yield()
            try await dealer.send([bytes("nobody is connected")])
        }
        _ = try await withTimeout("the sending task to start") {
            var iterator = started.makeAsyncIterator()
            return await iterator.next()
        }
        try await Task.sleep(for: .milliseconds(50))
        try await withTimeout("close") { await dealer.close() }
        let outcome = try await withTimeout("the waiting send to end") { await sending.result }
        #expect(throws: ZMQError.socketClosed) { try outcome.get() }
    }

    @Test("The messages sequence yields received messages in order and ends when closed")
    func messagesSequence() async throws {
        let context = try ZMQContext()
        let endpoint = uniqueInproc("sequence")
        let pull = try AsyncSocket(context: context, type: .pull, name: "tests.sequence.pull", bind: [endpoint])
        let push = try AsyncSocket(context: context, type: .push, name: "tests.sequence.push", connect: [endpoint])
        try await closingAfterwards([push, pull]) {
            for word in ["one", "two", "three"] { try await send(push, [bytes(word)], word) }
            let received = try await withTimeout("three messages from the sequence") {
                var received: [String] = []
                for try await message in pull.messages {
                    received += texts(message)
                    if received.count == 3 { break }
                }
                return received
            }
            #expect(received == ["one", "two", "three"])
        }
        // Closed and drained: the sequence ends instead of waiting.
        let afterClose = try await withTimeout("the sequence to end") {
            var count = 0
            for try await _ in pull.messages { count += 1 }
            return count
        }
        #expect(afterClose == 0)
    }

    @Test("A ROUTER with routerMandatory fails an async send to an unknown peer with EHOSTUNREACH")
    func asyncMandatoryRouter() async throws {
        let context = try ZMQContext()
        let router = try AsyncSocket(
            context: context, type: .router, name: "tests.mandatory.router",
            options: [.routerMandatory(true)], bind: [anyLocalTCP])
        let dealer = try AsyncSocket(
            context: context, type: .dealer, name: "tests.mandatory.dealer",
            options: [.routingID(bytes("dealer-1"))], connect: [router.boundEndpoints[0]])
        try await closingAfterwards([dealer, router]) {
            let error = try await #require(throws: ZMQError.self) {
                try await withTimeout("the refusal") { try await router.send([bytes("ghost"), bytes("hello?")]) }
            }
            #expect(error.errno == EHOSTUNREACH)

            try await send(dealer, [bytes("hi")], "the greeting")
            #expect(texts(try await receive(router, "the greeting")) == ["dealer-1", "hi"])
            try await send(router, [bytes("dealer-1"), bytes("welcome")], "the reply")
            #expect(texts(try await receive(dealer, "the reply")) == ["welcome"])
        }
    }

    @Test("Options set later through the owner thread take effect, and bad ones throw")
    func lateOptions() async throws {
        let context = try ZMQContext()
        let endpoint = uniqueInproc("late-subscribe")
        let publisher = try AsyncSocket(
            context: context, type: .extendedPublisher, name: "tests.late.xpub", bind: [endpoint])
        let subscriber = try AsyncSocket(
            context: context, type: .subscriber, name: "tests.late.sub", connect: [endpoint])
        try await closingAfterwards([subscriber, publisher]) {
            let error = try await #require(throws: ZMQError.self) {
                try await withTimeout("the refused option") { try await subscriber.set(.sendHighWaterMark(Int.max)) }
            }
            #expect(error.errno == EINVAL)

            try await withTimeout("the subscription") { try await subscriber.set(.subscribe(bytes("late."))) }
            // The XPUB hands the subscription up once it is applied, so publishing after that is safe.
            #expect(try await receive(publisher, "the subscription") == [Data([1]) + bytes("late.")])
            try await send(publisher, [bytes("early.1")], "a non-matching publication")
            try await send(publisher, [bytes("late.1"), bytes("payload")], "a matching publication")
            #expect(texts(try await receive(subscriber, "the publication")) == ["late.1", "payload"])
        }
    }

    @Test("A receive filter on a manual XPUB accepts some subscriptions and rejects others")
    func manualPublisherFiltersSubscriptions() async throws {
        let context = try ZMQContext()
        let publisher = try AsyncSocket(
            context: context, type: .extendedPublisher, name: "tests.manual.xpub",
            options: [.publisherManual(true)], bind: [anyLocalTCP],
            receiveFilter: { socket, frames in
                guard frames.count == 1, let kind = frames[0].first else { return false }
                let topic = Data(frames[0].dropFirst())
                if kind == 1 && text(topic).hasPrefix("allowed.") {
                    try? socket.set(.subscribe(topic))
                }
                return true
            })
        let endpoint = publisher.boundEndpoints[0]
        let accepted = try AsyncSocket(
            context: context, type: .subscriber, name: "tests.manual.accepted",
            options: [.subscribe(bytes("allowed.a"))], connect: [endpoint])
        let rejected = try AsyncSocket(
            context: context, type: .subscriber, name: "tests.manual.rejected",
            options: [.subscribe(bytes("blocked.")), .subscribe(bytes("allowed.b"))], connect: [endpoint])
        try await closingAfterwards([accepted, rejected, publisher]) {
            // The filter runs before a subscription reaches the inbox, so once all three have been
            // read the accepted ones are in force.
            var subscriptions: Set<Data> = []
            while subscriptions.count < 3 {
                subscriptions.insert(try await receive(publisher, "the subscriptions")[0])
            }
            #expect(
                subscriptions == [
                    Data([1]) + bytes("allowed.a"), Data([1]) + bytes("blocked."), Data([1]) + bytes("allowed.b"),
                ])

            try await send(publisher, [bytes("blocked.1"), bytes("must not arrive")], "the rejected topic")
            try await send(publisher, [bytes("allowed.a.1"), bytes("for A")], "A's topic")
            try await send(publisher, [bytes("allowed.b.1"), bytes("for B")], "B's topic")

            #expect(texts(try await receive(accepted, "A's publication")) == ["allowed.a.1", "for A"])
            // B would have got "blocked.1" before "allowed.b.1" had that subscription been accepted.
            #expect(texts(try await receive(rejected, "B's publication")) == ["allowed.b.1", "for B"])
        }
    }
}

@Suite("Peer address")
struct PeerAddressTests {
    @Test("a ROUTER that captures peer addresses reports the TCP client's address")
    func routerSeesPeerAddress() async throws {
        let context = try ZMQContext()
        let router = try AsyncSocket(
            context: context, type: .router, name: "peer.router", options: [.lingerMilliseconds(0)],
            bind: ["tcp://127.0.0.1:*"], capturesPeerAddress: true)
        let dealer = try AsyncSocket(
            context: context, type: .dealer, name: "peer.dealer", options: [.lingerMilliseconds(0)],
            connect: [router.boundEndpoints[0]])
        try await dealer.send([Data("hello".utf8)])
        let message = try await router.receiveMessage()
        #expect(message?.frames.last == Data("hello".utf8))
        #expect(message?.peerAddress == "127.0.0.1")
        await dealer.close()
        await router.close()
    }
}
