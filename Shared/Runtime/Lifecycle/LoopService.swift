import ServiceLifecycle

/// One long-running loop of a process (a link's request server, the bus consumer, a stream
/// follower, the outbox relay, the pruner, the lease keeper, a front) as a swift-service-lifecycle
/// `Service`, so that it runs in the process's service group and its end is seen.
///
/// - `serve` does the loop's work until `stop` makes it return (its socket closed, its queue
///   finished) or its task is cancelled.
/// - On graceful shutdown (or cancellation), `stop` runs: it finishes the work in hand and makes
///   `serve` return. A group shuts its services down in reverse start order, so a loop is stopped
///   after the loops listed after it, which may use what it serves.
/// - If `serve` returns or throws by itself, the loop has failed: it is marked ``LoopStates/State/failed``
///   (the process stops being ready at once) and `run()` throws ``LoopEnded``, which ends the
///   group and so the process with a non-zero status, for its restart policy to bring it back.
public struct LoopService: Service, CustomStringConvertible {
    /// The loop's name in logs, errors and readiness.
    public let name: String
    let states: LoopStates
    /// Whether stopping begins by cancelling `serve` (a front stops reading, a periodic job stops
    /// ticking) before `stop` runs; otherwise `stop` runs first and `serve` returns because of it.
    let cancelsServe: Bool
    /// Runs as soon as shutdown begins, before `serve` is cancelled or `stop` runs (for example:
    /// fail the questions waiting for other services, so handlers in flight finish promptly).
    let onShutdown: @Sendable () async -> Void
    let serve: @Sendable () async throws -> Void
    let stop: @Sendable () async -> Void

    public var description: String { name }

    /// Registers the loop in `states` (as ``LoopStates/State/starting`` until it runs).
    public init(
        _ name: String, states: LoopStates, cancelsServe: Bool = false,
        onShutdown: @escaping @Sendable () async -> Void = {},
        serve: @escaping @Sendable () async throws -> Void, stop: @escaping @Sendable () async -> Void = {}
    ) {
        self.name = name
        self.states = states
        self.cancelsServe = cancelsServe
        self.onShutdown = onShutdown
        self.serve = serve
        self.stop = stop
        states.register(name)
    }

    private enum Outcome: Sendable {
        case endedByItself((any Error)?)
        case shutdown

        var endedByItself: Bool {
            if case .endedByItself = self { return true }
            return false
        }
    }

    public func run() async throws {
        states.set(name, .running)
        let failure = await withTaskGroup(of: Outcome.self) { group -> Outcome? in
            group.addTask {
                do {
                    try await serve()
                    return .endedByItself(nil)
                } catch {
                    return .endedByItself(error)
                }
            }
            group.addTask {
                try? await gracefulShutdown()
                return .shutdown
            }
            let first = await group.next() ?? .shutdown
            // A loop that reacts to the shutdown itself (a Hummingbird application) may return
            // before this loop hears of it: that is a stop, not a failure.
            let failed = first.endedByItself && !Task.isCancelled && !Task.isShuttingDownGracefully
            states.set(name, failed ? .failed : .stopping)
            await onShutdown()
            if first.endedByItself || cancelsServe {
                group.cancelAll()
                await group.waitForAll()
                await stop()
            } else {
                // `serve` finishes what it holds (an event log writes what is queued) and returns.
                await stop()
                await group.waitForAll()
            }
            return failed ? first : nil
        }
        if case .endedByItself(let error) = failure {
            throw LoopEnded(loop: name, error: error)
        }
        states.set(name, .stopped)
    }
}

/// A loop ended while it should have been running: the process stops (non-zero status).
public struct LoopEnded: Error, CustomStringConvertible {
    /// The loop's name.
    public let loop: String
    /// What it threw, if it threw.
    public let error: (any Error)?

    public var description: String {
        if let error { return "the \(loop) loop failed: \(error)" }
        return "the \(loop) loop ended unexpectedly"
    }
}
