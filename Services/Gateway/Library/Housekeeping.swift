import PodiumMessages
import PodiumRuntime

/// The gateway's periodic chores, one loop: bus ticks at the heartbeat interval, routing's
/// deadlines and lost instances (``ServiceRouter/tick()``), WebSockets whose session token
/// expired (every second) and expired session tokens (every minute).
struct Housekeeping: Sendable {
    let publisher: BusPublisher
    let router: ServiceRouter
    let sessions: ClientSessions
    let sockets: WebSocketHub
    /// How often the bus ticks.
    let heartbeat: Duration
    let clock: any PodiumClock

    /// Keeps house until cancelled.
    func run() async {
        var lastTick: Int64 = 0
        var lastEviction: Int64 = 0
        var lastSocketCheck: Int64 = 0
        let heartbeat = heartbeat.milliseconds
        while !Task.isCancelled {
            let now = clock.monotonicMilliseconds
            if now - lastTick >= heartbeat {
                lastTick = now
                _ = try? await publisher.publish(
                    type: "bus.tick", topic: Topic(rawValue: "bus/tick"), payload: EmptyPayload())
            }
            await router.tick()
            if now - lastSocketCheck >= 1000 {
                lastSocketCheck = now
                sockets.endExpired()
            }
            if now - lastEviction >= 60_000 {
                lastEviction = now
                sessions.evictExpired()
            }
            try? await clock.sleep(for: .milliseconds(min(heartbeat, 100)))
        }
    }
}
