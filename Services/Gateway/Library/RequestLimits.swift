import Foundation
import Metrics
import PodiumMessages
import PodiumRuntime

/// The request rate limits the gateway keeps: one token bucket per connection and one per player.
struct ClientRateLimits: Sendable {
    var connections: RateLimiter<ClientConnection.Key>
    var players: RateLimiter<String>

    init(settings: GatewaySettings) {
        connections = RateLimiter(limit: settings.connectionRateLimit, capacity: GatewaySettings.rateLimitTrackedKeys)
        players = RateLimiter(limit: settings.playerRateLimit, capacity: GatewaySettings.rateLimitTrackedKeys)
    }
}

/// The gateway's request limits, checked by the pipeline before a request costs anything: the
/// rate of each connection and of each player (``ClientRateLimits``), and each connection's share
/// of the requests waiting on services (``ServiceRouter``). Refusals are counted in
/// `podium_limit_refusals_total`.
final class RequestLimits: Sendable {
    private let rates: Locked<ClientRateLimits>
    /// Requests admitted per player since the last exchange with the other gateways
    /// (``RateSharing``); nil when the gateway shares nothing (one gateway, SQLite files).
    private let admittedPlayers = Locked<[String: Int]?>(nil)
    private let connectionRate: RateLimit
    private let playerRate: RateLimit
    private let maxInFlightPerConnection: Int
    /// Where the requests waiting on services are counted.
    private let router: ServiceRouter
    private let clock: any PodiumClock

    init(settings: GatewaySettings, router: ServiceRouter, clock: any PodiumClock) {
        rates = Locked(ClientRateLimits(settings: settings))
        connectionRate = settings.connectionRateLimit
        playerRate = settings.playerRateLimit
        maxInFlightPerConnection = settings.maxInFlightPerConnection
        self.router = router
        self.clock = clock
    }

    /// Starts counting what each player is admitted, for the exchanges with the other gateways.
    func shareWithOtherGateways() { admittedPlayers.withLock { $0 = $0 ?? [:] } }

    /// What each player was admitted since the last call (and counting starts again).
    func takeAdmittedPlayers() -> [String: Int] {
        admittedPlayers.withLock { counts in
            defer { if counts != nil { counts = [:] } }
            return counts ?? [:]
        }
    }

    /// Counts that an exchange could not share go back, for the next one.
    func returnAdmittedPlayers(_ returned: [String: Int]) {
        admittedPlayers.withLock { counts in
            guard counts != nil else { return }
            counts!.merge(returned, uniquingKeysWith: +)
        }
    }

    /// Takes from the players' buckets what the other gateways admitted.
    func consumeShared(_ others: [String: Int]) {
        guard !others.isEmpty else { return }
        let now = clock.monotonicMilliseconds
        rates.withLock { rates in
            for (player, count) in others { rates.players.consume(player, count: Double(count), now: now) }
        }
    }

    /// Refuses a request its connection may not send now: over the connection's rate, or with
    /// too many of its requests already waiting on services. Checked before any credential, so
    /// that a flood costs no token verification and no question to the auth service.
    func checkConnection(_ connection: ClientConnection) throws(ErrorReply) {
        if let refusal = connectionRateRefusal(connection.key) { throw refusal }
        let waiting = router.inFlight(fromConnection: connection.key)
        if waiting >= maxInFlightPerConnection {
            Self.countRefusal(.inFlight)
            throw ErrorReply(
                code: .overloaded,
                message:
                    "this connection has \(waiting) requests waiting for answers, the most allowed; wait for some replies"
            )
        }
    }

    /// Takes one request from the connection's bucket; the refusal if it is empty. Messages that
    /// cannot be read pay too, so that a flood of garbage is refused like any other flood.
    func connectionRateRefusal(_ connection: ClientConnection.Key) -> ErrorReply? {
        let decision = rates.withLock { $0.connections.admit(connection, now: clock.monotonicMilliseconds) }
        guard case .limited(let retryAfter) = decision else { return nil }
        Self.countRefusal(.connectionRate)
        return ErrorReply(
            code: .rateLimited,
            message: "this connection sends more than \(Self.format(connectionRate)); retry after \(retryAfter) ms",
            retryAfterMilliseconds: retryAfter)
    }

    /// Refuses a request over its player's rate. The player is the session's, or the one a game
    /// server key acts for (the two share one bucket); admin and anonymous requests have none (their connection's limit applies).
    func checkPlayer(actor: Actor, playerId: String?) throws(ErrorReply) {
        let player: String?
        switch actor.kind {
        case .player: player = actor.playerId
        case .server: player = playerId
        default: player = nil
        }
        guard let player else { return }
        let decision = rates.withLock { $0.players.admit(player, now: clock.monotonicMilliseconds) }
        if decision == .allowed {
            admittedPlayers.withLock { counts in
                if counts != nil { counts![player, default: 0] += 1 }
            }
        }
        if case .limited(let retryAfter) = decision {
            Self.countRefusal(.playerRate)
            throw ErrorReply(
                code: .rateLimited,
                message: "requests for this player exceed \(Self.format(playerRate)); retry after \(retryAfter) ms",
                retryAfterMilliseconds: retryAfter)
        }
    }

    private static func format(_ limit: RateLimit) -> String {
        "\(Self.number(limit.perSecond)) per second (bursts of \(Self.number(limit.burst)))"
    }

    private static func number(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }

    /// Counts one refusal in `podium_limit_refusals_total`.
    static func countRefusal(_ limit: RefusingLimit) {
        Counter(label: MetricNames.limitRefusals, dimensions: [("limit", limit.rawValue)]).increment()
    }
}

/// A limit that refused a request or message (the `limit` label of `podium_limit_refusals_total`).
enum RefusingLimit: String, Sendable {
    case connectionRate = "connection_rate"
    case playerRate = "player_rate"
    case inFlight = "in_flight"
    case messageTooLarge = "message_too_large"
    case websocketBacklog = "websocket_backlog"
    /// An HTTP request head too large or with too many fields (431).
    case requestHead = "request_head"
    /// An HTTP request head that did not complete in time (408).
    case requestHeadTimeout = "request_head_timeout"
}
