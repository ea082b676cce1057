/// Who a forwarded request or a published event acts for, as the gateway established it.
///
/// Clients never send this; the gateway stamps it after checking the request's credential, and
/// services trust it (the internal bus is not reachable by clients).
public struct Actor: Codable, Sendable, Equatable {
    /// What kind of credential the request carried.
    public enum Kind: String, Codable, Sendable {
        /// No credential (register, login, refresh, health).
        case anonymous
        /// A player's session token.
        case player
        /// A game server's key for one game.
        case server
        /// The operator's admin key.
        case admin
        /// Another Podium service asking on its own behalf.
        case service
    }

    public var kind: Kind
    /// The authenticated player (kind `player`).
    public var playerId: String?
    /// The session the token belongs to (kind `player`).
    public var sessionId: String?
    /// The game a server key is for (kind `server`).
    public var gameId: String?
    /// The client's network address as libzmq reported it, when known.
    public var peer: String?
    /// The requesting service's name (kind `service`).
    public var service: String?

    public init(
        kind: Kind, playerId: String? = nil, sessionId: String? = nil, gameId: String? = nil, peer: String? = nil,
        service: String? = nil
    ) {
        self.kind = kind
        self.playerId = playerId
        self.sessionId = sessionId
        self.gameId = gameId
        self.peer = peer
        self.service = service
    }
}
