/// Tells any number of waiters that something has ended (a connection pool's run, say).
/// Waiting returns at once once it ended, and also when the waiting task is cancelled.
public final class EndSignal: Sendable {
    private let state = Locked<(ended: Bool, waiting: [AsyncStream<Void>.Continuation])>((false, []))

    public init() {}

    /// Marks the end and wakes every waiter.
    public func end() {
        let waiting = state.withLock { state in
            state.ended = true
            defer { state.waiting = [] }
            return state.waiting
        }
        for continuation in waiting { continuation.finish() }
    }

    /// Whether it has ended.
    public var hasEnded: Bool { state.value.ended }

    /// Returns once it has ended, or when the task is cancelled.
    public func wait() async {
        let (stream, continuation) = AsyncStream<Void>.makeStream()
        let ended = state.withLock { state in
            if !state.ended { state.waiting.append(continuation) }
            return state.ended
        }
        if ended { return }
        for await _ in stream {}
    }
}
