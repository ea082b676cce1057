import PodiumMessages

/// What carries a ``PodiumClient``'s requests: sends one request and returns the reply that
/// answers it (the envelope whose `correlationId` is the request's id).
///
/// ``DealerTransport`` is a ZeroMQ DEALER with its own thread; ``InProcessTransport`` hands the
/// request to a closure (the gateway's pipeline, for the console).
public protocol PodiumTransport: Sendable {
    /// Sends `request` and waits for its reply; nil when none arrives within `timeout`.
    func exchange(_ request: ClientRequest, timeout: Duration) async throws -> ReceivedReply?
}

/// What carries a ``BlockingPodiumClient``'s requests, for synchronous programs (the `podium`
/// command): the call blocks the calling thread, never a task of Swift's cooperative pool.
public protocol BlockingPodiumTransport {
    /// Sends `request` and waits for its reply; nil when none arrives within `timeout`.
    func exchange(_ request: ClientRequest, timeout: Duration) throws -> ReceivedReply?
}

/// Hands each request to a closure in the same process and returns what it answers: the
/// console's path into the gateway's request pipeline (the request is checked, limited and
/// audited as one from a socket would be). The closure answers every request, so the timeout
/// is the closure's own (the gateway's service timeout).
public struct InProcessTransport: PodiumTransport {
    private let handle: @Sendable (ClientRequest) async throws -> RawEnvelope

    public init(_ handle: @escaping @Sendable (ClientRequest) async throws -> RawEnvelope) {
        self.handle = handle
    }

    public func exchange(_ request: ClientRequest, timeout: Duration) async throws -> ReceivedReply? {
        ReceivedReply(envelope: try await handle(request))
    }
}

extension Duration {
    /// Whole milliseconds, at least 1 (for `zmq_poll`).
    var pollMilliseconds: Int {
        let (seconds, attoseconds) = components
        return max(1, Int(seconds) * 1000 + Int(attoseconds / 1_000_000_000_000_000))
    }
}
