import Foundation
import HummingbirdWebSocket
import Logging
import PodiumMessages
import PodiumRuntime

/// One WebSocket on `/v1/socket`: text messages carry protocol requests (section 4 of
/// docs/PROTOCOL.md) through the gateway's pipeline, their replies come back on the socket
/// (matched by id, pipelined), and after a `socket.hello` the player's own notifications are
/// pushed as they happen.
///
/// - `socket.hello` (handled here, not by the pipeline): `{"type": "socket.hello", "id", "token"
///   (or "adminKey"), "payload": {"games": [gameId, …]}}`. Each game is checked as a
///   `notifications.subscribe` request with that credential, so only the credential's own
///   notifications are ever pushed. From then on, requests without a credential carry the
///   hello's. A later hello replaces the earlier one.
/// - Outgoing messages wait in a bounded queue; a client that does not read and lets more than
///   ``maxQueued`` pile up is closed with 1008 (policy violation).
struct WebSocketSession: Sendable {
    let pipeline: any RequestPipeline
    /// Where the socket listens to notification topics and is counted.
    let sockets: WebSocketHub
    let envelopes: Envelopes
    /// Largest message read (`PODIUM_MAX_MESSAGE_BYTES`).
    let maxMessageBytes: Int
    let key: ClientConnection.Key
    let peer: String?
    let logger: Logger

    /// Replies and notifications one socket may have waiting to be written.
    static let maxQueued = 1000
    static let helloType = "socket.hello"
    /// At most this many games in one hello.
    static let maxGames = 20

    /// State shared by the reader, the writer and the notification listeners.
    private final class Shared: Sendable {
        let credential = Locked<JSONValue?>(nil)
        let overflowed = Locked(false)
        /// Set when the gateway ends the socket (its session expired or was revoked).
        let ending = Locked<SocketEnd?>(nil)
        let listenerID = UUID()
    }

    /// Serves the socket until it closes. Throws what ended the reading (a message too large, text
    /// that is not UTF-8), so that the socket is closed with the code that says so.
    func run(inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter) async throws {
        let (queue, queued) = AsyncStream<Data>.makeStream(bufferingPolicy: .bufferingOldest(Self.maxQueued))
        let shared = Shared()
        let send: @Sendable (Data) -> Void = { message in
            if case .dropped = queued.yield(message) {
                shared.overflowed.withLock { $0 = true }
                queued.finish()
            }
        }
        let end: @Sendable (SocketEnd) -> Void = { reason in
            shared.ending.withLock { $0 = $0 ?? reason }
            queued.finish()
        }
        let connection = ClientConnection(
            key: key, peer: peer, deliver: { reply in send(Envelopes.encode(reply)) }, deliverEncoded: { send($0) })
        logger.debug("websocket opened", metadata: ["peer": "\(peer ?? "-")"])
        sockets.opened()
        let readError: (any Error)? = await withTaskGroup(of: Void.self) { group in
            // The writer: everything queued, in order, until the queue ends.
            group.addTask {
                for await message in queue {
                    do {
                        try await outbound.writeTextMessage(String(decoding: message, as: UTF8.self))
                    } catch {
                        return
                    }
                }
                if shared.overflowed.value {
                    RequestLimits.countRefusal(.websocketBacklog)
                    logger.warning("websocket closed: the client does not read", metadata: ["peer": "\(peer ?? "-")"])
                    try? await outbound.close(
                        .policyViolation, reason: "more than \(Self.maxQueued) messages waiting: read faster")
                } else if let ending = shared.ending.value {
                    logger.info(
                        "websocket closed by the gateway", metadata: ["reason": "\(ending)", "peer": "\(peer ?? "-")"])
                    try? await outbound.close(.unknown(ending.code), reason: ending.reason)
                }
            }
            // The reader: one message at a time, so a socket's requests enter the pipeline in order.
            do {
                for try await message in inbound.messages(maxSize: maxMessageBytes) {
                    switch message {
                    case .text(let text):
                        await receive(Data(text.utf8), connection: connection, shared: shared, send: send, end: end)
                    case .binary:
                        send(
                            errorEnvelope(
                                ErrorReply(code: .invalidShape, message: "send requests as text messages of JSON"),
                                id: nil))
                    }
                }
            } catch {
                logger.debug("websocket read ended", metadata: ["error": "\(error)"])
                queued.finish()
                return error
            }
            queued.finish()
            return nil
        }
        sockets.closed(shared.listenerID)
        logger.debug("websocket closed", metadata: ["peer": "\(peer ?? "-")"])
        if let readError { throw readError }
    }

    private func receive(
        _ body: Data, connection: ClientConnection, shared: Shared, send: @escaping @Sendable (Data) -> Void,
        end: @escaping @Sendable (SocketEnd) -> Void
    ) async {
        // A hello is the socket's own; a request without a credential gets the hello's. Anything
        // else goes to the pipeline as it came, which answers every problem with it.
        let request = Self.object(body)
        if let request, request["type"]?.stringValue == Self.helloType {
            await hello(request, shared: shared, send: send, end: end)
            return
        }
        guard var request else {
            await pipeline.handle(body, from: connection)
            return
        }
        if request["token"] == nil, request["serverKey"] == nil, request["adminKey"] == nil,
            case .object(let credential)? = shared.credential.value
        {
            request.merge(credential) { current, _ in current }
        }
        await pipeline.handle(.object(request), from: connection)
    }

    /// Checks the credential for every game with `notifications.subscribe`, then listens to the
    /// topics the gateway gave and keeps the credential for later requests.
    private func hello(
        _ request: [String: JSONValue], shared: Shared, send: @escaping @Sendable (Data) -> Void,
        end: @escaping @Sendable (SocketEnd) -> Void
    ) async {
        let id = request["id"]?.stringValue
        guard let id, Identifiers.isValidRequestID(id) else {
            send(
                errorEnvelope(
                    ErrorReply(code: .invalidField, message: "socket.hello needs a valid id", field: "id"), id: nil))
            return
        }
        var credential: [String: JSONValue] = [:]
        for name in ["token", "adminKey"] {
            if let value = request[name] { credential[name] = value }
        }
        guard credential.count == 1 else {
            send(
                errorEnvelope(
                    ErrorReply(
                        code: .unauthenticated, message: "socket.hello needs one credential: token or adminKey",
                        field: "token"),
                    id: id))
            return
        }
        guard case .object(let payload)? = request["payload"], case .array(let games)? = payload["games"],
            (1...Self.maxGames).contains(games.count)
        else {
            send(
                errorEnvelope(
                    ErrorReply(
                        code: .missingField, message: "socket.hello needs payload.games: 1-\(Self.maxGames) game ids",
                        field: "payload.games"),
                    id: id))
            return
        }
        var topics: [String] = []
        var subscriptions: [JSONValue] = []
        for (index, game) in games.enumerated() {
            var subscribe = credential
            subscribe["type"] = .string("notifications.subscribe")
            subscribe["id"] = .string("\(id.prefix(100))/\(index)")
            subscribe["gameId"] = game
            let envelope = await pipeline.call(.object(subscribe), from: key, peer: peer)
            if envelope.type == .error {
                var error =
                    (try? envelope.decodePayload(as: ErrorReply.self))
                    ?? ErrorReply(code: .internalError, message: "the subscription could not be checked")
                if error.field == "gameId" { error.field = "payload.games.\(index)" }
                send(errorEnvelope(error, id: id))
                return
            }
            guard let topic = envelope.payload["topic"]?.stringValue else { return }
            topics.append(topic)
            subscriptions.append(envelope.payload)
        }
        // The socket listens while the hello's session lasts (the pipeline has just accepted its token).
        await sockets.listen(
            shared.listenerID, topics: topics, token: credential["token"]?.stringValue, deliver: send, end: end)
        shared.credential.withLock { $0 = .object(credential) }
        send(Envelopes.encode(envelopes.reply(.object(["subscriptions": .array(subscriptions)]), correlationId: id)))
    }

    private func errorEnvelope(_ error: ErrorReply, id: String?) -> Data {
        Envelopes.encode(envelopes.error(error, correlationId: id))
    }

    private static func object(_ body: Data) -> [String: JSONValue]? {
        guard body.count <= 1 << 20, JSONNesting.scan(body).depth <= JSONNesting.maximumDepth,
            case .object(let members)? = try? JSONParser.parse(body)
        else { return nil }
        return members
    }
}
