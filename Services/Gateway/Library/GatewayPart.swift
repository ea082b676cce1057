import ServiceLifecycle

/// One long-running part of the gateway (the bus hub, the event log's writer, the service router,
/// housekeeping, the notification relay, the ZeroMQ front) as a swift-service-lifecycle
/// `Service`. ``Gateway/services`` lists them; the executable runs them, with the HTTP front, in
/// one service group.
///
/// - `serve` does the part's work until `stop` makes it return (its socket closed, its queue
///   finished) or the task is cancelled.
/// - On graceful shutdown (or cancellation), `stop` runs: it finishes the part's work in hand
///   and makes `serve` return. The group shuts parts down in reverse order, each after the one
///   listed after it has returned, so the fronts stop reading before the router, the event log
///   and the bus hub stop under them.
/// - If `serve` returns by itself, the part has failed (its socket died): `run()` throws
///   ``Gateway/GatewayLoopEnded``, and the group, and so the process, stops instead of carrying
///   on and reporting ready without it.
struct GatewayPart: Service {
    let name: String
    /// Whether stopping begins by cancelling `serve` (a front stops reading, housekeeping stops
    /// ticking) before `stop` runs; otherwise `stop` runs first and `serve` returns because of it.
    var cancelsServe = false
    let serve: @Sendable () async -> Void
    let stop: @Sendable () async -> Void

    func run() async throws {
        let endedByItself = await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                await serve()
                return true
            }
            group.addTask {
                try? await gracefulShutdown()
                return false
            }
            let endedByItself = await group.next() ?? false
            if endedByItself || cancelsServe {
                group.cancelAll()
                await group.waitForAll()
                await stop()
            } else {
                await stop()
                await group.waitForAll()
            }
            return endedByItself
        }
        if endedByItself && !Task.isCancelled {
            throw Gateway.GatewayLoopEnded(loop: name)
        }
    }
}
