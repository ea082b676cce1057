import PodiumMessages
import PodiumRuntime

/// Where the one reply to a request waits for a front that returns it (``RequestPipeline/call(_:from:peer:)``):
/// filled once by the pipeline, taken once by the waiting task, in either order. Lighter than a
/// stream: one lock, at most one suspension. The pipeline answers every request (a service that
/// does not answer in time is answered `service_timeout`), so the wait always ends.
final class ReplySlot<Reply: Sendable>: Sendable {
    private enum State {
        case empty
        case waiting(CheckedContinuation<Reply, Never>)
        case filled(Reply)
        case taken
    }

    private let state = Locked(State.empty)

    /// Hands over the reply; later calls are ignored (the pipeline replies exactly once).
    @Sendable func fill(_ reply: Reply) async {
        let waiter = state.withLock { state -> CheckedContinuation<Reply, Never>? in
            switch state {
            case .empty:
                state = .filled(reply)
                return nil
            case .waiting(let continuation):
                state = .taken
                return continuation
            case .filled, .taken:
                return nil
            }
        }
        waiter?.resume(returning: reply)
    }

    /// The reply, once it is there.
    func reply() async -> Reply {
        await withCheckedContinuation { continuation in
            let ready = state.withLock { state -> Reply? in
                if case .filled(let reply) = state {
                    state = .taken
                    return reply
                }
                state = .waiting(continuation)
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }
}
