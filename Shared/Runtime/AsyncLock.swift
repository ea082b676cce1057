import DequeModule

/// Mutual exclusion across suspension points, first come first served: what an actor does not
/// give once its method awaits. Waiting suspends the task; it never blocks a thread.
public final class AsyncLock: Sendable {
    private struct State {
        var held = false
        var waiters = Deque<CheckedContinuation<Void, Never>>()
    }

    private let state = Locked(State())

    public init() {}

    /// Runs `body` while holding the lock.
    public func withLock<Result: Sendable>(_ body: () async throws -> Result) async rethrows -> Result {
        await acquire()
        defer { release() }
        return try await body()
    }

    private func acquire() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let acquired = state.withLock { state -> Bool in
                if state.held {
                    state.waiters.append(continuation)
                    return false
                }
                state.held = true
                return true
            }
            if acquired { continuation.resume() }
        }
    }

    private func release() {
        let next = state.withLock { state -> CheckedContinuation<Void, Never>? in
            if let next = state.waiters.popFirst() { return next }
            state.held = false
            return nil
        }
        next?.resume()
    }
}
