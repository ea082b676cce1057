import ArgumentParser
import Foundation
import PodiumMessages
import ZeroMQ

/// `podium subscribe`: prints a player's notifications (or the operators') as JSON lines as they arrive.
struct SubscribeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "subscribe",
        abstract: "Print a player's notifications (challenges and more) as JSON lines as they arrive.",
        discussion: """
            With the stored session (or --token) these are the logged-in player's notifications in --game; \
            --player may repeat the player's id for clarity. With --admin-key and no --player, the operators' \
            notifications (--game is then optional).
            """)

    @OptionGroup var gateway: GatewayOptions
    @OptionGroup var credentials: CredentialOptions

    @Option(name: .customLong("game"), help: "The game id.")
    var gameId: String?

    @Option(
        name: .customLong("player"), help: "The player whose notifications to watch (implied by a player's session).")
    var playerId: String?

    @Option(help: "The gateway's notification endpoint (default: $PODIUM_NOTIFICATIONS or tcp://127.0.0.1:5556).")
    var notifications: String = ProcessInfo.processInfo.environment["PODIUM_NOTIFICATIONS"] ?? "tcp://127.0.0.1:5556"

    @Option(help: "Exit after this many notifications.")
    var count: Int?

    func validate() throws {
        if let count, count < 1 { throw ValidationError("--count must be at least 1") }
        let usesAdminKey = try credentials.explicitCredential()?.isAdmin ?? false
        if gameId == nil && !(usesAdminKey && playerId == nil) {
            throw ValidationError("give --game (only the operators' stream, --admin-key without --player, needs none)")
        }
    }

    func run() throws {
        let connection = try GatewayConnection(gateway)
        let credential = try credentials.credential(
            for: .notificationsSubscribe, connection: connection, gateway: gateway)
        let (subscription, _) = try connection.expectSuccess(
            GatewayRequests.subscribe, gameId: gameId, playerId: playerId, credential: credential)
        let subscriber = try connection.context.makeSocket(.subscriber)
        defer { subscriber.close() }
        try subscriber.set(.lingerMilliseconds(0))
        try subscriber.set(.subscribe(Data(subscription.topic.utf8)))
        for option in connection.curveOptions { try subscriber.set(option) }
        try subscriber.connect(notifications)
        complain("subscribed to \(subscription.gameId)/\(subscription.playerId) on \(notifications)")
        var received = 0
        while count.map({ received < $0 }) ?? true {
            guard let frames = try subscriber.receive(), frames.count == 2 else { continue }
            emit(String(decoding: frames[1], as: UTF8.self))
            received += 1
        }
    }
}
