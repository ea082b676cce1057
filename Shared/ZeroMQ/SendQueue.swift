import Foundation
import Synchronization

/// Outgoing messages of many tasks for one socket, handed to it in batches.
///
/// Senders queue and go on. One task at a time takes everything queued to the socket with one
/// ``AsyncSocket/send(batch:)`` (one hand-over to the socket's thread and one resumption), then
/// whatever was queued meanwhile, until the queue is empty. Under load the batches grow by
/// themselves; an idle sender waits for no timer. Messages leave in the order they were queued.
///
/// ``send(_:onFailure:)`` returns once the message is queued, not once libzmq accepted it: what
/// the socket refuses (a ROUTER's peer that went away) comes back through `onFailure`. Memory is
/// bounded by what may be in flight (the gateway's in-flight cap; a service's requests in hand).
public final class SendQueue: Sendable {
    /// What to do about a message the socket refused.
    public typealias FailureHandler = @Sendable (ZMQError) async -> Void

    private struct State {
        var messages: [[Data]] = []
        var failureHandlers: [Int: FailureHandler] = [:]
        var sending = false
    }

    public let socket: AsyncSocket
    private let state = Mutex(State())

    public init(socket: AsyncSocket) {
        self.socket = socket
    }

    /// Whether everything queued has been handed to the socket and accepted (or refused).
    public var isIdle: Bool { state.withLock { !$0.sending && $0.messages.isEmpty } }

    /// Waits until everything queued so far has been handed over, at most `limit` (a socket
    /// whose peer never comes holds its batch for good): call it before closing the socket, so
    /// that replies queued just before a shutdown still leave.
    public func waitUntilSent(limit: Duration = .seconds(2)) async {
        let deadline = ContinuousClock.now + limit
        while !isIdle && ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(1))
        }
    }

    /// Queues a message and returns; if no batch is on its way, a task takes the queue to the
    /// socket (the caller never waits for the socket's thread).
    public func send(_ frames: [Data], onFailure: FailureHandler? = nil) {
        let startsSender = state.withLock { state -> Bool in
            if let onFailure { state.failureHandlers[state.messages.count] = onFailure }
            state.messages.append(frames)
            if state.sending { return false }
            state.sending = true
            return true
        }
        if startsSender { Task { await self.drain() } }
    }

    /// Takes what is queued to the socket, batch after batch, until nothing is left.
    private func drain() async {
        while true {
            let (batch, handlers) = state.withLock { state -> ([[Data]], [Int: FailureHandler]) in
                let taken = (state.messages, state.failureHandlers)
                state.messages.removeAll(keepingCapacity: true)
                state.failureHandlers.removeAll(keepingCapacity: true)
                if taken.0.isEmpty { state.sending = false }
                return taken
            }
            if batch.isEmpty { return }
            for failure in await socket.send(batch: batch) { await handlers[failure.index]?(failure.error) }
        }
    }
}
