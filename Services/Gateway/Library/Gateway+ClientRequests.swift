import Foundation
import PodiumMessages
import PodiumRuntime

extension Gateway {
    /// Reads client requests until cancelled; each gets exactly one reply.
    func serveClients() async {
        while true {
            let frames: [Data]
            do {
                guard let next = try await clientSocket.receive() else { return }
                frames = next
            } catch {
                return
            }
            await handleClientMessage(frames)
        }
    }

    func handleClientMessage(_ frames: [Data]) async {
        let client: ClientFrames
        switch ClientFrames.parse(frames) {
        case .success(let parsed):
            client = parsed
        case .failure(let rejection):
            logger.warning(
                "request rejected", metadata: ["error.code": "\(rejection.error.code)", "frames": "\(frames.count)"])
            if let reply = rejection.reply(encode(errorEnvelope(rejection.error, correlationId: nil))) {
                await sendToClient(reply)
            }
            return
        }
        let request: ClientRequest
        switch RequestDecoder.decode(client.body, maxBytes: settings.maxMessageBytes) {
        case .success(let decoded):
            request = decoded
        case .failure(let rejection):
            await reject(client, requestID: rejection.requestID, rejection.error, type: nil)
            return
        }
        do {
            try await dispatch(request, from: client)
        } catch let error as ErrorReply {
            await reject(client, requestID: request.id, error, type: request.type)
        } catch {
            logger.error("request failed", metadata: ["request.type": "\(request.type)", "error": "\(error)"])
            await reject(
                client, requestID: request.id,
                ErrorReply(code: .internalError, message: "the gateway could not complete the request"),
                type: request.type)
        }
    }

    private func dispatch(_ request: ClientRequest, from client: ClientFrames) async throws {
        switch request.type {
        case .eventPublish:
            let acknowledgement = try await publishEvent(request)
            await reply(to: client, requestID: request.id, payload: try WireCodec.jsonValue(acknowledgement))
        case .notificationsSubscribe:
            guard let gameId = request.gameId else {
                throw ErrorReply(code: .missingField, message: "notifications.subscribe needs a gameId", field: "gameId")
            }
            guard let playerId = request.playerId else {
                throw ErrorReply(code: .missingField, message: "notifications.subscribe needs a playerId", field: "playerId")
            }
            let subscription = NotificationSubscription(
                topic: topics.topic(gameId: gameId, playerId: playerId), gameId: gameId, playerId: playerId)
            await reply(to: client, requestID: request.id, payload: try WireCodec.jsonValue(subscription))
        case .gatewayHealth:
            await reply(to: client, requestID: request.id, payload: try WireCodec.jsonValue(gatewayHealth()))
        case .health:
            guard pending.value.count + settings.expectedServices.count <= settings.maxInFlight else {
                throw ErrorReply(code: .overloaded, message: "too many requests in flight; retry shortly")
            }
            // Asks every service; runs beside the request loop so other requests keep flowing.
            Task {
                let health = await self.systemHealth()
                await self.reply(to: client, requestID: request.id, payload: (try? WireCodec.jsonValue(health)) ?? .null)
            }
        default:
            try await forward(request, from: client)
        }
    }

    /// Validates a game event, publishes it on the bus and returns its acknowledgement.
    func publishEvent(_ request: ClientRequest) async throws -> EventAcknowledgement {
        guard let gameId = request.gameId else {
            throw ErrorReply(code: .missingField, message: "an event needs a gameId", field: "gameId")
        }
        guard let playerId = request.playerId else {
            throw ErrorReply(code: .missingField, message: "an event needs a playerId", field: "playerId")
        }
        let event = try RequestDecoder.payload(request.payload, as: GameEvent.self)
        try event.validate()
        let topic = Topic.gameEvent(gameId: gameId, name: event.name)
        let published = try await publisher.publish(
            Envelope(
                type: .gameEvent, correlationId: request.id, gameId: gameId, playerId: playerId,
                timestamp: clock.nowMilliseconds, payload: event),
            on: topic)
        logger.debug(
            "event published",
            metadata: ["event.id": "\(published.id)", "event.topic": "\(topic)", "event.seq": "\(published.sequence ?? 0)"])
        return EventAcknowledgement(
            eventId: published.id, topic: topic.rawValue, publisher: publisher.publisherID,
            sequence: published.sequence ?? 0)
    }

    func reply(to client: ClientFrames, requestID: String, payload: JSONValue) async {
        let envelope = RawEnvelope(
            type: .reply, correlationId: requestID, timestamp: clock.nowMilliseconds, payload: payload)
        await sendToClient(client.reply(encode(envelope)))
    }

    func reject(_ client: ClientFrames, requestID: String?, _ error: ErrorReply, type: MessageType?) async {
        logger.warning(
            "request rejected",
            metadata: [
                "error.code": "\(error.code)", "error.message": "\(error.message)",
                "request.id": "\(requestID ?? "-")", "request.type": "\(type?.rawValue ?? "-")",
            ])
        await sendToClient(client.reply(encode(errorEnvelope(error, correlationId: requestID))))
    }

    func sendToClient(_ frames: [Data]) async {
        do {
            try await clientSocket.send(frames)
        } catch {
            logger.warning("reply not delivered", metadata: ["error": "\(error)"])
        }
    }

    func encode(_ envelope: RawEnvelope) -> Data {
        // Encoding a RawEnvelope cannot fail: every JSONValue is encodable.
        (try? WireCodec.encode(envelope)) ?? Data("{}".utf8)
    }
}
