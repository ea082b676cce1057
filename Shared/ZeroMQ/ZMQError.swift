import CZeroMQ

/// A libzmq failure: the `errno` libzmq reported and the C call that failed.
public struct ZMQError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The `errno` value libzmq reported.
    public let errno: Int32
    /// The libzmq function that failed, such as `zmq_bind`.
    public let call: String
    /// Extra context (an endpoint, an option name).
    public let detail: String?

    public init(errno: Int32, call: String, detail: String? = nil) {
        self.errno = errno
        self.call = call
        self.detail = detail
    }

    /// libzmq's own text for the error.
    public var message: String { String(cString: zmq_strerror(errno)) }

    public var description: String {
        let context = detail.map { " (\($0))" } ?? ""
        return "\(call) failed\(context): \(message) [errno \(errno)]"
    }

    /// The context was terminated while the call was in progress.
    public var isContextTerminated: Bool { errno == ETERM }
    /// A non-blocking call could not complete now.
    public var isWouldBlock: Bool { errno == EAGAIN }
    /// The socket was closed by its owner before the operation could run.
    public static let socketClosed = ZMQError(errno: ENOTSOCK, call: "podium.socket", detail: "socket is closed")
    /// This libzmq was built without CURVE support (`zmq_has("curve")` is false).
    public static let curveUnavailable = ZMQError(
        errno: ENOTSUP, call: "zmq_has", detail: "this libzmq has no CURVE support (build it with libsodium)")
    /// An API misuse that libzmq would otherwise have reported as EINVAL.
    static func invalid(_ call: String, _ detail: String) -> ZMQError {
        ZMQError(errno: EINVAL, call: call, detail: detail)
    }

    /// Captures `zmq_errno()` right after a failed call.
    static func last(_ call: String, _ detail: String? = nil) -> ZMQError {
        ZMQError(errno: zmq_errno(), call: call, detail: detail)
    }
}
