import ArgumentParser
import PodiumMessages

/// `podium friends list`: friends, requests both ways, and blocked players.
struct FriendListCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list", abstract: "Show friends, friend requests and blocked players (auth.friends.list).")

    @OptionGroup var options: FriendsOptions

    func run() throws {
        let gateway = options.gateway
        let connection = try GatewayConnection(gateway)
        let definition = AuthRequests.friendList
        let credential = try options.credentials.credential(
            for: definition.type, connection: connection, gateway: gateway)
        let (list, reply) = try connection.expectSuccess(definition, credential: credential)
        if options.json {
            emit(reply.text)
            return
        }
        let sections = [
            ("friends", list.friends), ("incoming requests", list.incoming), ("outgoing requests", list.outgoing),
            ("blocked", list.blocked),
        ]
        var lines: [String] = []
        for (title, players) in sections {
            lines.append("\(title) (\(players.count))")
            lines += players.map { "  \($0.playerId)  \($0.displayName)" }
        }
        emit(lines.joined(separator: "\n"))
    }
}
