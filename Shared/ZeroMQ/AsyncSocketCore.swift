import DequeModule
import Foundation
import Synchronization

/// The state an ``AsyncSocket`` shares between the tasks that use it and its owner thread.
final class AsyncSocketCore: Sendable {
    enum Work {
        case message([Data], CheckedContinuation<Void, Error>)
        case option(SocketOption, CheckedContinuation<Void, Error>)
    }

    struct Receiver {
        let id: UInt64
        let continuation: CheckedContinuation<ZMQMessage?, Error>
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
    /// How often a ROUTER retries a message refused because its one peer is full.
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
            switch item {
            case .message(_, let continuation), .option(_, let continuation):
                continuation.resume(throwing: ZMQError.socketClosed)
            }
            return
        }
        wake()
    }

    func receive() async throws -> ZMQMessage? {
        let id = state.withLock { state -> UInt64 in
            state.nextReceiverID += 1
            return state.nextReceiverID
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<ZMQMessage?, Error>) in
                var resumeReading = false
                let immediate = state.withLock { state -> Result<ZMQMessage?, Error>? in
                    if let message = state.inbox.popFirst() {
                        if state.readPaused && state.inbox.count < inboxCapacity {
                            state.readPaused = false
                            resumeReading = true
                        }
                        return .success(message)
                    }
                    if state.finished {
                        if let failure = state.failure { return .failure(failure) }
                        return .success(nil)
                    }
                    if Task.isCancelled { return .failure(CancellationError()) }
                    if state.receiver != nil {
                        return .failure(ZMQError.invalid("receive", "another task is already receiving"))
                    }
                    state.receiver = Receiver(id: id, continuation: continuation)
                    return nil
                }
                if let immediate { continuation.resume(with: immediate) }
                if resumeReading { wake() }
            }
        } onCancel: {
            let waiting = state.withLock { state -> CheckedContinuation<ZMQMessage?, Error>? in
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

    // MARK: - Owner thread

    func runOwnerLoop(socket: ZMQSocket, wakeReceiver: ZMQSocket) {
        var outgoing = Deque<(frames: [Data], continuation: CheckedContinuation<Void, Error>)>()
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
                    case .message(let frames, let continuation):
                        outgoing.append((frames, continuation))
                    case .option(let option, let continuation):
                        do {
                            try socket.set(option)
                            continuation.resume()
                        } catch {
                            continuation.resume(throwing: error)
                        }
                    }
                }
                var blocked = false
                while let next = outgoing.first {
                    do {
                        if try socket.send(next.frames, wait: false) {
                            outgoing.removeFirst()
                            next.continuation.resume()
                        } else {
                            blocked = true
                            break
                        }
                    } catch {
                        outgoing.removeFirst()
                        next.continuation.resume(throwing: error)
                    }
                }
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
        finish(failure: failure, unsent: outgoing.map(\.continuation))
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

    private func readAvailable(from socket: ZMQSocket) throws {
        for _ in 0..<Self.readBatch {
            guard let message = try socket.receiveMessage(wait: false, peerAddress: capturesPeerAddress, limits: receiveLimits) else { return }
            if let receiveFilter, !receiveFilter(socket, message.frames) { continue }
            let (receiver, full) = state.withLock { state -> (CheckedContinuation<ZMQMessage?, Error>?, Bool) in
                if let receiver = state.receiver {
                    state.receiver = nil
                    return (receiver.continuation, false)
                }
                state.inbox.append(message)
                return (nil, state.inbox.count >= inboxCapacity)
            }
            receiver?.resume(returning: message)
            if full { return }
        }
    }

    private func finish(failure: ZMQError?, unsent: [CheckedContinuation<Void, Error>]) {
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
        for continuation in unsent { continuation.resume(throwing: ZMQError.socketClosed) }
        for item in leftover {
            switch item {
            case .message(_, let continuation), .option(_, let continuation):
                continuation.resume(throwing: ZMQError.socketClosed)
            }
        }
        if let failure {
            receiver?.continuation.resume(throwing: failure)
        } else {
            receiver?.continuation.resume(returning: nil)
        }
        finishSignal.signal()
    }
}
