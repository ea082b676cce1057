import ArgumentParser
import PodiumMessages

/// A friends subcommand that changes the relation with one other player and prints the new state.
protocol FriendChange: ParsableCommand {
    /// The request type, such as `auth.friends.request`.
    static var request: RequestDefinition<FriendTarget, FriendRelation> { get }
    var options: FriendsOptions { get }
    var playerId: String { get }
}

extension FriendChange {
    func run() throws {
        let gateway = options.gateway
        let connection = try GatewayConnection(gateway)
        let credential = try options.credentials.credential(
            for: Self.request.type, connection: connection, gateway: gateway)
        let (relation, reply) = try connection.expectSuccess(
            Self.request, FriendTarget(playerId: playerId), gameId: options.gameId, credential: credential)
        emit(options.json ? reply.text : "\(relation.playerId)  \(relation.state.rawValue)")
    }
}

/// `podium friends request <playerId>`.
struct FriendRequestCommand: FriendChange {
    static let configuration = CommandConfiguration(commandName: "request", abstract: "Ask a player to be friends.")
    static let request = AuthRequests.friendRequest
    @OptionGroup var options: FriendsOptions
    @Argument(help: "The other player's id.") var playerId: String
}

/// `podium friends accept <playerId>`.
struct FriendAcceptCommand: FriendChange {
    static let configuration = CommandConfiguration(
        commandName: "accept", abstract: "Accept a player's friend request.")
    static let request = AuthRequests.friendAccept
    @OptionGroup var options: FriendsOptions
    @Argument(help: "The player who asked.") var playerId: String
}

/// `podium friends decline <playerId>`.
struct FriendDeclineCommand: FriendChange {
    static let configuration = CommandConfiguration(
        commandName: "decline", abstract: "Decline a player's friend request.")
    static let request = AuthRequests.friendDecline
    @OptionGroup var options: FriendsOptions
    @Argument(help: "The player who asked.") var playerId: String
}

/// `podium friends remove <playerId>`.
struct FriendRemoveCommand: FriendChange {
    static let configuration = CommandConfiguration(
        commandName: "remove", abstract: "Stop being friends, or withdraw a friend request.")
    static let request = AuthRequests.friendRemove
    @OptionGroup var options: FriendsOptions
    @Argument(help: "The other player's id.") var playerId: String
}

/// `podium friends block <playerId>`.
struct FriendBlockCommand: FriendChange {
    static let configuration = CommandConfiguration(
        commandName: "block", abstract: "Block a player; ends any friendship or request between you.")
    static let request = AuthRequests.friendBlock
    @OptionGroup var options: FriendsOptions
    @Argument(help: "The player to block.") var playerId: String
}

/// `podium friends unblock <playerId>`.
struct FriendUnblockCommand: FriendChange {
    static let configuration = CommandConfiguration(commandName: "unblock", abstract: "Unblock a player.")
    static let request = AuthRequests.friendUnblock
    @OptionGroup var options: FriendsOptions
    @Argument(help: "The player to unblock.") var playerId: String
}
