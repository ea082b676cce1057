import Foundation
import Metrics
import Synchronization
import PodiumMessages
import PodiumRuntime
import PodiumTokens

/// The request pipeline every front calls: decode → limits → authenticate → authorize →
/// dispatch (the event log, receipts, a service) → exactly one reply on the client's connection.
/// It does not know which transport a request came by; the fronts (`Gateway+ZeroMQFront`) turn
/// their messages into a body and a ``ClientConnection``.
extension Gateway {
    /// Handles one request frame from a client; its reply (or error) goes to `connection.deliver`.
    func handle(_ body: Data, from connection: ClientConnection) async {
        await handle(RequestDecoder.decode(body, maxBytes: settings.maxMessageBytes), from: connection)
    }

    /// Handles a request a front already holds as a JSON object (HTTP builds one from its route,
    /// a WebSocket adds its credential to one): no second writing and parsing of it.
    func handle(_ object: JSONValue, from connection: ClientConnection) async {
        await handle(RequestDecoder.decode(object), from: connection)
    }

    private func handle(_ decoded: Result<ClientRequest, RequestRejection>, from client: ClientConnection) async {
        let operatorRequest = Locked(false)
        let connection = audited(
            measured(client, type: (try? decoded.get())?.type), request: try? decoded.get(), when: operatorRequest)
        let request: ClientRequest
        switch decoded {
        case .success(let valid):
            request = valid
        case .failure(let rejection):
            await reject(connection, requestID: rejection.requestID, connectionRateRefusal(connection.key) ?? rejection.error, type: nil)
            return
        }
        do {
            try checkConnectionLimits(connection)
            let actor: Actor
            if Authorizer.isPublic(request.type) {
                // Logging in, refreshing and health need no credential, so a stale one does not block them.
                actor = (try? await authenticate(request, peer: connection.peer)) ?? Actor(kind: .anonymous, peer: connection.peer)
            } else {
                actor = try await authenticate(request, peer: connection.peer)
            }
            if actor.kind == .admin { operatorRequest.withLock { $0 = true } }
            let playerId = try authorizer.authorize(request, as: actor)
            try checkPlayerLimit(actor: actor, playerId: playerId)
            try await dispatch(request, actor: actor, playerId: playerId, from: connection)
        } catch let error as ErrorReply {
            await reject(connection, requestID: request.id, error, type: request.type)
        } catch {
            logger.error("request failed", metadata: ["request.type": "\(request.type)", "error": "\(error)"])
            await reject(
                connection, requestID: request.id,
                ErrorReply(code: .internalError, message: "the gateway could not complete the request"),
                type: request.type)
        }
    }

    /// The connection, with its one reply counted and timed on the way out
    /// (`podium_gateway_requests_total`, `podium_gateway_request_duration_seconds`).
    private func measured(_ connection: ClientConnection, type: MessageType?) -> ClientConnection {
        let started = ContinuousClock.now
        let label: String
        if let type {
            let known = Self.gatewayTypes.contains(type) || directory.withLock { $0.announcedTypes.contains(type.rawValue) }
            label = MetricNames.typeLabel(type.rawValue, known: known)
        } else {
            label = "invalid"
        }
        let transport = connection.key.transport.rawValue
        let count: @Sendable (_ code: String) -> Void = { code in
            self.consoleCounts.requests.add(1, ordering: .relaxed)
            if code != "ok" { self.consoleCounts.errors.add(1, ordering: .relaxed) }
            Counter(label: MetricNames.gatewayRequests, dimensions: [("type", label), ("transport", transport), ("code", code)])
                .increment()
            Metrics.Timer(label: MetricNames.gatewayRequestDuration, dimensions: [("type", label), ("transport", transport)])
                .record(duration: ContinuousClock.now - started)
        }
        var counted = ClientConnection(key: connection.key, peer: connection.peer) { reply in
            await connection.deliver(reply)
            count(reply.type == .error ? (reply.payload["code"]?.stringValue ?? "internal_error") : "ok")
        }
        if let deliverEncoded = connection.deliverEncoded {
            // Only successful replies travel encoded.
            counted.deliverEncoded = { body in
                await deliverEncoded(body)
                count("ok")
            }
        }
        return counted
    }

    /// The request types the gateway answers itself.
    static var gatewayTypes: Set<MessageType> { RequestCatalog.gatewayTypes }

    /// The connection, with its one reply written to the audit log before it goes out when the
    /// request turns out to be an operator's (`isOperator` is set once the admin key checked out;
    /// docs/PROTOCOL.md 22.7). Anything else, a wrong admin key included, is refused and changes
    /// nothing: the refusal is in the log, not the audit log. Reading the audit log is not audited.
    private func audited(_ connection: ClientConnection, request: ClientRequest?, when isOperator: Locked<Bool>) -> ClientConnection {
        guard let request, request.type != .adminAudit, request.adminKey != nil else { return connection }
        let at = clock.nowMilliseconds
        let payload = AuditLog.redacted(request.payload ?? .object([:]))
        let target = request.playerId ?? request.payload?["playerId"]?.stringValue
        // A request with the admin key has its reply decoded (no `deliverEncoded`), so that the
        // audit entry can say how it ended.
        return ClientConnection(key: connection.key, peer: connection.peer) { [auditLog, logger] reply in
            guard isOperator.value else {
                await connection.deliver(reply)
                return
            }
            let outcome = reply.type == .error ? (reply.payload["code"]?.stringValue ?? "internal_error") : "ok"
            let entry = AuditEntry(
                seq: 0, at: at, actor: AuditLog.actor(of: request), transport: connection.key.transport.rawValue,
                peer: connection.peer, type: request.type.rawValue, gameId: request.gameId, playerId: target, payload: payload,
                requestId: request.id, outcome: outcome)
            do {
                try await auditLog.append(entry)
            } catch {
                logger.error(
                    "operator request not audited", metadata: ["request.type": "\(request.type)", "error": "\(error)"])
            }
            await connection.deliver(reply)
        }
    }

    /// Runs one request for a front that waits for each reply (HTTP, a WebSocket's hello) and
    /// returns the reply envelope: the pipeline with a connection whose one reply ends the wait.
    func call(_ object: JSONValue, from key: ClientConnection.Key, peer: String?) async -> RawEnvelope {
        let slot = ReplySlot()
        await handle(object, from: ClientConnection(key: key, peer: peer, deliver: slot.fill))
        return await slot.reply()
    }

    /// Who the request acts for. A session token is verified, then checked once with the auth
    /// service, then served from the cache until it expires or its session is revoked.
    func authenticate(_ request: ClientRequest, peer: String?) async throws -> Actor {
        let now = clock.nowMilliseconds
        if let token = request.token, let cached = sessions.withLock({ $0.lookup(token, now: now) }) {
            return Actor(kind: .player, playerId: cached.playerId, sessionId: cached.sessionId, peer: peer)
        }
        let (actor, claims) = try await authorizer.identify(request, peer: peer, now: now)
        guard let claims, let token = request.token else { return actor }
        if let revocation = sessions.withLock({ $0.revocation(claims.sid) }) {
            if let ban = revocation.ban, ban.holds(at: now) { throw ban.refusal }
            throw Self.sessionRevoked
        }
        let answer = await ask(
            AuthRequests.sessionCheck.type, payload: try WireCodec.jsonValue(SessionCheck(sessionId: claims.sid, playerId: claims.playerId)),
            timeout: min(settings.requestTimeout, .seconds(2)))
        if answer.type == .error {
            throw (try? answer.decodePayload(as: ErrorReply.self))
                ?? ErrorReply(code: .serviceUnavailable, message: "the auth service could not check the session")
        }
        guard let status = try? answer.decodePayload(as: SessionStatus.self) else {
            throw ErrorReply(code: .internalError, message: "the auth service sent an unreadable answer")
        }
        guard status.valid else {
            if let ban = status.ban, ban.holds(at: now) { throw ban.refusal }
            throw Self.sessionRevoked
        }
        sessions.withLock {
            $0.store(
                token, SessionCache.Entry(playerId: claims.playerId, sessionId: claims.sid, expiresAt: claims.expiresAtMilliseconds),
                now: now)
        }
        return actor
    }

    static let sessionRevoked = ErrorReply(
        code: .sessionRevoked, message: "this session was logged out or revoked; log in again", field: "token")

    private func dispatch(_ request: ClientRequest, actor: Actor, playerId: String?, from client: ClientConnection) async throws {
        switch request.type {
        case .eventPublish:
            try logEvent(request, actor: actor, playerId: playerId, from: client)
        case .receipt:
            // Asks the services; runs beside the request loop so other requests keep flowing.
            Task {
                do {
                    let receipt = try await self.receipt(request, actor: actor, playerId: playerId)
                    await self.reply(to: client, requestID: request.id, payload: try WireCodec.jsonValue(receipt))
                } catch let error as ErrorReply {
                    await self.reject(client, requestID: request.id, error, type: request.type)
                } catch {
                    await self.reject(
                        client, requestID: request.id, ErrorReply(code: .internalError, message: "the receipt could not be read"),
                        type: request.type)
                }
            }
        case .eventsRead:
            guard actor.kind == .admin else {
                throw ErrorReply(code: .forbidden, message: "the event log is read by services and operators only")
            }
            let read = try RequestDecoder.payload(request.payload, as: StreamRead.self)
            let page = try await eventLog.page(after: read.after, limit: try read.checkedLimit())
            await reply(to: client, requestID: request.id, payload: try WireCodec.jsonValue(page))
        case .notificationsSubscribe:
            let subscription = try notificationSubscription(request, actor: actor, playerId: playerId)
            await reply(to: client, requestID: request.id, payload: try WireCodec.jsonValue(subscription))
        case .adminAudit:
            guard actor.kind == .admin else {
                throw ErrorReply(code: .forbidden, message: "the audit log is read with the admin key")
            }
            let query = try RequestDecoder.payload(request.payload, as: AuditQuery.self)
            await reply(to: client, requestID: request.id, payload: try WireCodec.jsonValue(try await auditLog.page(query)))
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
            try await forward(request, actor: actor, playerId: playerId, from: client)
        }
    }

    /// The topic of the player's private notifications, or (admin key, no player) the operators'.
    private func notificationSubscription(_ request: ClientRequest, actor: Actor, playerId: String?) throws
        -> NotificationSubscription
    {
        switch actor.kind {
        case .player:
            guard let gameId = request.gameId, let playerId else {
                throw ErrorReply(code: .missingField, message: "notifications.subscribe needs a gameId", field: "gameId")
            }
            return NotificationSubscription(
                topic: topics.topic(gameId: gameId, playerId: playerId), gameId: gameId, playerId: playerId)
        case .admin where request.playerId == nil:
            return NotificationSubscription(topic: topics.operatorTopic, gameId: request.gameId ?? "*", playerId: "operator")
        default:
            throw ErrorReply(
                code: .forbidden,
                message: "only the player may subscribe to their notifications (operators: adminKey without playerId)")
        }
    }

    /// Validates a game event and queues it for the event log; the acknowledgement (or the
    /// storage error) is sent after the log's transaction, and the event is published on the bus
    /// with its log sequence.
    func logEvent(_ request: ClientRequest, actor: Actor, playerId: String?, from client: ClientConnection) throws {
        guard let gameId = request.gameId else {
            throw ErrorReply(code: .missingField, message: "an event needs a gameId", field: "gameId")
        }
        guard let playerId else {
            throw ErrorReply(code: .missingField, message: "an event needs a playerId", field: "playerId")
        }
        let event = try RequestDecoder.payload(request.payload, as: GameEvent.self)
        try event.validate()
        let topic = Topic.gameEvent(gameId: gameId, name: event.name)
        let envelope = Envelope(
            type: .gameEvent, correlationId: request.id, gameId: gameId, playerId: playerId,
            timestamp: clock.nowMilliseconds, actor: actor, payload: event)
        let logged = EventLogEntry(
            gameId: gameId, playerId: playerId, requestId: request.id,
            fingerprint: RequestReceipts.fingerprint(of: (try? WireCodec.jsonValue(event)) ?? .null), topic: topic,
            envelope: envelope)
        let entry = EventLog.Entry(event: logged) { [self] outcome in
            switch outcome {
            case .success(let acknowledgement):
                logger.debug(
                    "event logged",
                    metadata: [
                        "event.id": "\(acknowledgement.eventId)", "event.topic": "\(topic)", "event.seq": "\(acknowledgement.sequence)",
                        "event.duplicate": "\(acknowledgement.duplicate == true)",
                    ])
                await reply(to: client, requestID: request.id, payload: (try? WireCodec.jsonValue(acknowledgement)) ?? .null)
            case .failure(let error):
                await reject(client, requestID: request.id, error, type: request.type)
            }
        }
        eventLog.append(entry)
    }

    func reply(to client: ClientConnection, requestID: String, payload: JSONValue) async {
        let envelope = RawEnvelope(
            type: .reply, correlationId: requestID, timestamp: clock.nowMilliseconds, payload: payload)
        await client.deliver(envelope)
    }

    func reject(_ client: ClientConnection, requestID: String?, _ error: ErrorReply, type: MessageType?) async {
        if error.code == .messageTooLarge { Self.countRefusal(.messageTooLarge) }
        logger.warning(
            "request rejected",
            metadata: [
                "error.code": "\(error.code)", "error.message": "\(error.message)",
                "request.id": "\(requestID ?? "-")", "request.type": "\(type?.rawValue ?? "-")",
                "transport": "\(client.key.transport.rawValue)", "peer": "\(client.peer ?? "-")",
            ])
        await client.deliver(errorEnvelope(error, correlationId: requestID))
    }

    func encode(_ envelope: RawEnvelope) -> Data {
        // Encoding a RawEnvelope cannot fail: every JSONValue is encodable.
        (try? WireCodec.encode(envelope)) ?? Data("{}".utf8)
    }
}
