import ArgumentParser

/// `podium friends`: the logged-in player's friends, requests and blocks.
struct FriendsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "friends",
        abstract: "List and change the logged-in player's friends.",
        subcommands: [
            FriendListCommand.self, FriendRequestCommand.self, FriendAcceptCommand.self, FriendDeclineCommand.self,
            FriendRemoveCommand.self, FriendBlockCommand.self, FriendUnblockCommand.self, FriendInviteCommand.self,
            FriendInvitesCommand.self, FriendRedeemCommand.self, FriendRevokeInviteCommand.self,
        ])
}

/// The options every friends subcommand shares.
struct FriendsOptions: ParsableArguments {
    @OptionGroup var gateway: GatewayOptions
    @OptionGroup var credentials: CredentialOptions

    @Option(
        name: .customLong("game"),
        help:
            "The game it is sent from: a friend request or accept reaches the other player's inbox of that game (none without it)."
    )
    var gameId: String?

    @Flag(help: "Print the raw JSON reply instead.")
    var json = false
}
