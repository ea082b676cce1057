import PodiumMessages

/// The relation between two players, both sides of it, and the rules that change it: a pure
/// value, tested without a database. A store loads both sides, lets one of these methods change
/// them, and writes back both sides in the same transaction.
///
/// States per side: `none`, `outgoing_request` (this side asked), `incoming_request` (the other
/// side asked), `friends`, `blocked` (this side blocked the other). Blocking is one-sided; it
/// ends a friendship or request from both sides.
public struct FriendRules: Sendable, Equatable {
    /// This player's side.
    public var mine: FriendState
    /// The other player's side.
    public var theirs: FriendState

    public init(mine: FriendState = .none, theirs: FriendState = .none) {
        self.mine = mine
        self.theirs = theirs
    }

    /// Either side blocked the other.
    public var isBlocked: Bool { mine == .blocked || theirs == .blocked }

    /// Sends a request, or accepts the other's pending one; repeats change nothing.
    public mutating func request() throws -> FriendState {
        if isBlocked { throw ErrorReply(code: .forbidden, message: "one of you has blocked the other") }
        switch mine {
        case .friends, .outgoingRequest:
            break
        case .incomingRequest:
            (mine, theirs) = (.friends, .friends)
        case .none, .blocked:
            (mine, theirs) = (.outgoingRequest, .incomingRequest)
        }
        return mine
    }

    /// Accepts the other's request (already friends: nothing changes).
    public mutating func accept() throws -> FriendState {
        switch mine {
        case .friends:
            return .friends
        case .incomingRequest:
            (mine, theirs) = (.friends, .friends)
            return .friends
        default:
            throw Self.noRequest
        }
    }

    /// Declines the other's request: nothing between them afterwards.
    public mutating func decline() throws -> FriendState {
        guard mine == .incomingRequest else { throw Self.noRequest }
        (mine, theirs) = (.none, .none)
        return .none
    }

    /// Ends a friendship or withdraws this side's request; a block stays.
    public mutating func remove() -> FriendState {
        switch mine {
        case .friends, .outgoingRequest:
            (mine, theirs) = (.none, .none)
            return .none
        default:
            return mine
        }
    }

    /// Blocks the other: ends the friendship and any request, from both sides (a block of theirs stays).
    public mutating func block() -> FriendState {
        mine = .blocked
        if theirs != .blocked { theirs = .none }
        return .blocked
    }

    /// Lifts this side's block.
    public mutating func unblock() -> FriendState {
        if mine == .blocked { mine = .none }
        return mine
    }

    static let noRequest = ErrorReply(
        code: .conflict, message: "there is no friend request from this player", field: "payload.playerId")
}
