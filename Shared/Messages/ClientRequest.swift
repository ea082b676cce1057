/// A request as a client sends it to the gateway's request endpoint.
///
/// ```json
/// {"type": "event.publish", "id": "r-1", "gameId": "dash", "playerId": "p-1",
///  "payload": {"name": "cactus.hit", "value": 1}}
/// ```
public struct ClientRequest: Codable, Sendable, Equatable {
    /// What is asked (`event.publish`, `health`, `leaderboard.health`, …).
    public var type: MessageType
    /// The client's id for this request; the reply's `correlationId` repeats it.
    public var id: String
    /// Schema version the client writes; absent means 1.
    public var version: Int?
    public var gameId: String?
    public var playerId: String?
    /// Type-specific content; absent means `{}`.
    public var payload: JSONValue?
    /// A player's session token (from `auth.login` and friends).
    public var token: String?
    /// A game server's key for `gameId`.
    public var serverKey: String?
    /// The operator's admin key.
    public var adminKey: String?

    public init(
        type: MessageType, id: String, version: Int? = nil, gameId: String? = nil, playerId: String? = nil,
        payload: JSONValue? = nil, token: String? = nil, serverKey: String? = nil, adminKey: String? = nil
    ) {
        self.type = type
        self.id = id
        self.version = version
        self.gameId = gameId
        self.playerId = playerId
        self.payload = payload
        self.token = token
        self.serverKey = serverKey
        self.adminKey = adminKey
    }
}
