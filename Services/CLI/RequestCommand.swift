import ArgumentParser
import Foundation
import PodiumClient
import PodiumMessages

/// `podium request`: sends any request and prints the reply.
struct RequestCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "request",
        abstract: "Send one request and print the reply as JSON.",
        discussion: """
            Either build the request from --type/--game/--player/--payload, or pass a whole request \
            as the argument; it is sent byte for byte (useful to see how the gateway rejects bad input), \
            without adding any credential.
            A built request carries the stored session (refreshed if it has expired), or the credential \
            given with --token, --server-key or --admin-key; the public types (auth.register, auth.login, \
            auth.device-login, auth.refresh, health, <service>.health) never get the stored session.
            Exit status: 0 for a reply, 1 for an error reply or no reply in time.
            """)

    @OptionGroup var gateway: GatewayOptions
    @OptionGroup var credentials: CredentialOptions

    @Option(help: "The request type, such as leaderboard.health.")
    var type: String?

    @Option(name: .customLong("game"), help: "The game id.")
    var gameId: String?

    @Option(name: .customLong("player"), help: "The player id.")
    var playerId: String?

    @Option(help: "The payload, a JSON object.")
    var payload: String?

    @Argument(help: "A whole request to send verbatim instead.")
    var raw: String?

    func validate() throws {
        if raw == nil && type == nil { throw ValidationError("give --type or a whole request as the argument") }
        if raw != nil && (type != nil || payload != nil) {
            throw ValidationError("give either a whole request or --type/--payload, not both")
        }
        if raw != nil && (credentials.token != nil || credentials.serverKey != nil || credentials.adminKey != nil) {
            throw ValidationError("a whole request is sent verbatim: put its credential in the JSON")
        }
    }

    func run() throws {
        let connection = try GatewayConnection(gateway)
        let body: Data?
        if let raw {
            try connection.transport.sendRaw(Data(raw.utf8))
            body = try connection.transport.receive(timeout: gateway.replyTimeout)
        } else {
            var payloadValue: JSONValue?
            if let payload {
                guard let parsed = try? WireCodec.decode(JSONValue.self, from: Data(payload.utf8)),
                    parsed.objectValue != nil
                else { throw ValidationError("--payload must be a JSON object") }
                payloadValue = parsed
            }
            guard let type else { throw CommandFailure("give --type or a whole request as the argument") }
            // Any type, with the payload as the user wrote it: the one request the command does
            // not build from a definition (`podium request` exists to send what they do not).
            let requestType = MessageType(type)
            let credential = try credentials.credential(for: requestType, connection: connection, gateway: gateway)
            var request = ClientRequest(
                type: requestType, id: connection.client.nextID(), gameId: gameId, playerId: playerId,
                payload: payloadValue)
            credential.client.apply(to: &request)
            body = try connection.transport.exchange(request, timeout: gateway.replyTimeout)?.body
        }
        guard let body else { throw CommandFailure.noReply(from: gateway.endpoint, within: gateway.timeout) }
        let text = String(decoding: body, as: UTF8.self)
        let envelope = try? WireCodec.decode(RawEnvelope.self, from: body)
        emit(text)
        if envelope?.type != .reply { throw ReplyFailure(text: text, envelope: envelope) }
    }
}
