import PodiumMessages
import PodiumRuntime

/// Which message, if any, a change of the relation between two players is news of: a pure rule
/// on ``FriendRules``'s sides before and after, tested without a database. Only real changes are
/// news: a repeated request, a request or accept between friends, a decline, a removal, a block
/// or an unblock announce nothing.
public enum FriendNews: Sendable, Equatable {
    /// This side asked the other (`auth.friend-requested`, news for the other).
    case requested
    /// This side accepted the other's request (`auth.friend-accepted`, news for the other, who
    /// asked): by `auth.friends.accept`, or by asking back.
    case accepted

    /// The news of a change from `before` to `after` (``FriendRules/mine`` is the acting side).
    public init?(before: FriendRules, after: FriendRules) {
        switch (before.mine, after.mine, after.theirs) {
        case (.incomingRequest, .friends, .friends):
            self = .accepted
        case (let was, .outgoingRequest, .incomingRequest) where was != .outgoingRequest:
            self = .requested
        default:
            return nil
        }
    }

    /// The message's type on the bus.
    public var type: MessageType {
        switch self {
        case .requested: .friendRequested
        case .accepted: .friendAccepted
        }
    }

    /// The topic of news for `playerId`: `friend/<playerId>` (the `friend` family).
    public static func topic(for playerId: String) -> Topic { Topic(rawValue: "friend/\(playerId)") }

    /// Who acted and why, for the message: the request's game and id.
    public struct Cause: Sendable, Equatable {
        public var playerId: String
        public var displayName: String?
        public var gameId: String?
        public var requestId: String?

        public init(playerId: String, displayName: String?, gameId: String?, requestId: String?) {
            self.playerId = playerId
            self.displayName = displayName
            self.gameId = gameId
            self.requestId = requestId
        }
    }

    /// The outbox writes of a relation change from `cause.playerId`'s side with `other`: one
    /// message when the change is news, nothing otherwise. Given to
    /// ``AccountStore/updateRelation(_:_:requireBoth:now:announce:_:)``, which commits them with the
    /// relation.
    public static func writes(_ cause: Cause, other: String, now: Int64) -> RelationWrites {
        { before, after in
            var writes = DurableWrites()
            guard let news = FriendNews(before: before, after: after) else { return writes }
            let update = FriendRequestUpdate(
                fromPlayerId: cause.playerId, fromDisplayName: cause.displayName, toPlayerId: other,
                gameId: cause.gameId, time: now)
            try writes.appendToOutbox(
                Envelope(
                    type: news.type, correlationId: cause.requestId, gameId: cause.gameId, playerId: cause.playerId,
                    timestamp: now,
                    payload: update),
                on: topic(for: other))
            return writes
        }
    }
}
