import ArgumentParser
import Foundation
import PodiumClient
import PodiumMessages

/// `podium publish`: sends test game events and prints each acknowledgement.
struct PublishCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "publish",
        abstract: "Publish game events and print each acknowledgement as a JSON line.",
        discussion: """
            Events come from the flags (--name, --value, --attribute), or from a JSON file (--file F, \
            or --file - for standard input): one object, an array, or one object per line, each \
            {"gameId", "playerId", "name", "value", "attributes"}. --count repeats them; --rate paces them. \
            Requests are pipelined on one connection. Exit status 1 if any event was rejected or unanswered.
            With the stored session the events are the logged-in player's and --player may be left out; \
            with --server-key or --admin-key every event needs a player (--player, or playerId in the file).
            """)

    @OptionGroup var gateway: GatewayOptions
    @OptionGroup var credentials: CredentialOptions

    @Option(name: .customLong("game"), help: "The game id (default for events that name none).")
    var gameId: String?

    @Option(
        name: .customLong("player"),
        help: "The player id (default for events that name none; implied by a player's session).")
    var playerId: String?

    @Option(help: "The event name, such as cactus.hit.")
    var name: String?

    @Option(help: "The event's value (an integer).")
    var value: Int64?

    @Option(name: .customLong("attribute"), help: "An attribute, key=value; repeatable.")
    var attributes: [String] = []

    @Option(help: "Read events from this JSON file, or - for standard input.")
    var file: String?

    @Option(help: "How many times to send the events.")
    var count: Int = 1

    @Option(help: "Events per second (default: as fast as acknowledgements allow).")
    var rate: Double?

    @Option(help: "Most requests in flight at once.")
    var window: Int = 256

    @Flag(help: "Do not print each acknowledgement, only the summary.")
    var quiet = false

    func validate() throws {
        guard count >= 1 else { throw ValidationError("--count must be at least 1") }
        guard window >= 1 else { throw ValidationError("--window must be at least 1") }
        if let rate, rate <= 0 { throw ValidationError("--rate must be positive") }
        if file == nil && name == nil { throw ValidationError("give --name or --file") }
        if file != nil && name != nil { throw ValidationError("give either --name or --file, not both") }
    }

    func run() throws {
        let template = try events()
        if try credentials.usesKey(), let index = template.firstIndex(where: { ($0.playerId ?? playerId) == nil }) {
            let which = template.count == 1 ? "the event" : "event \(index + 1)"
            throw CommandFailure(
                "\(which) names no player: a server or admin key acts for no player of its own; give --player")
        }
        let connection = try GatewayConnection(gateway)
        let credential = try credentials.credential(for: .eventPublish, connection: connection, gateway: gateway)
        let total = template.count * count
        let progress = ProgressLine(total: total)
        let started = Date()
        var sent = 0
        var inFlight = Set<String>()
        var acknowledged = 0
        var failed = 0
        var firstRejection: ReplyFailure?

        while sent < total || !inFlight.isEmpty {
            var waitMilliseconds = gateway.timeoutMilliseconds
            if sent < total && inFlight.count < window {
                let due = rate.map { started.addingTimeInterval(Double(sent) / $0) } ?? started
                let untilDue = due.timeIntervalSinceNow
                if untilDue <= 0 {
                    let outgoing = template[sent % template.count]
                    let request = try connection.client.request(
                        GatewayRequests.publish, outgoing.event, gameId: outgoing.gameId ?? gameId,
                        playerId: outgoing.playerId ?? playerId, credential: credential.client)
                    try connection.transport.send(request)
                    inFlight.insert(request.id)
                    sent += 1
                    continue
                }
                waitMilliseconds = max(1, Int(untilDue * 1000))
            }
            let wait = inFlight.isEmpty ? waitMilliseconds : min(waitMilliseconds, gateway.timeoutMilliseconds)
            guard let body = try connection.transport.receive(timeout: .milliseconds(wait)) else {
                if !inFlight.isEmpty && (sent == total || inFlight.count >= window) {
                    progress.finish()
                    complain("no acknowledgement within \(gateway.timeout) s for \(inFlight.count) event(s)")
                    throw ExitStatus.failure
                }
                continue
            }
            guard let reply = ReceivedReply(body: body), let id = reply.envelope.correlationId,
                inFlight.remove(id) != nil
            else {
                continue
            }
            if reply.isSuccess {
                acknowledged += 1
                if !quiet { emit(reply.text) }
            } else {
                failed += 1
                if firstRejection == nil { firstRejection = ReplyFailure(reply) }
                complain(reply.text)
            }
            progress.update(sent: sent, acknowledged: acknowledged, failed: failed)
        }
        progress.finish()
        let seconds = max(Date().timeIntervalSince(started), 0.000_001)
        if total > 1 {
            complain(
                "published \(acknowledged) of \(total) events in \(String(format: "%.2f", seconds)) s "
                    + "(\(Int(Double(acknowledged) / seconds))/s), \(failed) rejected")
        }
        if let firstRejection {
            throw CommandFailure("\(failed) of \(total) event(s) rejected; the first: \(firstRejection)")
        }
    }

    private func events() throws -> [OutgoingEvent] {
        if let file {
            let data: Data
            if file == "-" {
                data = FileHandle.standardInput.readDataToEndOfFile()
            } else {
                guard let contents = FileManager.default.contents(atPath: file) else {
                    throw ValidationError("cannot read \(file)")
                }
                data = contents
            }
            let parsed = try EventSource.parse(data)
            guard !parsed.isEmpty else { throw ValidationError("\(file) holds no events") }
            return parsed
        }
        var attributeValues: [String: JSONValue]?
        if !attributes.isEmpty {
            attributeValues = Dictionary(
                try attributes.map(EventSource.attribute), uniquingKeysWith: { _, last in last })
        }
        return [
            OutgoingEvent(
                gameId: nil, playerId: nil,
                event: GameEvent(name: name ?? "", value: value, attributes: attributeValues))
        ]
    }
}
