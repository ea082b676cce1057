import ArgumentParser
import Foundation
import PodiumMessages
import ZeroMQ

/// `podium subscribe`: prints a player's notifications as JSON lines as they arrive.
struct SubscribeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "subscribe",
        abstract: "Print a player's notifications (challenges and more) as JSON lines as they arrive.")

    @OptionGroup var gateway: GatewayOptions

    @Option(name: .customLong("game"), help: "The game id.")
    var gameId: String

    @Option(name: .customLong("player"), help: "The player whose notifications to watch.")
    var playerId: String

    @Option(help: "The gateway's notification endpoint (default: $PODIUM_NOTIFICATIONS or tcp://127.0.0.1:5556).")
    var notifications: String = ProcessInfo.processInfo.environment["PODIUM_NOTIFICATIONS"] ?? "tcp://127.0.0.1:5556"

    @Option(help: "Exit after this many notifications.")
    var count: Int?

    func validate() throws {
        if let count, count < 1 { throw ValidationError("--count must be at least 1") }
    }

    func run() throws {
        let connection = try GatewayConnection(endpoint: gateway.endpoint)
        let request = ClientRequest(
            type: .notificationsSubscribe, id: connection.nextRequestID(), gameId: gameId, playerId: playerId)
        guard let reply = try connection.call(request, timeoutMilliseconds: gateway.timeoutMilliseconds) else {
            complain("no reply from the gateway at \(gateway.endpoint)")
            throw ExitStatus.failure
        }
        guard reply.isSuccess, let subscription = try? reply.envelope?.decodePayload(as: NotificationSubscription.self)
        else {
            complain(reply.text)
            throw ExitStatus.failure
        }
        let subscriber = try connection.context.makeSocket(.subscriber)
        defer { subscriber.close() }
        try subscriber.set(.lingerMilliseconds(0))
        try subscriber.set(.subscribe(Data(subscription.topic.utf8)))
        try subscriber.connect(notifications)
        complain("subscribed to \(gameId)/\(playerId) on \(notifications)")
        var received = 0
        while count.map({ received < $0 }) ?? true {
            guard let frames = try subscriber.receive(), frames.count == 2 else { continue }
            emit(String(decoding: frames[1], as: UTF8.self))
            received += 1
        }
    }
}
