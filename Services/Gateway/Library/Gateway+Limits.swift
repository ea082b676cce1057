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

extension Gateway {
    /// Refuses a request its connection may not send now: over the connection's rate, or with
    /// too many of its requests already waiting on services. Checked before any credential, so
    /// that a flood costs no token verification and no question to the auth service.
    func checkConnectionLimits(_ connection: ClientConnection) throws(ErrorReply) {
        if let refusal = connectionRateRefusal(connection.key) { throw refusal }
        let waiting = pending.withLock { $0.inFlight(fromConnection: connection.key) }
        if waiting >= settings.maxInFlightPerConnection {
            Self.countRefusal(.inFlight)
            throw ErrorReply(
                code: .overloaded,
                message: "this connection has \(waiting) requests waiting for answers, the most allowed; wait for some replies")
        }
    }

    /// Takes one request from the connection's bucket; the refusal if it is empty. Messages that
    /// cannot be read pay too, so that a flood of garbage is refused like any other flood.
    func connectionRateRefusal(_ connection: ClientConnection.Key) -> ErrorReply? {
        let decision = rateLimits.withLock { $0.connections.admit(connection, now: clock.monotonicMilliseconds) }
        guard case .limited(let retryAfter) = decision else { return nil }
        Self.countRefusal(.connectionRate)
        return ErrorReply(
            code: .rateLimited,
            message: "this connection sends more than \(Self.format(settings.connectionRateLimit)); retry after \(retryAfter) ms",
            retryAfterMilliseconds: retryAfter)
    }

    /// Refuses a request over its player's rate. The player is the session's, or the one a game
    /// server key acts for (the two share one bucket); admin and anonymous requests have none (their connection's limit applies).
    func checkPlayerLimit(actor: Actor, playerId: String?) throws(ErrorReply) {
        let player: String?
        switch actor.kind {
        case .player: player = actor.playerId
        case .server: player = playerId
        default: player = nil
        }
        guard let player else { return }
        let decision = rateLimits.withLock { $0.players.admit(player, now: clock.monotonicMilliseconds) }
        if case .limited(let retryAfter) = decision {
            Self.countRefusal(.playerRate)
            throw ErrorReply(
                code: .rateLimited,
                message: "requests for this player exceed \(Self.format(settings.playerRateLimit)); retry after \(retryAfter) ms",
                retryAfterMilliseconds: retryAfter)
        }
    }

    private static func format(_ limit: RateLimit) -> String {
        "\(Self.number(limit.perSecond)) per second (bursts of \(Self.number(limit.burst)))"
    }

    private static func number(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }
}

/// A limit that refused a request or message (the `limit` label of `podium_limit_refusals_total`).
enum RefusingLimit: String, Sendable {
    case connectionRate = "connection_rate"
    case playerRate = "player_rate"
    case inFlight = "in_flight"
    case messageTooLarge = "message_too_large"
    case websocketBacklog = "websocket_backlog"
}

extension Gateway {
    static func countRefusal(_ limit: RefusingLimit) {
        Counter(label: MetricNames.limitRefusals, dimensions: [("limit", limit.rawValue)]).increment()
    }
}
