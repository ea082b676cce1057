import Logging
import PodiumRuntime

/// Where the gateways of a deployment share what they admitted per player (PostgreSQL), so that
/// a player's rate limit holds for the deployment and not per gateway (docs/SECURITY.md 3.3).
///
/// Each gateway takes its own tokens at once and, every ``RateSharing/interval``, adds what it
/// admitted to the shared table and takes from its own buckets what the others admitted since
/// its last exchange: every request anywhere costs a token in every gateway's bucket, a fraction
/// of a second late.
public protocol SharedRateUsage: Sendable {
    /// Adds `admitted` (player → requests) for `gateway`, and returns what the other gateways
    /// added after `after` (an id from an earlier exchange; nil: from now on) with the id to pass
    /// next time. One transaction; rows older than `forgetBefore` (ms) are deleted.
    func exchange(gateway: String, admitted: [String: Int], after: Int64?, now: Int64, forgetBefore: Int64)
        async throws -> (others: [String: Int], last: Int64)
}

/// The loop that exchanges the gateway's admitted requests with the other gateways' (a part of
/// the gateway; on PostgreSQL only). A failed exchange is logged and the counts wait for the
/// next one: meanwhile each gateway limits what it sees itself.
struct RateSharing: Sendable {
    let usage: any SharedRateUsage
    let limits: RequestLimits
    let gateway: String
    let clock: any PodiumClock
    /// How often the gateways exchange their counts.
    static let interval = Duration.milliseconds(250)
    /// How long shared rows are kept, ms.
    static let kept: Int64 = 60_000

    func run(logger: Logger) async {
        var last: Int64?
        var failing = false
        while !Task.isCancelled {
            let admitted = limits.takeAdmittedPlayers()
            do {
                let now = clock.nowMilliseconds
                let (others, next) = try await usage.exchange(
                    gateway: gateway, admitted: admitted, after: last, now: now, forgetBefore: now - Self.kept)
                last = next
                limits.consumeShared(others)
                if failing {
                    failing = false
                    logger.notice("player rate counts shared again with the other gateways")
                }
            } catch {
                // Not counted anywhere else: put them back for the next exchange.
                limits.returnAdmittedPlayers(admitted)
                if !failing {
                    failing = true
                    logger.warning(
                        "player rate counts not shared with the other gateways; each limits what it sees until this recovers",
                        metadata: ["error": "\(error)"])
                }
            }
            try? await clock.sleep(for: Self.interval)
        }
    }
}
