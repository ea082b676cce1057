import PodiumMessages

/// What one call puts on the envelope besides its payload, and how long it waits.
///
/// Every member is optional: the client's own defaults fill what is not given (its credential, a
/// fresh request id, its timeout).
public struct RequestOptions: Sendable {
    /// The game the request concerns.
    public var gameId: String?
    /// The player the request concerns (needed with a server or admin key for a player's request).
    public var playerId: String?
    /// An explicit request id, to resend a request: ids of state-changing requests are idempotency
    /// keys (docs/RELIABILITY.md), so a resend with the same id gets the first answer again.
    /// Nil: a fresh id, unique to this client.
    public var id: String?
    /// The credential for this call instead of the client's.
    public var credential: ClientCredential?
    /// How long to wait for the reply instead of the client's timeout.
    public var timeout: Duration?

    public init(
        gameId: String? = nil, playerId: String? = nil, id: String? = nil, credential: ClientCredential? = nil,
        timeout: Duration? = nil
    ) {
        self.gameId = gameId
        self.playerId = playerId
        self.id = id
        self.credential = credential
        self.timeout = timeout
    }
}
