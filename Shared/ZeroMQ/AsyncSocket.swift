import DequeModule
import Foundation
import Synchronization

/// A ZeroMQ socket driven by its own thread, usable from any task.
///
/// The socket never leaves its owner thread. That thread blocks in `zmq_poll` (never a task of
/// Swift's cooperative pool) on the socket and on an `inproc://` wake-up socket; tasks hand it
/// outgoing messages and option changes through a lock-protected queue and wake it up.
/// Received messages go to a bounded inbox: when it is full the thread stops reading, so libzmq's
/// high-water marks push back on the sender instead of memory growing without bound.
///
/// Close it with ``close()``; a pending ``receive()`` then returns `nil`. Closing twice is harmless.
public final class AsyncSocket: Sendable {
    /// Runs on the owner thread for every received message, before it reaches the inbox.
    /// Return `false` to drop the message. The socket argument must not escape the call; it
    /// exists so that a manual XPUB can accept a subscription with ``SocketOption/subscribe(_:)``.
    public typealias ReceiveFilter = @Sendable (ZMQSocket, [Data]) -> Bool

    /// The socket pattern.
    public let type: SocketType
    /// A name for logs and the owner thread.
    public let name: String
    /// The endpoints bound, with wildcard ports resolved, in the order given.
    public let boundEndpoints: [String]

    private let core: AsyncSocketCore

    /// Creates the socket, applies the options, binds and connects, then starts its owner thread.
    ///
    /// Options are applied before any bind or connect, as libzmq needs for CURVE keys and most others.
    /// `receiveLimits` bounds what is kept of each received message (see ``ReceiveLimits``).
    ///
    /// `monitor` names an inproc endpoint the socket's connection events go to, for a
    /// ``SocketMonitor`` (set up before any bind or connect, so no event is missed).
    ///
    /// Bind and connect errors are thrown here, before any thread starts.
    public init(
        context: ZMQContext,
        type: SocketType,
        name: String,
        options: [SocketOption] = [],
        bind: [String] = [],
        connect: [String] = [],
        inboxCapacity: Int = 4096,
        capturesPeerAddress: Bool = false,
        receiveLimits: ReceiveLimits? = nil,
        receiveFilter: ReceiveFilter? = nil,
        monitor: String? = nil
    ) throws {
        let socket = try context.makeSocket(type)
        let wakeReceiver = try context.makeSocket(.pair)
        let wakeSender = try context.makeSocket(.pair)
        var bound: [String] = []
        do {
            for option in options { try socket.set(option) }
            if let monitor { try socket.monitor(monitor) }
            for endpoint in bind {
                try socket.bind(endpoint)
                bound.append(try socket.lastEndpoint())
            }
            for endpoint in connect { try socket.connect(endpoint) }
            let wakeEndpoint = "inproc://podium.wake.\(UUID().uuidString)"
            try wakeReceiver.set(.lingerMilliseconds(0))
            try wakeSender.set(.lingerMilliseconds(0))
            try wakeReceiver.bind(wakeEndpoint)
            try wakeSender.connect(wakeEndpoint)
        } catch {
            socket.close()
            wakeReceiver.close()
            wakeSender.close()
            throw error
        }
        self.type = type
        self.name = name
        self.boundEndpoints = bound
        self.core = AsyncSocketCore(
            type: type,
            inboxCapacity: max(1, inboxCapacity),
            receiveFilter: receiveFilter,
            capturesPeerAddress: capturesPeerAddress,
            receiveLimits: receiveLimits,
            wakeSender: wakeSender
        )
        let transfer = OwnershipTransfer((socket, wakeReceiver))
        let core = self.core
        let thread = Thread {
            core.runOwnerLoop(socket: transfer.value.0, wakeReceiver: transfer.value.1)
        }
        thread.name = "zmq.\(name)"
        thread.start()
    }

    deinit {
        core.requestClose()
    }

    /// Messages read from the socket and not yet received (at most the inbox capacity).
    public var inboxDepth: Int { core.inboxDepth }

    /// Queues a multipart message and returns once libzmq has accepted it.
    ///
    /// While libzmq cannot accept it (high-water mark reached, no peer yet), the call waits:
    /// that is the back-pressure. A ROUTER with ``SocketOption/routerMandatory(_:)`` throws
    /// `EHOSTUNREACH` for an unknown peer.
    public func send(_ frames: [Data]) async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, Error>) in
            core.enqueue(.messages([frames], .single(continuation)))
        }
    }

    /// Queues several multipart messages at once and returns when libzmq has accepted (or
    /// refused) every one of them: one hand-over to the owner thread and one resumption for the
    /// whole batch. The messages leave in order. Returns the refusals (a ROUTER's unknown peer,
    /// a closed socket) by their position in `batch`; empty when all were accepted.
    @discardableResult
    public func send(batch: [[Data]]) async -> [SendFailure] {
        guard !batch.isEmpty else { return [] }
        return await withCheckedContinuation { (continuation: CheckedContinuation<[SendFailure], Never>) in
            core.enqueue(.messages(batch, .batch(continuation)))
        }
    }

    /// Receives the next message; `nil` once the socket has been closed and the inbox is empty.
    ///
    /// One task at a time may wait; a second concurrent receive throws.
    public func receive() async throws -> [Data]? {
        try await core.receive(maximum: 1)?.first?.frames
    }

    /// Receives the next message with its peer address (when the socket was created with
    /// `capturesPeerAddress`); `nil` once closed.
    public func receiveMessage() async throws -> ZMQMessage? {
        try await core.receive(maximum: 1)?.first
    }

    /// Receives everything read and waiting, up to `maximum` messages (at least one: it waits
    /// for one if none is there); `nil` once closed. A consumer that takes batches pays one
    /// resumption per batch instead of one per message.
    public func receiveBatch(maximum: Int = 256) async throws -> [ZMQMessage]? {
        try await core.receive(maximum: maximum)
    }

    /// Applies an option on the owner thread (for example a later ``SocketOption/subscribe(_:)``).
    public func set(_ option: SocketOption) async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, Error>) in
            core.enqueue(.option(option, continuation))
        }
    }

    /// Stops the owner thread and closes the socket (with its linger), then returns.
    public func close() async {
        core.requestClose()
        await core.waitUntilFinished()
    }

    /// Received messages as an asynchronous sequence that ends when the socket is closed.
    public var messages: Messages { Messages(socket: self) }

    /// The sequence of received messages.
    public struct Messages: AsyncSequence, Sendable {
        public typealias Element = [Data]
        let socket: AsyncSocket

        public struct AsyncIterator: AsyncIteratorProtocol {
            let socket: AsyncSocket
            public mutating func next() async throws -> [Data]? { try await socket.receive() }
        }

        public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(socket: socket) }
    }
}
