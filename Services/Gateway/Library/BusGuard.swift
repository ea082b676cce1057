import Foundation
import Logging
import Metrics
import PodiumRuntime
import ZeroMQ

/// The hub's side of CURVE on the bus: the context's ZAP handler, which admits only the
/// configured service keys, and monitors on the three bus sockets, which log every handshake
/// that fails (a plain process, a wrong server key). Refusals are logged (at most once per
/// peer and reason every ``RefusalLog/interval``, with the number held back) and counted in
/// `podium_bus_connections_refused_total`.
final class BusGuard: Sendable {
    let security: BusSecurity
    private let zap: ZAPHandler
    private let monitors: [SocketMonitor]
    private let refusals = Locked(RefusalLog())
    private let clock: any PodiumClock
    private let logger: Logger

    /// Binds the ZAP handler: call it before any server socket of `context` binds.
    init(security: BusSecurity, context: ZMQContext, clock: any PodiumClock, logger: Logger) throws {
        self.security = security
        self.zap = try ZAPHandler(context: context)
        self.clock = clock
        self.logger = logger
        monitorEndpoints = ["publish", "subscribe", "services"].map { SocketMonitor.makeEndpoint("bus.\($0)") }
        monitors = try monitorEndpoints.map { try SocketMonitor(context: context, endpoint: $0) }
    }

    /// The monitor endpoints of the bus's publish, subscribe and services sockets, in that order.
    let monitorEndpoints: [String]

    /// Answers handshakes and reads the monitors until ``close()``.
    func run() async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { [self] in
                await zap.run { request in
                    let verdict = security.verdict(for: request)
                    if case .deny(let reason) = verdict {
                        refuse(
                            peer: request.address, reason: "unknown_key", detail: reason,
                            metadata: [
                                "bus.key": "\(request.curveKey?.z85 ?? "-")", "bus.mechanism": "\(request.mechanism)",
                            ])
                    }
                    return verdict
                }
            }
            for monitor in monitors {
                group.addTask { [self] in
                    await monitor.run { event in
                        // ZAP refusals (`auth`) are logged with their key by the handler above.
                        guard case .handshakeFailed(let failure) = event.kind, failure != .auth else { return }
                        // libzmq names the gateway's endpoint here, not the peer's address.
                        refuse(
                            peer: event.endpoint, reason: "handshake",
                            detail:
                                "security handshake failed (\(failure.rawValue)): a peer without the bus's CURVE keys or with the wrong server key",
                            metadata: ["zmq.error": "\(event.value)"])
                    }
                }
            }
        }
    }

    func close() async {
        await zap.close()
        for monitor in monitors { await monitor.close() }
    }

    private func refuse(peer: String, reason: String, detail: String, metadata: Logger.Metadata) {
        Counter(label: MetricNames.busConnectionsRefused, dimensions: [("reason", reason)]).increment()
        let now = clock.nowMilliseconds
        guard let held = refusals.withLock({ $0.record("\(reason) \(peer)", at: now) }) else { return }
        var metadata = metadata
        metadata[reason == "handshake" ? "bus.endpoint" : "bus.peer"] = "\(peer)"
        metadata["bus.refusals.held_back"] = "\(held)"
        logger.warning("bus connection refused: \(detail)", metadata: metadata)
    }
}

/// Which refusals to log: the first of each peer and reason, then at most one every
/// ``interval`` with the number not logged since. Pure state, so it is tested without sockets.
struct RefusalLog {
    static let interval: Int64 = 10_000
    private var last: [String: (at: Int64, held: Int)] = [:]

    /// Records one refusal; returns how many were held back before it when it should be
    /// logged, nil when it should not.
    mutating func record(_ key: String, at now: Int64) -> Int? {
        if let previous = last[key], now - previous.at < Self.interval {
            last[key] = (previous.at, previous.held + 1)
            return nil
        }
        if last.count >= 10_000 { last.removeAll() }
        let held = last[key]?.held ?? 0
        last[key] = (now, 0)
        return held
    }
}
