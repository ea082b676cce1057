/// The other player of a friends request (`auth.friends.request`, `.accept`, `.decline`,
/// `.remove`, `.block`, `.unblock`).
public struct FriendTarget: Codable, Sendable, Equatable {
    public var playerId: String

    public init(playerId: String) { self.playerId = playerId }
}

/// Where two players stand with each other, from one side.
public enum FriendState: String, Codable, Sendable {
    /// Friends both ways.
    case friends
    /// This player asked; waiting for the other.
    case outgoingRequest = "outgoing_request"
    /// The other player asked; waiting for this one.
    case incomingRequest = "incoming_request"
    /// This player blocked the other.
    case blocked
    /// Nothing between them.
    case none
}

/// The reply to the friends commands: the relation after the change.
public struct FriendRelation: Codable, Sendable, Equatable {
    public var playerId: String
    public var state: FriendState

    public init(playerId: String, state: FriendState) {
        self.playerId = playerId
        self.state = state
    }
}

/// The reply to `auth.friends.list`.
public struct FriendList: Codable, Sendable, Equatable {
    public var friends: [PublicProfile]
    /// Requests other players sent this one.
    public var incoming: [PublicProfile]
    /// Requests this player sent.
    public var outgoing: [PublicProfile]
    public var blocked: [PublicProfile]

    public init(
        friends: [PublicProfile], incoming: [PublicProfile], outgoing: [PublicProfile], blocked: [PublicProfile]
    ) {
        self.friends = friends
        self.incoming = incoming
        self.outgoing = outgoing
        self.blocked = blocked
    }
}

/// `auth.friends.check` (services): are two players friends, and has either blocked the other?
public struct FriendshipQuery: Codable, Sendable, Equatable {
    public var playerId: String
    public var otherPlayerId: String

    public init(playerId: String, otherPlayerId: String) {
        self.playerId = playerId
        self.otherPlayerId = otherPlayerId
    }
}

/// The reply to `auth.friends.check`.
public struct Friendship: Codable, Sendable, Equatable {
    public var friends: Bool
    /// Either player blocked the other.
    public var blocked: Bool

    public init(friends: Bool, blocked: Bool) {
        self.friends = friends
        self.blocked = blocked
    }
}

/// `auth.friends.of` (services): a player's friends' ids.
public struct FriendsOfQuery: Codable, Sendable, Equatable {
    public var playerId: String

    public init(playerId: String) { self.playerId = playerId }
}

/// The reply to `auth.friends.of`.
public struct FriendIDs: Codable, Sendable, Equatable {
    public var playerId: String
    public var friendIds: [String]

    public init(playerId: String, friendIds: [String]) {
        self.playerId = playerId
        self.friendIds = friendIds
    }
}
