import CZeroMQ
import Foundation

/// One libzmq socket, used synchronously by the one thread that owns it.
///
/// A `ZMQSocket` is deliberately not `Sendable`: libzmq sockets are not thread-safe. Use it
/// directly on a thread you own, or hand it to an ``AsyncSocket`` or ``ZMQProxy``, which own a
/// dedicated thread for it. Closing is idempotent; a socket that was never closed is closed
/// when it is released.
public final class ZMQSocket {
    private var handle: UnsafeMutableRawPointer?
    var rawHandle: UnsafeMutableRawPointer? { handle }
    /// The socket pattern.
    public let type: SocketType
    // Keeps the context alive until this socket is closed (zmq_ctx_term waits for its sockets).
    private var context: ZMQContext?

    /// Linger applied when a socket is created, so that closing never hangs on an absent peer.
    public static let defaultLingerMilliseconds = 200

    init(context: ZMQContext, type: SocketType) throws {
        guard let handle = zmq_socket(context.handle, type.rawValue) else {
            throw ZMQError.last("zmq_socket", type.description)
        }
        self.handle = handle
        self.type = type
        self.context = context
        try set(.lingerMilliseconds(Self.defaultLingerMilliseconds))
    }

    deinit { close() }

    /// Whether ``close()`` has been called.
    public var isClosed: Bool { handle == nil }

    private func open(_ call: String) throws -> UnsafeMutableRawPointer {
        guard let handle else { throw ZMQError.socketClosed }
        return handle
    }

    /// Binds to an endpoint such as `tcp://127.0.0.1:*` or `inproc://name`.
    public func bind(_ endpoint: String) throws {
        if zmq_bind(try open("zmq_bind"), endpoint) != 0 { throw ZMQError.last("zmq_bind", endpoint) }
    }

    /// Connects to an endpoint; libzmq reconnects by itself if the peer goes away.
    public func connect(_ endpoint: String) throws {
        if zmq_connect(try open("zmq_connect"), endpoint) != 0 { throw ZMQError.last("zmq_connect", endpoint) }
    }

    /// Stops listening on an endpoint previously bound.
    public func unbind(_ endpoint: String) throws {
        if zmq_unbind(try open("zmq_unbind"), endpoint) != 0 { throw ZMQError.last("zmq_unbind", endpoint) }
    }

    /// Drops a connection previously made with ``connect(_:)``.
    public func disconnect(_ endpoint: String) throws {
        if zmq_disconnect(try open("zmq_disconnect"), endpoint) != 0 {
            throw ZMQError.last("zmq_disconnect", endpoint)
        }
    }

    /// Sets one option.
    public func set(_ option: SocketOption) throws {
        try option.apply(to: try open("zmq_setsockopt"))
    }

    /// Reads back an integer option.
    public func value(of option: IntegerSocketOption) throws -> Int {
        var value: Int32 = 0
        var size = MemoryLayout<Int32>.size
        if zmq_getsockopt(try open("zmq_getsockopt"), option.name, &value, &size) != 0 {
            throw ZMQError.last("zmq_getsockopt", "\(option)")
        }
        return Int(value)
    }

    /// The endpoint the socket last bound or connected to, with a wildcard port resolved
    /// (`tcp://127.0.0.1:*` becomes `tcp://127.0.0.1:41234`).
    public func lastEndpoint() throws -> String {
        var buffer = [CChar](repeating: 0, count: 1024)
        var size = buffer.count
        if zmq_getsockopt(try open("zmq_getsockopt"), ZMQ_LAST_ENDPOINT, &buffer, &size) != 0 {
            throw ZMQError.last("zmq_getsockopt", "ZMQ_LAST_ENDPOINT")
        }
        return String(decoding: buffer.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The readiness libzmq reports right now (ZMQ_EVENTS).
    public func currentEvents() throws -> PollEvents {
        var value: Int32 = 0
        var size = MemoryLayout<Int32>.size
        if zmq_getsockopt(try open("zmq_getsockopt"), ZMQ_EVENTS, &value, &size) != 0 {
            throw ZMQError.last("zmq_getsockopt", "ZMQ_EVENTS")
        }
        return PollEvents(rawValue: Int16(truncatingIfNeeded: value))
    }

    /// Sends a multipart message atomically: either every frame is queued or none is.
    ///
    /// - Parameter wait: when false, returns `false` instead of blocking if the message cannot
    ///   be queued now (high-water mark reached, or no peer for a PUSH/DEALER).
    /// - Returns: whether the message was queued.
    @discardableResult
    public func send(_ frames: [Data], wait: Bool = true) throws -> Bool {
        let handle = try open("zmq_send")
        guard !frames.isEmpty else { throw ZMQError.invalid("zmq_send", "a message needs at least one frame") }
        let lastIndex = frames.count - 1
        for (index, frame) in frames.enumerated() {
            var flags: Int32 = index < lastIndex ? ZMQ_SNDMORE : 0
            // Only the first frame may be refused: once it is queued, libzmq accepts the rest.
            if !wait && index == 0 { flags |= ZMQ_DONTWAIT }
            while true {
                let rc = frame.withUnsafeBytes { zmq_send(handle, $0.baseAddress, $0.count, flags) }
                if rc >= 0 { break }
                let error = zmq_errno()
                if error == EINTR { continue }
                if error == EAGAIN && index == 0 && !wait { return false }
                throw ZMQError(errno: error, call: "zmq_send", detail: "frame \(index) of \(frames.count)")
            }
        }
        return true
    }

    /// Receives one whole multipart message; every frame is read in full, never truncated.
    ///
    /// - Parameter wait: when false, returns `nil` instead of blocking if no message is queued.
    public func receive(wait: Bool = true) throws -> [Data]? {
        try receiveMessage(wait: wait, peerAddress: false)?.frames
    }

    /// Receives one whole multipart message, optionally with the sending peer's network address
    /// (libzmq's `Peer-Address` message property: the IP address for TCP, nil for inproc).
    ///
    /// With `limits`, frames past them are read and dropped (see ``ReceiveLimits``); the
    /// message's ``ZMQMessage/frameCount`` and ``ZMQMessage/byteCount`` still count them.
    public func receiveMessage(wait: Bool = true, peerAddress: Bool, limits: ReceiveLimits? = nil) throws -> ZMQMessage?
    {
        let handle = try open("zmq_msg_recv")
        var frames: [Data] = []
        var frameCount = 0
        var byteCount = 0
        var keeping = true
        var address: String?
        var more = true
        while more {
            var message = zmq_msg_t()
            zmq_msg_init(&message)
            defer { zmq_msg_close(&message) }
            let flags: Int32 = (!wait && frameCount == 0) ? ZMQ_DONTWAIT : 0
            let rc = zmq_msg_recv(&message, handle, flags)
            if rc < 0 {
                let error = zmq_errno()
                if error == EINTR { continue }
                if error == EAGAIN && frameCount == 0 && !wait { return nil }
                throw ZMQError(errno: error, call: "zmq_msg_recv", detail: "frame \(frameCount)")
            }
            // A ROUTER's own routing-id frame carries no metadata, so look at each frame until one does.
            if peerAddress && address == nil, let property = zmq_msg_gets(&message, "Peer-Address") {
                address = String(cString: property)
            }
            let size = zmq_msg_size(&message)
            frameCount += 1
            byteCount += size
            if let limits, frameCount > limits.maxFrames || byteCount > limits.maxBytes { keeping = false }
            if keeping {
                frames.append(size == 0 ? Data() : Data(bytes: zmq_msg_data(&message), count: size))
            }
            more = zmq_msg_more(&message) != 0
        }
        return ZMQMessage(frames: frames, peerAddress: address, frameCount: frameCount, byteCount: byteCount)
    }

    /// Closes the socket. Calling it again does nothing.
    public func close() {
        guard let handle else { return }
        self.handle = nil
        zmq_close(handle)
        context = nil
    }

    /// Waits until any of the sockets is ready for what it is polled for.
    ///
    /// - Parameter timeoutMilliseconds: -1 waits forever, 0 returns at once.
    /// - Returns: the readiness of each socket, in the order given.
    public static func poll(_ items: [(socket: ZMQSocket, events: PollEvents)], timeoutMilliseconds: Int) throws
        -> [PollEvents]
    {
        var pollItems = try items.map { item in
            zmq_pollitem_t(socket: try item.socket.open("zmq_poll"), fd: 0, events: item.events.rawValue, revents: 0)
        }
        while true {
            let rc = zmq_poll(&pollItems, Int32(pollItems.count), timeoutMilliseconds)
            if rc >= 0 { break }
            if zmq_errno() == EINTR { continue }
            throw ZMQError.last("zmq_poll")
        }
        return pollItems.map { PollEvents(rawValue: $0.revents) }
    }
}
