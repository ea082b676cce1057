/// A friend request that changed state, as the auth service announces it on its durable stream
/// `auth` (its outbox, topic `friend/<toPlayerId>`): `auth.friend-requested` when `fromPlayerId`
/// asked `toPlayerId`, `auth.friend-accepted` when `fromPlayerId` accepted the request
/// `toPlayerId` had sent. The envelope's `gameId` is `gameId`, its `playerId` `fromPlayerId` and
/// its `correlationId` the id of the request that made the change.
public struct FriendRequestUpdate: Codable, Sendable, Equatable {
    /// The player who acted: who asked, or who accepted.
    public var fromPlayerId: String
    /// Their display name when they acted.
    public var fromDisplayName: String?
    /// The player the change is news for: who was asked, or whose request was accepted.
    public var toPlayerId: String
    /// The game the request came from (the request's `gameId`); nil when it named none.
    public var gameId: String?
    /// When the relation changed (ms since the epoch).
    public var time: Int64

    public init(fromPlayerId: String, fromDisplayName: String?, toPlayerId: String, gameId: String?, time: Int64) {
        self.fromPlayerId = fromPlayerId
        self.fromDisplayName = fromDisplayName
        self.toPlayerId = toPlayerId
        self.gameId = gameId
        self.time = time
    }
}
