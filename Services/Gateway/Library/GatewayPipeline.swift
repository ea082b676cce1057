import Foundation
import Logging
import Metrics
import PodiumMessages
import PodiumRuntime
import PodiumTokens
import Synchronization

/// The request pipeline every front calls: decode → limits → authenticate → authorize →
/// dispatch (the event log, the audit log, receipts, a service) → exactly one reply on the
/// client's connection. It does not know which transport a request came by; the fronts turn
/// their messages into a body and a ``ClientConnection``.
final class GatewayPipeline: RequestPipeline {
    let settings: GatewaySettings
    let clock: any PodiumClock
    private let logger: Logger
    /// Who a request acts for (the session cache in front of the auth service).
    let sessions: ClientSessions
    let limits: RequestLimits
    /// Where requests for services go, and the gateway's own questions.
    let router: ServiceRouter
    /// Every acknowledged event, on disk before its acknowledgement.
    let eventLog: EventLog
    /// Every operator request, on disk before its reply.
    let audit: AuditLog
    /// Operator accounts (the console's logins, roles and second factors).
    let operators: Operators
    private let topics: NotificationTopics
    /// Top pages answered without a hop (nil: off).
    let readCache: ReadCache?
    /// Requests answered and errors among them, for the console's live chart.
    let counts: ConsoleCounts
    /// The request counters and timers, made once per label set.
    /// The request counters and timers (`podium_gateway_requests_total`,
    /// `podium_gateway_request_duration_seconds`), made once per label set.
    private let metricHandles = MetricHandles()
    /// When the gateway started (Unix milliseconds), for `gateway.health`.
    private let startedAt: Int64

    init(
        settings: GatewaySettings, sessions: ClientSessions, limits: RequestLimits, router: ServiceRouter,
        eventLog: EventLog,
        audit: AuditLog, operators: Operators, topics: NotificationTopics, readCache: ReadCache? = nil,
        clock: any PodiumClock, logger: Logger
    ) {
        self.readCache = readCache
        self.operators = operators
        self.settings = settings
        self.sessions = sessions
        self.limits = limits
        self.router = router
        self.eventLog = eventLog
        self.audit = audit
        self.topics = topics
        self.counts = ConsoleCounts()
        self.clock = clock
        self.logger = logger
        self.startedAt = clock.nowMilliseconds
    }

    private var authorizer: Authorizer { sessions.authorizer }
    private var envelopes: Envelopes { Envelopes(clock: clock) }

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
        let connection = audit.recording(
            measured(client, type: (try? decoded.get())?.type), request: try? decoded.get(), when: operatorRequest)
        let request: ClientRequest
        switch decoded {
        case .success(let valid):
            request = valid
        case .failure(let rejection):
            await reject(
                connection, requestID: rejection.requestID,
                limits.connectionRateRefusal(connection.key) ?? rejection.error, type: nil)
            return
        }
        do {
            try limits.checkConnection(connection)
            let actor: Actor
            if Authorizer.isPublic(request.type) {
                // Logging in, refreshing and health need no credential, so a stale one does not block them.
                actor =
                    (try? await sessions.authenticate(request, peer: connection.peer))
                    ?? Actor(kind: .anonymous, peer: connection.peer)
            } else {
                actor = try await sessions.authenticate(request, peer: connection.peer)
            }
            if actor.kind == .admin { operatorRequest.withLock { $0 = true } }
            if actor.kind == .admin, let person = ConsoleOperator.current,
                !OperatorPermissions.permits(person.role, request.type),
                !OperatorPermissions.isSelfService(request.type, payload: request.payload, operator: person.name)
            {
                throw ErrorReply(
                    code: .forbidden, message: "a \(person.role.rawValue) may not send \(request.type.rawValue)")
            }
            let playerId = try authorizer.authorize(request, as: actor)
            try limits.checkPlayer(actor: actor, playerId: playerId)
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
            let known = Self.gatewayTypes.contains(type) || router.isAnnounced(type)
            label = MetricNames.typeLabel(type.rawValue, known: known)
        } else {
            label = "invalid"
        }
        let transport = connection.key.transport.rawValue
        let count: @Sendable (_ code: String) -> Void = { [counts, clock, metricHandles] code in
            let took = ContinuousClock.now - started
            counts.record(at: clock.nowMilliseconds, took: took, failed: code != "ok")
            metricHandles.counter(
                MetricNames.gatewayRequests, [("type", label), ("transport", transport), ("code", code)]
            ).increment()
            metricHandles.timer(MetricNames.gatewayRequestDuration, [("type", label), ("transport", transport)])
                .record(duration: took)
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

    private func dispatch(_ request: ClientRequest, actor: Actor, playerId: String?, from client: ClientConnection)
        async throws
    {
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
                        client, requestID: request.id,
                        ErrorReply(code: .internalError, message: "the receipt could not be read"),
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
            await reply(
                to: client, requestID: request.id, payload: try WireCodec.jsonValue(try await audit.page(query)))
        case GatewayRequests.createOperator.type, GatewayRequests.updateOperator.type,
            GatewayRequests.listOperators.type, GatewayRequests.removeOperator.type, GatewayRequests.beginTOTP.type,
            GatewayRequests.confirmTOTP.type, GatewayRequests.removeTOTP.type:
            guard actor.kind == .admin else {
                throw ErrorReply(code: .forbidden, message: "operator accounts are managed with the admin key")
            }
            let reply = try await operators.answer(request)
            await self.reply(to: client, requestID: request.id, payload: reply)
        case .accountExport:
            // Asks every service; runs beside the request loop so other requests keep flowing.
            Task {
                do {
                    let document = try await self.export(request, actor: actor, playerId: playerId)
                    await self.reply(to: client, requestID: request.id, payload: try WireCodec.jsonValue(document))
                } catch let error as ErrorReply {
                    await self.reject(client, requestID: request.id, error, type: request.type)
                } catch {
                    await self.reject(
                        client, requestID: request.id,
                        ErrorReply(code: .internalError, message: "the export could not be made"), type: request.type)
                }
            }
        case .gatewayHealth:
            // Details (instance ids, connected services) only for the admin key.
            let health = gatewayHealth()
            let payload =
                actor.kind == .admin
                ? try WireCodec.jsonValue(health) : try WireCodec.jsonValue(Readiness(ready: health.ready))
            await reply(to: client, requestID: request.id, payload: payload)
        case .health:
            guard router.inFlight + settings.expectedServices.count <= settings.maxInFlight else {
                throw ErrorReply(code: .overloaded, message: "too many requests in flight; retry shortly")
            }
            // Asks every service; runs beside the request loop so other requests keep flowing.
            Task {
                let health = await self.systemHealth()
                let payload =
                    actor.kind == .admin
                    ? try? WireCodec.jsonValue(health) : try? WireCodec.jsonValue(Readiness(ready: health.ready))
                await self.reply(to: client, requestID: request.id, payload: payload ?? .null)
            }
        default:
            if actor.kind != .admin, let service = Self.healthService(request.type),
                settings.expectedServices.contains(service) || router.isAnnounced(request.type)
            {
                // `<service>.health` without the admin key: the service is asked, the client told
                // only whether it is ready.
                Task { await self.serviceReadiness(service, request: request, from: client) }
                return
            }
            if let readCache, await readCache.answer(request, playerId: playerId, client: client) { return }
            try await forward(
                request, actor: actor, playerId: playerId,
                from: readCache?.connection(for: request, client: client) ?? client)
        }
    }

    /// The topic of the player's private notifications, or (admin key, no player) the operators'.
    private func notificationSubscription(_ request: ClientRequest, actor: Actor, playerId: String?) throws
        -> NotificationSubscription
    {
        switch actor.kind {
        case .player:
            guard let gameId = request.gameId, let playerId else {
                throw ErrorReply(
                    code: .missingField, message: "notifications.subscribe needs a gameId", field: "gameId")
            }
            return NotificationSubscription(
                topic: topics.topic(gameId: gameId, playerId: playerId), gameId: gameId, playerId: playerId)
        case .admin where request.playerId == nil:
            return NotificationSubscription(
                topic: topics.operatorTopic, gameId: request.gameId ?? "*", playerId: "operator")
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
        // The fingerprint is the digest of the event's text, written once with the entry.
        let logged = EventLogEntry(
            gameId: gameId, playerId: playerId, requestId: request.id, topic: topic, envelope: envelope)
        let entry = EventLog.Entry(event: logged) { [self] outcome in
            switch outcome {
            case .success(let acknowledgement):
                logger.debug(
                    "event logged",
                    metadata: [
                        "event.id": "\(acknowledgement.eventId)", "event.topic": "\(topic)",
                        "event.seq": "\(acknowledgement.sequence)",
                        "event.duplicate": "\(acknowledgement.duplicate == true)",
                    ])
                await reply(
                    to: client, requestID: request.id, payload: (try? WireCodec.jsonValue(acknowledgement)) ?? .null)
            case .failure(let error):
                await reject(client, requestID: request.id, error, type: request.type)
            }
        }
        eventLog.append(entry)
    }

    func reply(to client: ClientConnection, requestID: String, payload: JSONValue) async {
        await client.deliver(envelopes.reply(payload, correlationId: requestID))
    }

    func reject(_ client: ClientConnection, requestID: String?, _ error: ErrorReply, type: MessageType?) async {
        if error.code == .messageTooLarge { RequestLimits.countRefusal(.messageTooLarge) }
        logger.warning(
            "request rejected",
            metadata: [
                "error.code": "\(error.code)", "error.message": "\(error.message)",
                "request.id": "\(requestID ?? "-")", "request.type": "\(type?.rawValue ?? "-")",
                "transport": "\(client.key.transport.rawValue)", "peer": "\(client.peer ?? "-")",
            ])
        await client.deliver(envelopes.error(error, correlationId: requestID))
    }

    /// Routes a request to the service that announced its type. A request that changes sessions
    /// has their changes applied before its client hears the reply (``ClientSessions``).
    private func forward(_ request: ClientRequest, actor: Actor, playerId: String?, from client: ClientConnection)
        async throws
    {
        let envelope = RawEnvelope(
            type: request.type, version: request.version ?? RawEnvelope.currentVersion, id: MessageID.make(),
            correlationId: request.id, gameId: request.gameId, playerId: playerId,
            timestamp: clock.nowMilliseconds, actor: actor, payload: request.payload ?? .object([:]))
        try await router.forward(envelope, from: sessions.applyingChanges(of: request, to: client))
    }

    /// The service a `<service>.health` type names, if it is one.
    static func healthService(_ type: MessageType) -> String? {
        let service = type.serviceName
        return type == .health(of: service) ? service : nil
    }

    /// A service's readiness for a client without the admin key: its health asked, its details
    /// left out; an error (no instance connected, no answer) passed on as it came.
    private func serviceReadiness(_ service: String, request: ClientRequest, from client: ClientConnection) async {
        let answer = await router.ask(.health(of: service), timeout: settings.requestTimeout)
        if answer.type == .reply, let health = try? answer.decodePayload(as: ServiceHealth.self) {
            let payload = (try? WireCodec.jsonValue(Readiness(ready: health.ready))) ?? .null
            await reply(to: client, requestID: request.id, payload: payload)
            return
        }
        let error =
            (try? answer.decodePayload(as: ErrorReply.self))
            ?? ErrorReply(code: .internalError, message: "unreadable health answer")
        await reject(client, requestID: request.id, error, type: request.type)
    }

    func gatewayHealth() -> GatewayHealth {
        GatewayHealth(
            instance: settings.runtime.instanceID, ready: true, startedAt: startedAt,
            connectedServices: router.connectedServices)
    }

    /// The gateway's and every expected service's health.
    func systemHealth() async -> SystemHealth {
        let timeout = min(settings.requestTimeout, .seconds(2))
        let results = await withTaskGroup(of: (String, ServiceHealthResult).self) { group in
            for service in settings.expectedServices {
                group.addTask { [router] in
                    let answer = await router.ask(.health(of: service), timeout: timeout)
                    if answer.type == .reply, let health = try? answer.decodePayload(as: ServiceHealth.self) {
                        return (service, ServiceHealthResult(ready: health.ready, health: health))
                    }
                    let error =
                        (try? answer.decodePayload(as: ErrorReply.self))
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

/// Requests the gateway answered, and errors among them, since it started, and the last ten
/// minutes of them with their latencies (``RequestTimeline``): the console's overview.
final class ConsoleCounts: Sendable {
    let requests = Atomic<Int>(0)
    let errors = Atomic<Int>(0)
    let timeline = Mutex(RequestTimeline())

    func record(at now: Int64, took: Duration, failed: Bool) {
        requests.add(1, ordering: .relaxed)
        if failed { errors.add(1, ordering: .relaxed) }
        let microseconds = UInt64(
            max(0, took.components.seconds * 1_000_000 + took.components.attoseconds / 1_000_000_000_000))
        timeline.withLock { $0.record(at: now, microseconds: microseconds, failed: failed) }
    }
}
