import CZeroMQ

/// A libzmq context: the I/O threads and the `inproc://` namespace sockets share.
///
/// Contexts are thread-safe in libzmq. Every socket keeps its context alive, so the context is
/// terminated only after the last socket created from it has been closed; termination then
/// waits at most for the sockets' linger periods.
public final class ZMQContext: @unchecked Sendable {
    // @unchecked: the handle is only passed to libzmq's context functions, which are thread-safe.
    let handle: UnsafeMutableRawPointer

    /// Creates a context with the given number of I/O threads.
    public init(ioThreads: Int = 1) throws {
        guard let handle = zmq_ctx_new() else { throw ZMQError.last("zmq_ctx_new") }
        if zmq_ctx_set(handle, ZMQ_IO_THREADS, Int32(ioThreads)) != 0 {
            let error = ZMQError.last("zmq_ctx_set", "ZMQ_IO_THREADS")
            zmq_ctx_term(handle)
            throw error
        }
        self.handle = handle
    }

    deinit {
        while zmq_ctx_term(handle) != 0 && zmq_errno() == EINTR {}
    }

    /// Creates a socket owned by the calling thread (hand it to exactly one other thread at most).
    public func makeSocket(_ type: SocketType) throws -> ZMQSocket {
        try ZMQSocket(context: self, type: type)
    }

    /// The libzmq version this process runs against, such as `4.3.4`.
    public static var libraryVersion: String {
        var major: Int32 = 0
        var minor: Int32 = 0
        var patch: Int32 = 0
        zmq_version(&major, &minor, &patch)
        return "\(major).\(minor).\(patch)"
    }
}
