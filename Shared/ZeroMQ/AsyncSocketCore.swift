import DequeModule
import Foundation
import Synchronization

/// The state an ``AsyncSocket`` shares between the tasks that use it and its owner thread.
///
/// Everything crosses in batches: the owner thread reads all that is ready before it hands
/// anything over (one resumption per wake-up, not per message), and a batch of outgoing messages
/// is one queue entry with one continuation, resumed when the last of them is accepted.
final class AsyncSocketCore: Sendable {
    enum Work {
        case messages([[Data]], SendCompletion)
        case option(SocketOption, CheckedContinuation<Void, Error>)
    }

    /// What waits for a batch of outgoing messages: resumed once, when every message of the
    /// batch has been accepted by libzmq or refused.
    enum SendCompletion {
        /// One message; its error is thrown.
        case single(CheckedContinuation<Void, Error>)
        /// Several; the refusals come back by index.
        case batch(CheckedContinuation<[SendFailure], Never>)
    }

    struct Receiver {
        let id: UInt64
        let maximum: Int
        let continuation: CheckedContinuation<[ZMQMessage]?, Error>
    }

    struct State {
        var work: Deque<Work> = []
        var inbox: Deque<ZMQMessage> = []
        var receiver: Receiver?
        var nextReceiverID: UInt64 = 0
        var readPaused = false
        var wakePending = false
        var closeRequested = false
        var finished = false
        var failure: ZMQError?
    }

    let type: SocketType
    let inboxCapacity: Int
    let receiveFilter: AsyncSocket.ReceiveFilter?
    let capturesPeerAddress: Bool
    let receiveLimits: ReceiveLimits?
    private let state = Mutex(State())
    private let finishSignal = FinishSignal()
    // The sending half of the wake-up pair. Any thread may use it, one at a time under this
    // lock; the lock's barriers are what libzmq asks for when a socket changes threads.
    private let wakeSender: Mutex<ZMQSocket?>

    /// Messages read from the socket and waiting for a receiver.
    var inboxDepth: Int { state.withLock { $0.inbox.count } }

    /// Messages read per wake-up before the thread looks at its queue again.
    private static let readBatch = 256
    /// How often a ROUTER retries messages for a peer that was full.
    private static let routerRetryMilliseconds = 5

    init(
        type: SocketType, inboxCapacity: Int, receiveFilter: AsyncSocket.ReceiveFilter?, capturesPeerAddress: Bool,
        receiveLimits: ReceiveLimits? = nil, wakeSender: sending ZMQSocket
    ) {
        self.type = type
        self.receiveLimits = receiveLimits
        self.capturesPeerAddress = capturesPeerAddress
        self.inboxCapacity = inboxCapacity
        self.receiveFilter = receiveFilter
        self.wakeSender = Mutex(wakeSender)
    }

    // MARK: - Called from tasks

    func enqueue(_ item: Work) {
        let accepted = state.withLock { state -> Bool in
            guard !state.closeRequested && !state.finished else { return false }
            state.work.append(item)
            return true
        }
        guard accepted else {
            Self.refuse(item, ZMQError.socketClosed)
            return
        }
        wake()
    }

    /// The next messages: everything in the inbox up to `maximum` (at least one), waiting for
    /// one if there is none; nil once the socket is closed and the inbox is empty.
    func receive(maximum: Int) async throws -> [ZMQMessage]? {
        let id = state.withLock { state -> UInt64 in
            state.nextReceiverID += 1
            return state.nextReceiverID
        }
        let maximum = max(1, maximum)
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<[ZMQMessage]?, Error>) in
                var resumeReading = false
                let immediate = state.withLock { state -> Result<[ZMQMessage]?, Error>? in
                    if !state.inbox.isEmpty {
                        let taken = Self.take(&state.inbox, maximum)
                        if state.readPaused && state.inbox.count < inboxCapacity {
                            state.readPaused = false
                            resumeReading = true
                        }
                        return .success(taken)
                    }
                    if state.finished {
                        if let failure = state.failure { return .failure(failure) }
                        return .success(nil)
                    }
                    if Task.isCancelled { return .failure(CancellationError()) }
                    if state.receiver != nil {
                        return .failure(ZMQError.invalid("receive", "another task is already receiving"))
                    }
                    state.receiver = Receiver(id: id, maximum: maximum, continuation: continuation)
                    return nil
                }
                if let immediate { continuation.resume(with: immediate) }
                if resumeReading { wake() }
            }
        } onCancel: {
            let waiting = state.withLock { state -> CheckedContinuation<[ZMQMessage]?, Error>? in
                guard let receiver = state.receiver, receiver.id == id else { return nil }
                state.receiver = nil
                return receiver.continuation
            }
            waiting?.resume(throwing: CancellationError())
        }
    }

    func requestClose() {
        let shouldWake = state.withLock { state -> Bool in
            if state.closeRequested || state.finished { return false }
            state.closeRequested = true
            return true
        }
        if shouldWake { wake() }
    }

    func waitUntilFinished() async {
        await finishSignal.wait()
    }

    private func wake() {
        let needsSignal = state.withLock { state -> Bool in
            if state.wakePending { return false }
            state.wakePending = true
            return true
        }
        guard needsSignal else { return }
        wakeSender.withLock { sender in
            // A refused signal means one is already queued, which wakes the thread just as well.
            _ = try? sender?.send([Data()], wait: false)
        }
    }

    private static func take(_ inbox: inout Deque<ZMQMessage>, _ maximum: Int) -> [ZMQMessage] {
        if inbox.count <= maximum {
            let all = Array(inbox)
            inbox.removeAll(keepingCapacity: true)
            return all
        }
        let taken = Array(inbox.prefix(maximum))
        inbox.removeFirst(maximum)
        return taken
    }

    private static func refuse(_ item: Work, _ error: ZMQError) {
        switch item {
        case .messages(let messages, let completion):
            let batch = OutgoingBatch(count: messages.count, completion: completion)
            for index in messages.indices { batch.refused(index, error) }
        case .option(_, let continuation):
            continuation.resume(throwing: error)
        }
    }

    // MARK: - Owner thread

    func runOwnerLoop(socket: ZMQSocket, wakeReceiver: ZMQSocket) {
        var outgoing = OutgoingQueue(isRouter: type == .router)
        var failure: ZMQError?
        do {
            while true {
                while try wakeReceiver.receive(wait: false) != nil {}
                let (work, closing) = state.withLock { state in
                    state.wakePending = false
                    let work = state.work
                    state.work.removeAll()
                    return (work, state.closeRequested)
                }
                for item in work {
                    switch item {
                    case .messages(let messages, let completion):
                        outgoing.append(messages, OutgoingBatch(count: messages.count, completion: completion))
                    case .option(let option, let continuation):
                        do {
                            try socket.set(option)
                            continuation.resume()
                        } catch {
                            continuation.resume(throwing: error)
                        }
                    }
                }
                let blocked = outgoing.send(on: socket)
                if closing { break }

                var interest: PollEvents = []
                var timeout = -1
                if type.canReceive && shouldRead() { interest.insert(.readable) }
                if blocked {
                    // A ROUTER reports writable while *any* peer has room, so waiting for
                    // POLLOUT would spin on a message for one full peer; retry on a short timer.
                    if type == .router { timeout = Self.routerRetryMilliseconds } else { interest.insert(.writable) }
                }
                let ready = try ZMQSocket.poll(
                    [(wakeReceiver, .readable), (socket, interest)], timeoutMilliseconds: timeout)
                if ready[1].contains(.readable) {
                    try readAvailable(from: socket)
                }
            }
        } catch let error as ZMQError {
            failure = error
        } catch {
            failure = ZMQError.invalid("podium.socket", "\(error)")
        }
        socket.close()
        wakeReceiver.close()
        outgoing.failAll(ZMQError.socketClosed)
        finish(failure: failure)
    }

    /// Whether the inbox has room; if not, records that reading paused so a consumer wakes us.
    private func shouldRead() -> Bool {
        state.withLock { state in
            if state.inbox.count >= inboxCapacity {
                state.readPaused = true
                return false
            }
            return true
        }
    }

    /// Reads what is ready (up to the room in the inbox and ``readBatch``), then hands it over
    /// in one go: to a waiting receiver with one resumption, the rest to the inbox.
    private func readAvailable(from socket: ZMQSocket) throws {
        let room = state.withLock { inboxCapacity - $0.inbox.count }
        var read: [ZMQMessage] = []
        read.reserveCapacity(min(16, max(1, room)))
        while read.count < min(Self.readBatch, max(1, room)) {
            guard
                let message = try socket.receiveMessage(
                    wait: false, peerAddress: capturesPeerAddress, limits: receiveLimits)
            else {
                break
            }
            if let receiveFilter, !receiveFilter(socket, message.frames) { continue }
            read.append(message)
        }
        guard !read.isEmpty else { return }
        let handed = state.withLock { state -> (CheckedContinuation<[ZMQMessage]?, Error>, [ZMQMessage])? in
            state.inbox.append(contentsOf: read)
            guard let receiver = state.receiver else { return nil }
            state.receiver = nil
            return (receiver.continuation, Self.take(&state.inbox, receiver.maximum))
        }
        if let (continuation, messages) = handed { continuation.resume(returning: messages) }
    }

    private func finish(failure: ZMQError?) {
        wakeSender.withLock { sender in
            sender?.close()
            sender = nil
        }
        let (receiver, leftover) = state.withLock { state in
            state.finished = true
            state.failure = failure
            let receiver = state.receiver
            state.receiver = nil
            let leftover = state.work
            state.work.removeAll()
            return (receiver, leftover)
        }
        for item in leftover { Self.refuse(item, ZMQError.socketClosed) }
        if let failure {
            receiver?.continuation.resume(throwing: failure)
        } else {
            receiver?.continuation.resume(returning: nil)
        }
        finishSignal.signal()
    }
}

/// One message's refusal in a batch sent with ``AsyncSocket/send(batch:)``.
public struct SendFailure: Error, Sendable {
    /// The message's position in the batch.
    public let index: Int
    public let error: ZMQError
}

/// The messages of one batch still to be accepted, and who waits for them. Owner thread only.
final class OutgoingBatch {
    private var remaining: Int
    private var failures: [SendFailure] = []
    private let completion: AsyncSocketCore.SendCompletion

    init(count: Int, completion: AsyncSocketCore.SendCompletion) {
        remaining = count
        self.completion = completion
        if count == 0 { finish() }
    }

    func accepted() {
        remaining -= 1
        if remaining == 0 { finish() }
    }

    func refused(_ index: Int, _ error: ZMQError) {
        failures.append(SendFailure(index: index, error: error))
        accepted()
    }

    private func finish() {
        switch completion {
        case .single(let continuation):
            if let failure = failures.first {
                continuation.resume(throwing: failure.error)
            } else {
                continuation.resume()
            }
        case .batch(let continuation):
            continuation.resume(returning: failures)
        }
    }
}

/// Messages waiting for libzmq to accept them, in order. On a ROUTER, a peer whose queue is full
/// gets a queue of its own so that it holds up nobody else; its messages keep their order and
/// are retried before anything newer for it.
struct OutgoingQueue {
    struct Message {
        let frames: [Data]
        let index: Int
        let batch: OutgoingBatch
    }

    let isRouter: Bool
    private var queue = Deque<Message>()
    private var held: [Data: Deque<Message>] = [:]

    init(isRouter: Bool) { self.isRouter = isRouter }

    mutating func append(_ messages: [[Data]], _ batch: OutgoingBatch) {
        for (index, frames) in messages.enumerated() {
            queue.append(Message(frames: frames, index: index, batch: batch))
        }
    }

    /// Sends what libzmq takes now; returns whether something is left waiting.
    mutating func send(on socket: ZMQSocket) -> Bool {
        if !held.isEmpty {
            for peer in Array(held.keys) {
                while let message = held[peer]?.first {
                    guard Self.offer(message, to: socket) else { break }
                    held[peer]?.removeFirst()
                }
                if held[peer]?.isEmpty == true { held[peer] = nil }
            }
        }
        while let message = queue.first {
            if isRouter, let peer = message.frames.first, held[peer] != nil {
                held[peer]?.append(queue.removeFirst())
                continue
            }
            if Self.offer(message, to: socket) {
                queue.removeFirst()
                continue
            }
            guard isRouter, let peer = message.frames.first else { return true }
            held[peer, default: []].append(queue.removeFirst())
        }
        return !held.isEmpty
    }

    /// Offers one message; false if it must wait (its peer or the socket is full).
    private static func offer(_ message: Message, to socket: ZMQSocket) -> Bool {
        do {
            guard try socket.send(message.frames, wait: false) else { return false }
            message.batch.accepted()
        } catch let error as ZMQError {
            message.batch.refused(message.index, error)
        } catch {
            message.batch.refused(message.index, ZMQError.invalid("zmq_send", "\(error)"))
        }
        return true
    }

    mutating func failAll(_ error: ZMQError) {
        for message in queue { message.batch.refused(message.index, error) }
        queue.removeAll()
        for (_, messages) in held { for message in messages { message.batch.refused(message.index, error) } }
        held.removeAll()
    }
}
