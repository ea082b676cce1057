import ArgumentParser
import PodiumMessages

/// A friends subcommand that changes the relation with one other player and prints the new state.
protocol FriendChange: ParsableCommand {
    /// The request type, such as `auth.friends.request`.
    static var requestType: MessageType { get }
    var options: FriendsOptions { get }
    var playerId: String { get }
}

extension FriendChange {
    func run() throws {
        let gateway = options.gateway
        let connection = try GatewayConnection(gateway)
        let credential = try options.credentials.credential(for: Self.requestType, connection: connection, gateway: gateway)
        let request = credential.applied(
            to: ClientRequest(
                type: Self.requestType, id: connection.nextRequestID(), gameId: options.gameId,
                payload: try WireCodec.jsonValue(FriendTarget(playerId: playerId))))
        let (relation, reply) = try connection.expectSuccess(request, as: FriendRelation.self, gateway: gateway)
        emit(options.json ? reply.text : "\(relation.playerId)  \(relation.state.rawValue)")
    }
}

/// `podium friends request <playerId>`.
struct FriendRequestCommand: FriendChange {
    static let configuration = CommandConfiguration(commandName: "request", abstract: "Ask a player to be friends.")
    static let requestType: MessageType = "auth.friends.request"
    @OptionGroup var options: FriendsOptions
    @Argument(help: "The other player's id.") var playerId: String
}

/// `podium friends accept <playerId>`.
struct FriendAcceptCommand: FriendChange {
    static let configuration = CommandConfiguration(commandName: "accept", abstract: "Accept a player's friend request.")
    static let requestType: MessageType = "auth.friends.accept"
    @OptionGroup var options: FriendsOptions
    @Argument(help: "The player who asked.") var playerId: String
}

/// `podium friends decline <playerId>`.
struct FriendDeclineCommand: FriendChange {
    static let configuration = CommandConfiguration(commandName: "decline", abstract: "Decline a player's friend request.")
    static let requestType: MessageType = "auth.friends.decline"
    @OptionGroup var options: FriendsOptions
    @Argument(help: "The player who asked.") var playerId: String
}

/// `podium friends remove <playerId>`.
struct FriendRemoveCommand: FriendChange {
    static let configuration = CommandConfiguration(
        commandName: "remove", abstract: "Stop being friends, or withdraw a friend request.")
    static let requestType: MessageType = "auth.friends.remove"
    @OptionGroup var options: FriendsOptions
    @Argument(help: "The other player's id.") var playerId: String
}

/// `podium friends block <playerId>`.
struct FriendBlockCommand: FriendChange {
    static let configuration = CommandConfiguration(
        commandName: "block", abstract: "Block a player; ends any friendship or request between you.")
    static let requestType: MessageType = "auth.friends.block"
    @OptionGroup var options: FriendsOptions
    @Argument(help: "The player to block.") var playerId: String
}

/// `podium friends unblock <playerId>`.
struct FriendUnblockCommand: FriendChange {
    static let configuration = CommandConfiguration(commandName: "unblock", abstract: "Unblock a player.")
    static let requestType: MessageType = "auth.friends.unblock"
    @OptionGroup var options: FriendsOptions
    @Argument(help: "The player to unblock.") var playerId: String
}
