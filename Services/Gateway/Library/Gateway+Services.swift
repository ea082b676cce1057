import Foundation
import PodiumMessages
import PodiumRuntime
import ZeroMQ

extension Gateway {
    /// Routes a request to the service that announced its type.
    func forward(_ request: ClientRequest, actor: Actor, playerId: String?, from client: ClientConnection) async throws {
        let route = directory.withLock { $0.route(request.type, knownServices: settings.expectedServices) }
        let (routingID, service): (Data, String)
        switch route {
        case .unknown:
            throw ErrorReply(code: .unknownType, message: "no service handles '\(request.type)'", field: "type")
        case .unavailable(let name):
            throw ErrorReply(code: .serviceUnavailable, message: "no \(name) instance is serving (not connected, or one is taking over); retry shortly")
        case .instance(let id, let name):
            (routingID, service) = (id, name)
        }
        let internalID = MessageID.make()
        let deadline = clock.monotonicMilliseconds + settings.requestTimeout.milliseconds
        let admitted = pending.withLock { pending -> ErrorReply? in
            if pending.isInFlight(connection: client.key, requestID: request.id) {
                return ErrorReply(
                    code: .duplicateRequestID, message: "a request with id '\(request.id)' is still in flight", field: "id")
            }
            if pending.count >= settings.maxInFlight {
                return ErrorReply(code: .overloaded, message: "too many requests in flight; retry shortly")
            }
            pending.add(
                PendingRequests.Entry(
                    origin: .client(client, requestID: request.id), service: service, serviceRoutingID: routingID,
                    deadline: deadline, requestType: request.type,
                    refreshToken: request.type == AuthRequests.refresh.type ? request.payload?["refreshToken"]?.stringValue : nil),
                internalID: internalID)
            return nil
        }
        if let admitted { throw admitted }
        let envelope = RawEnvelope(
            type: request.type, version: request.version ?? RawEnvelope.currentVersion, id: internalID,
            correlationId: request.id, gameId: request.gameId, playerId: playerId,
            timestamp: clock.nowMilliseconds, actor: actor, payload: request.payload ?? .object([:]))
        await sendToService(envelope, routingID: routingID, internalID: internalID)
    }

    /// Sends a request to a service instance through the batching queue (``SendQueue``); if it
    /// cannot be reached, answers the request in its place.
    func sendToService(_ envelope: RawEnvelope, routingID: Data, internalID: String) async {
        let frames: [Data]
        do {
            frames = [routingID, try WireCodec.encode(envelope)]
        } catch {
            await serviceUnreachable(routingID: routingID, internalID: internalID, error: error)
            return
        }
        serviceSends.send(frames) { [self] error in
            await serviceUnreachable(routingID: routingID, internalID: internalID, error: error)
        }
    }

    /// A request could not be handed to its service: forgets an instance that went away and
    /// answers the request in its place.
    private func serviceUnreachable(routingID: Data, internalID: String, error: Error) async {
        if let error = error as? ZMQError, error.errno == EHOSTUNREACH {
            _ = directory.withLock { $0.remove(routingID: routingID) }
        }
        guard let entry = pending.withLock({ $0.complete(internalID: internalID) }) else { return }
        logger.warning("service unreachable", metadata: ["service.name": "\(entry.service)", "error": "\(error)"])
        await resolve(
            entry,
            with: errorEnvelope(
                ErrorReply(code: .serviceUnavailable, message: "the \(entry.service) service is not reachable; retry shortly"),
                correlationId: nil))
    }

    /// Sends a message to a service without a pending request behind it (an answer to its question).
    private func sendToServiceInstance(_ frames: [Data]) async {
        serviceSends.send(frames) { [logger] error in
            logger.warning("message to a service not delivered", metadata: ["error": "\(error)"])
        }
    }

    /// Reads announcements and replies from services until the socket closes, a batch at a time.
    func serveServices() async {
        while true {
            let messages: [ZMQMessage]
            do {
                guard let next = try await serviceSocket.receiveBatch(maximum: Self.frontBatch) else { return }
                messages = next
            } catch {
                return
            }
            for message in messages { await serviceMessage(message.frames) }
        }
    }

    private func serviceMessage(_ frames: [Data]) async {
        if frames.count == 2, await passOn(frames[1]) { return }
        guard frames.count == 2, let envelope = try? WireCodec.decode(RawEnvelope.self, from: frames[1]) else {
            logger.warning("service message dropped: expected [routing id, envelope]", metadata: ["frames": "\(frames.count)"])
            return
        }
        if envelope.type == .serviceAnnouncement {
            await register(envelope, routingID: frames[0])
            return
        }
        if envelope.type != .reply && envelope.type != .error {
            await forwardServiceRequest(envelope, from: frames[0])
            return
        }
        guard let internalID = envelope.correlationId,
            let entry = pending.withLock({ $0.complete(internalID: internalID) })
        else {
            logger.debug("late or unknown service reply dropped", metadata: ["message.id": "\(envelope.id)"])
            return
        }
        await resolve(entry, with: envelope)
    }

    /// Passes a service's successful reply to a client as it is, with only its correlation id
    /// swapped in the bytes, when the client's transport takes encoded envelopes and the request
    /// needs nothing more of the reply (see ``applySessionChanges(_:answer:)``). Returns false to
    /// have the reply decoded and resolved in full.
    private func passOn(_ body: Data) async -> Bool {
        guard let header = EnvelopeHeader.scan(body), header.type == MessageType.reply.rawValue,
            let internalID = header.correlationId
        else { return false }
        // The request leaves the pending ones only once its reply is in hand, so a reply that
        // cannot be passed on is still resolved the long way.
        let taken = pending.withLock { pending -> (deliver: @Sendable (Data) async -> Void, reply: Data)? in
            guard let entry = pending.entry(internalID: internalID), case .client(let client, let requestID) = entry.origin,
                let deliverEncoded = client.deliverEncoded, !Self.changesSessions(entry.requestType),
                let reply = header.replacingCorrelationId(in: body, with: requestID)
            else { return nil }
            _ = pending.complete(internalID: internalID)
            return (deliverEncoded, reply)
        }
        guard let taken else { return false }
        await taken.deliver(taken.reply)
        return true
    }

    private func register(_ envelope: RawEnvelope, routingID: Data) async {
        guard let announcement = try? envelope.decodePayload(as: ServiceAnnouncement.self),
            Identifiers.isValidID(announcement.service),
            announcement.requestTypes.allSatisfy({ MessageType(rawValue: $0).serviceName == announcement.service })
        else {
            logger.warning("service announcement refused")
            return
        }
        let isNew = directory.withLock { $0.register(announcement, routingID: routingID, now: clock.monotonicMilliseconds) }
        if isNew {
            logger.info(
                "service connected",
                metadata: [
                    "service.name": "\(announcement.service)", "service.instance": "\(announcement.instance)",
                    "service.request_types": "\(announcement.requestTypes.count)",
                ])
            await notifyOperators(
                kind: "operator.service-connected", message: "\(announcement.service) connected",
                details: ["service": .string(announcement.service), "instance": .string(announcement.instance)])
        }
    }

    /// Delivers a service's answer (or the gateway's error in its place) to whoever asked.
    func resolve(_ entry: PendingRequests.Entry, with envelope: RawEnvelope) async {
        switch entry.origin {
        case .client(let client, let requestID):
            await applySessionChanges(entry, answer: envelope)
            var answer = envelope
            answer.correlationId = requestID
            if answer.type != .reply && answer.type != .error {
                answer = errorEnvelope(
                    ErrorReply(code: .internalError, message: "\(entry.service) sent an unexpected answer"),
                    correlationId: requestID)
            }
            await client.deliver(answer)
        case .gateway(let continuation):
            continuation.resume(returning: envelope)
        case .service(let routingID, let requestID):
            var answer = envelope
            answer.correlationId = requestID
            await sendToServiceInstance([routingID, encode(answer)])
        }
    }

    /// Routes a request one service sends to another (for example "are these two friends?").
    private func forwardServiceRequest(_ request: RawEnvelope, from routingID: Data) async {
        let asker = directory.value.instances[routingID]?.announcement.service
        func answer(_ error: ErrorReply) async {
            var reply = errorEnvelope(error, correlationId: request.id)
            reply.correlationId = request.id
            await sendToServiceInstance([routingID, encode(reply)])
        }
        guard let asker else {
            await answer(ErrorReply(code: .forbidden, message: "announce the service before sending requests"))
            return
        }
        if request.type == .eventsRead {
            do {
                let read = try request.requestPayload(as: StreamRead.self)
                let limit = try read.checkedLimit()
                pruner.noteRead(by: Actor(kind: .service, service: asker), after: read.after)
                let page = try await eventLog.page(after: read.after, limit: limit)
                let reply = RawEnvelope(
                    type: .reply, correlationId: request.id, timestamp: clock.nowMilliseconds, payload: try WireCodec.jsonValue(page))
                await sendToServiceInstance([routingID, encode(reply)])
            } catch let error as ErrorReply {
                await answer(error)
            } catch {
                logger.error("event log unreadable", metadata: ["error": "\(error)"])
                await answer(ErrorReply(code: .storageUnavailable, message: "the event log could not be read"))
            }
            return
        }
        let route = directory.withLock { $0.route(request.type, knownServices: settings.expectedServices) }
        guard case .instance(let target, let service) = route else {
            let unavailable = route == .unknown
                ? ErrorReply(code: .unknownType, message: "no service handles '\(request.type)'", field: "type")
                : ErrorReply(code: .serviceUnavailable, message: "no \(request.type.serviceName) instance is serving (not connected, or one is taking over)")
            await answer(unavailable)
            return
        }
        let internalID = MessageID.make()
        pending.withLock {
            $0.add(
                PendingRequests.Entry(
                    origin: .service(routingID: routingID, requestID: request.id), service: service, serviceRoutingID: target,
                    deadline: clock.monotonicMilliseconds + settings.requestTimeout.milliseconds),
                internalID: internalID)
        }
        var forwarded = request
        forwarded.id = internalID
        forwarded.correlationId = request.id
        forwarded.actor = Actor(kind: .service, service: asker)
        await sendToService(forwarded, routingID: target, internalID: internalID)
    }

    /// Whether a reply to the request type changes what the gateway knows of sessions (so it is
    /// decoded and applied before the client hears it).
    static func changesSessions(_ type: MessageType?) -> Bool {
        switch type {
        case AuthRequests.logout.type?, AuthRequests.revoke.type?, AuthRequests.revokeSession.type?, AuthRequests.ban.type?,
            AuthRequests.unban.type?, AuthRequests.refresh.type?:
            true
        default:
            false
        }
    }

    /// Forgets revoked sessions before the client hears that they are revoked, so that no token
    /// of theirs is accepted after the reply (the bus announcement may arrive a moment later).
    private func applySessionChanges(_ entry: PendingRequests.Entry, answer: RawEnvelope) async {
        let until = clock.nowMilliseconds + Self.revocationMemoryMilliseconds
        switch entry.requestType {
        case AuthRequests.logout.type?, AuthRequests.revoke.type?, AuthRequests.revokeSession.type?:
            guard answer.type == .reply, let receipt = try? answer.decodePayload(as: RevocationReceipt.self) else { return }
            sessions.withLock { $0.revoke(sessionIds: receipt.sessionIds, until: until) }
            endSockets(of: receipt.sessionIds, .sessionRevoked)
        case AuthRequests.ban.type?:
            guard answer.type == .reply, let ban = try? answer.decodePayload(as: PlayerBan.self) else { return }
            let record = PlayerRecord.Ban(reason: ban.reason, bannedAt: ban.bannedAt, until: ban.until)
            sessions.withLock { $0.revoke(sessionIds: ban.sessionIds, until: until, ban: record, playerId: ban.playerId) }
            endSockets(of: ban.sessionIds, .sessionRevoked)
        case AuthRequests.unban.type?:
            guard answer.type == .reply, let receipt = try? answer.decodePayload(as: UnbanReceipt.self), receipt.unbanned else { return }
            sessions.withLock { $0.liftBan(playerId: receipt.playerId) }
        case AuthRequests.refresh.type?:
            guard answer.type == .error, let token = entry.refreshToken,
                (try? answer.decodePayload(as: ErrorReply.self))?.code == .sessionRevoked,
                let claims = try? await authorizer.tokens.verify(token, as: .refresh, now: clock.nowMilliseconds)
            else { return }
            sessions.withLock { $0.revoke(sessionIds: [claims.sid], until: until) }
            endSockets(of: [claims.sid], .sessionRevoked)
        default:
            return
        }
    }

    /// Asks one service a question on the gateway's own behalf.
    func ask(_ type: MessageType, payload: JSONValue = .object([:]), timeout: Duration) async -> RawEnvelope {
        let route = directory.withLock { $0.route(type, knownServices: settings.expectedServices) }
        guard case .instance(let routingID, let service) = route else {
            return errorEnvelope(
                ErrorReply(code: .serviceUnavailable, message: "the \(type.serviceName) service is not connected"),
                correlationId: nil)
        }
        let internalID = MessageID.make()
        let envelope = RawEnvelope(
            type: type, id: internalID, timestamp: clock.nowMilliseconds, actor: Actor(kind: .service, service: "gateway"),
            payload: payload)
        return await withCheckedContinuation { continuation in
            pending.withLock {
                $0.add(
                    PendingRequests.Entry(
                        origin: .gateway(continuation), service: service, serviceRoutingID: routingID,
                        deadline: clock.monotonicMilliseconds + timeout.milliseconds),
                    internalID: internalID)
            }
            Task { await self.sendToService(envelope, routingID: routingID, internalID: internalID) }
        }
    }

    func gatewayHealth() -> GatewayHealth {
        GatewayHealth(
            instance: settings.runtime.instanceID, ready: true, startedAt: startedAt,
            connectedServices: directory.value.connectedServices)
    }

    /// The gateway's and every expected service's health.
    func systemHealth() async -> SystemHealth {
        let timeout = min(settings.requestTimeout, .seconds(2))
        let results = await withTaskGroup(of: (String, ServiceHealthResult).self) { group in
            for service in settings.expectedServices {
                group.addTask {
                    let answer = await self.ask(.health(of: service), timeout: timeout)
                    if answer.type == .reply, let health = try? answer.decodePayload(as: ServiceHealth.self) {
                        return (service, ServiceHealthResult(ready: health.ready, health: health))
                    }
                    let error = (try? answer.decodePayload(as: ErrorReply.self))
                        ?? ErrorReply(code: .internalError, message: "unreadable health answer")
                    return (service, ServiceHealthResult(ready: false, error: error))
                }
            }
            var results: [String: ServiceHealthResult] = [:]
            for await (service, result) in group { results[service] = result }
            return results
        }
        return SystemHealth(
            ready: results.values.allSatisfy(\.ready), gateway: gatewayHealth(), services: results)
    }
}
