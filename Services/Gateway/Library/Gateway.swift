import Foundation
import Logging
import Metrics
import PodiumMessages
import PodiumRuntime
import PodiumTokens
import ServiceLifecycle
import Synchronization
import ZeroMQ

/// `podium-gateway`: the one public entry point.
///
/// - Request endpoint (ROUTER): one reply per request, matched by the client's request id;
///   events are validated, acknowledged and published on the bus; other requests are routed to
///   the service that announced their type, and its reply is routed back.
/// - Notification endpoint (XPUB, manual subscriptions): forwards each `notify/<game>/<player>`
///   bus message to that player's private topic only.
/// - The bus hub: XSUB (publishers connect) ⇄ XPUB (subscribers connect), and the service ROUTER.
///
/// All sockets are bound in `init`, so ``endpoints`` is known before the parts (``services``) run.
public final class Gateway: Sendable {
    public let settings: GatewaySettings
    /// Where the gateway listens.
    public let endpoints: GatewayEndpoints

    let clock: any PodiumClock
    let logger: Logger
    let context: ZMQContext
    let startedAt: Int64
    let publisher: BusPublisher
    /// Every acknowledged event, on disk before its acknowledgement.
    let eventLog: EventLog
    /// Every operator request, on disk before its reply.
    let auditLog: AuditLog
    /// What the stores run while open (PostgreSQL's connection pool), watched as a part.
    let storageRunner: (any StorageRunner)?
    /// Prunes the event log by retention, never past what the services following it have read.
    public let pruner: Pruner
    let clientSocket: AsyncSocket
    let serviceSocket: AsyncSocket
    /// Replies to clients and messages to services, handed to their sockets in batches.
    let clientSends: SendQueue
    let serviceSends: SendQueue
    let notificationSocket: AsyncSocket
    let notificationFeed: AsyncSocket
    let busHub: ZMQProxy
    /// CURVE on the bus: the ZAP handler and the bus sockets' monitors; nil on a plain bus.
    let busGuard: BusGuard?
    let topics: NotificationTopics
    let authorizer: Authorizer
    let directory = Locked(ServiceDirectory())
    let pending = Locked(PendingRequests())
    let sessions = Locked(SessionCache())
    /// The ZeroMQ front's requests waiting for their connection's turn.
    let lanes = Locked(ClientLanes<ZeroMQWork>(capacity: Gateway.laneCapacity))
    /// WebSocket connections listening to private notification topics.
    let socketSubscribers = Locked(SocketSubscribers())
    let rateLimits: Locked<ClientRateLimits>
    /// Open WebSockets.
    let openSockets = Atomic<Int>(0)
    /// The states of the parts (``services``); the gateway is ready while all of them run.
    let loops = LoopStates()
    /// The web console's sessions (`/console`).
    let consoleSessions = Locked(ConsoleSessions())
    /// Requests answered and errors among them, for the console's live chart.
    let consoleCounts = ConsoleCounts()

    public init(
        settings: GatewaySettings, clock: any PodiumClock = SystemClock(), logger: Logger? = nil, openStorage: GatewayStorageOpener
    ) async throws {
        self.settings = settings
        self.clock = clock
        var logger = logger ?? Logger(label: "podium.gateway")
        logger[metadataKey: "service"] = "gateway"
        logger[metadataKey: "instance"] = "\(settings.runtime.instanceID)"
        self.logger = logger
        let context = try ZMQContext()
        self.context = context
        self.startedAt = clock.nowMilliseconds
        self.topics = NotificationTopics(secret: settings.notificationSecret)
        self.authorizer = Authorizer(settings: settings, tokens: await SessionTokens(key: settings.tokenKey))
        let storage = try await openStorage(settings.runtime)
        self.eventLog = try await EventLog(store: storage.eventLog)
        self.auditLog = AuditLog(store: storage.audit)
        self.storageRunner = storage.runner
        self.pruner = Pruner(
            service: "gateway", stream: (StreamName.events, storage.eventLog, "event"), receipts: nil, settings: settings.runtime.retention)
        self.rateLimits = Locked(ClientRateLimits(settings: settings))
        // CURVE options must be on the public sockets before they bind.
        let curve = settings.curveKeyPair?.serverOptions ?? []
        // With CURVE on the bus, the ZAP handler is bound before any server socket.
        let busGuard = try settings.runtime.busSecurity.map {
            try BusGuard(security: $0, context: context, clock: clock, logger: logger)
        }
        self.busGuard = busGuard
        let busOptions = settings.runtime.busSecurity?.hubOptions ?? []

        // The bus hub. inproc endpoints let the gateway itself publish and subscribe (inproc
        // connections take no part in CURVE).
        let hubID = UUID().uuidString
        let hubInput = try context.makeSocket(.extendedSubscriber)
        let hubOutput = try context.makeSocket(.extendedPublisher)
        try hubOutput.set(.sendHighWaterMark(100_000))
        try hubInput.set(.receiveHighWaterMark(100_000))
        for option in busOptions {
            try hubInput.set(option)
            try hubOutput.set(option)
        }
        if let busGuard {
            try hubInput.monitor(busGuard.monitorEndpoints[0])
            try hubOutput.monitor(busGuard.monitorEndpoints[1])
        }
        try hubInput.bind(settings.runtime.busPublishEndpoint)
        let busPublish = try hubInput.lastEndpoint()
        try hubInput.bind("inproc://podium.bus.in.\(hubID)")
        try hubOutput.bind(settings.runtime.busSubscribeEndpoint)
        let busSubscribe = try hubOutput.lastEndpoint()
        try hubOutput.bind("inproc://podium.bus.out.\(hubID)")
        busHub = try ZMQProxy(context: context, name: "bus", frontend: hubInput, backend: hubOutput)

        publisher = try BusPublisher(
            context: context, endpoint: "inproc://podium.bus.in.\(hubID)",
            publisherID: settings.runtime.instanceID, clock: clock)
        notificationFeed = try AsyncSocket(
            context: context, type: .subscriber, name: "gateway.notification-feed",
            options: [
                .receiveHighWaterMark(100_000), .subscribe(Data(Topic.allNotifications.utf8)),
                .subscribe(Data(Self.revocationPrefix.utf8)), .subscribe(Data(Self.operatorBusPrefix.utf8)),
            ],
            connect: ["inproc://podium.bus.out.\(hubID)"])
        serviceSocket = try AsyncSocket(
            context: context, type: .router, name: "gateway.services",
            options: [
                .routerMandatory(true), .routerHandover(true), .sendHighWaterMark(100_000),
                .receiveHighWaterMark(100_000), .heartbeatIntervalMilliseconds(1000),
                .heartbeatTimeoutMilliseconds(3000),
            ] + busOptions,
            bind: [settings.runtime.busServicesEndpoint],
            monitor: busGuard?.monitorEndpoints[2])
        clientSocket = try AsyncSocket(
            context: context, type: .router, name: "gateway.requests",
            options: [
                .maxMessageSize(settings.hardFrameLimit), .sendHighWaterMark(1000),
                .receiveHighWaterMark(1000), .heartbeatIntervalMilliseconds(5000),
                .heartbeatTimeoutMilliseconds(15_000),
            ] + curve,
            bind: [settings.requestEndpoint],
            // Bounded memory: at most 1024 waiting messages, each kept only up to what a valid
            // request can be (a larger one is answered `message_too_large` from its size alone).
            inboxCapacity: 1024,
            capturesPeerAddress: true,
            receiveLimits: ReceiveLimits(maxFrames: ClientFrames.maxFrames, maxBytes: settings.maxKeptMessageBytes))
        clientSends = SendQueue(socket: clientSocket)
        serviceSends = SendQueue(socket: serviceSocket)
        let subscriptionLogger = logger
        notificationSocket = try AsyncSocket(
            context: context, type: .extendedPublisher, name: "gateway.notifications",
            options: [.publisherManual(true), .maxMessageSize(1024), .sendHighWaterMark(100_000)] + curve,
            bind: [settings.notificationEndpoint],
            receiveFilter: { socket, frames in
                Self.applySubscription(frames, on: socket, logger: subscriptionLogger)
                return false
            })
        endpoints = GatewayEndpoints(
            requests: clientSocket.boundEndpoints[0], notifications: notificationSocket.boundEndpoints[0],
            busPublish: busPublish, busSubscribe: busSubscribe, busServices: serviceSocket.boundEndpoints[0])
    }

    /// The gateway's parts, each a `Service`, for one service group (the executable adds the
    /// HTTP front after them). Started in this order and stopped in the reverse one: the
    /// ZeroMQ front stops reading and answers what it has in hand before the notification
    /// relay, housekeeping, the service router, the event log's writer and last the bus hub
    /// stop. Any part that ends by itself stops the group (``LoopService``).
    public var services: [any Service] {
        var parts = [
            part(
                name: "bus hub",
                serve: { [self] in
                    await withTaskGroup(of: Void.self) { group in
                        group.addTask { await self.publisher.watchSubscriptions() }
                        if let busGuard { group.addTask { await busGuard.run() } }
                        await busHub.waitUntilFinished()
                        await busGuard?.close()
                        group.cancelAll()  // the publisher's subscription watch
                    }
                },
                stop: { [self] in
                    await publisher.close()
                    await busHub.stop()
                    await eventLog.store.close()
                    await auditLog.store.close()
                }),
        ]
        // The pool stops after everything that writes (the parts after it) and before the bus
        // hub's stop closes the stores.
        if let storageRunner {
            parts.append(part(name: "database pool", cancelsServe: true, serve: { await storageRunner.waitUntilEnded() }, stop: {}))
        }
        parts += [
            part(
                name: "event log",
                serve: { [self] in
                    await eventLog.serve { [publisher, logger] committed in
                        // A committed batch goes to the bus in one hand-over, in sequence order.
                        let refused = await publisher.publishRaw(committed.map { (topic: $0.topic, body: $0.body) })
                        if refused > 0 {
                            logger.warning(
                                "logged events not published (services read them from the log)", metadata: ["events": "\(refused)"])
                        }
                    }
                },
                stop: { [self] in eventLog.finish() }),
            part(
                name: "services",
                serve: { [self] in await serveServices() },
                stop: { [self] in
                    await finishInFlight(within: .seconds(1))
                    await serviceSends.waitUntilSent()
                    await serviceSocket.close()
                }),
            part(name: "housekeeping", cancelsServe: true, serve: { [self] in await keepHouse() }, stop: {}),
            part(
                name: "retention", cancelsServe: true,
                serve: { [self] in await pruner.run(clock: clock, logger: logger) }, stop: {}),
            part(
                name: "notifications",
                serve: { [self] in await forwardNotifications() },
                stop: { [self] in
                    await notificationFeed.close()
                    await notificationSocket.close()
                }),
            part(
                name: "requests", cancelsServe: true,
                serve: { [self] in
                    logStart()
                    await serveClients()
                },
                stop: { [self] in
                    logger.info("gateway stopping", metadata: ["requests.in_flight": "\(pending.value.count)"])
                    await finishInFlight(within: .seconds(2))
                    // Replies queued in the last moment leave before the socket closes.
                    await clientSends.waitUntilSent()
                    await clientSocket.close()
                }),
        ]
        return parts
    }

    /// `service` (a front the executable adds, such as ``GatewayHTTPFront``) as one of the
    /// gateway's parts: its state counts for readiness, and its end stops the group.
    public func part(named name: String, running service: some Service) -> any Service {
        LoopService(name, states: loops, serve: { try await service.run() })
    }

    /// A part whose state counts for readiness (``loops``).
    private func part(
        name: String, cancelsServe: Bool = false, serve: @escaping @Sendable () async -> Void,
        stop: @escaping @Sendable () async -> Void
    ) -> LoopService {
        LoopService(name, states: loops, cancelsServe: cancelsServe, serve: serve, stop: stop)
    }

    private func logStart() {
        if let curve = settings.curveKeyPair {
            logger.info("public endpoints use CURVE", metadata: ["curve.public_key": "\(curve.publicKey.z85)"])
        }
        settings.runtime.logBusSecurity(to: logger)
        logger.info(
            "gateway listening",
            metadata: [
                "endpoint.requests": "\(endpoints.requests)", "endpoint.notifications": "\(endpoints.notifications)",
                "endpoint.bus.publish": "\(endpoints.busPublish)", "endpoint.bus.subscribe": "\(endpoints.busSubscribe)",
                "endpoint.bus.services": "\(endpoints.busServices)",
            ])
    }

    /// Lets requests already forwarded get their replies and queued events their commit, then
    /// answers the rest with an error.
    private func finishInFlight(within limit: Duration) async {
        let deadline = clock.monotonicMilliseconds + Int64(limit.components.seconds * 1000)
        while (pending.value.count > 0 || !eventLog.isIdle) && clock.monotonicMilliseconds < deadline {
            try? await clock.sleep(for: .milliseconds(20))
        }
        for entry in pending.withLock({ $0.drain() }) {
            await resolve(
                entry,
                with: errorEnvelope(
                    ErrorReply(code: .serviceUnavailable, message: "the gateway is shutting down"), correlationId: nil))
        }
    }

    /// Publishes bus ticks, expires late requests and silent services, and closes WebSockets
    /// whose session token expired.
    private func keepHouse() async {
        var lastTick: Int64 = 0
        var lastEviction: Int64 = 0
        var lastSocketCheck: Int64 = 0
        let heartbeat = settings.runtime.heartbeatInterval.milliseconds
        while !Task.isCancelled {
            let now = clock.monotonicMilliseconds
            if now - lastTick >= heartbeat {
                lastTick = now
                _ = try? await publisher.publish(
                    type: "bus.tick", topic: Topic(rawValue: "bus/tick"), payload: EmptyPayload())
            }
            for entry in pending.withLock({ $0.expire(now: now) }) {
                logger.warning("service did not answer in time", metadata: ["service.name": "\(entry.service)"])
                await resolve(
                    entry,
                    with: errorEnvelope(
                        ErrorReply(
                            code: .serviceTimeout,
                            message: "\(entry.service) did not answer in time; the request may or may not have taken effect"),
                        correlationId: nil))
            }
            for gone in directory.withLock({ $0.expire(now: now) }) {
                logger.warning(
                    "service heartbeat lost",
                    metadata: ["service.name": "\(gone.announcement.service)", "service.instance": "\(gone.announcement.instance)"])
                await notifyOperators(
                    kind: "operator.service-lost", message: "\(gone.announcement.service) stopped answering",
                    details: ["service": .string(gone.announcement.service), "instance": .string(gone.announcement.instance)])
            }
            if now - lastSocketCheck >= 1000 {
                lastSocketCheck = now
                endExpiredSockets()
            }
            if now - lastEviction >= 60_000 {
                lastEviction = now
                let wallNow = clock.nowMilliseconds
                sessions.withLock { $0.evictExpired(now: wallNow) }
            }
            try? await clock.sleep(for: .milliseconds(min(heartbeat, 100)))
        }
    }

    /// Bus topics the gateway follows besides notifications: session revocations and operator news.
    static let revocationPrefix = "auth/"
    static let operatorBusPrefix = "ops/"

    func errorEnvelope(_ error: ErrorReply, correlationId: String?) -> RawEnvelope {
        RawEnvelope(
            type: .error, correlationId: correlationId, timestamp: clock.nowMilliseconds,
            payload: (try? WireCodec.jsonValue(error)) ?? .null)
    }
}

extension Gateway: OperationsProbe {
    /// Ready while every part runs (its listeners are bound in `init`). It does not wait for the
    /// services: one of them down must not take the gateway out of a load balancer.
    public var isReady: Bool {
        get async { loops.allRunning }
    }

    public var loopStates: [String: LoopStates.State] { loops.snapshot }

    public var databaseFiles: [String] { eventLog.store.files + auditLog.store.files }

    public func sampleMetrics() async {
        Gauge(label: MetricNames.sessionsCached).record(sessions.withLock { $0.count })
        Gauge(label: MetricNames.requestsInFlight).record(pending.value.count)
        Gauge(label: MetricNames.websocketConnections).record(openSockets.load(ordering: .relaxed))
        Gauge(label: MetricNames.eventLogHead).record(eventLog.head)
        await (eventLog.store as? any StorageSize)?.recordSize()
        Gauge(label: MetricNames.socketInboxDepth, dimensions: [("socket", "requests")]).record(clientSocket.inboxDepth)
        Gauge(label: MetricNames.socketInboxDepth, dimensions: [("socket", "services")]).record(serviceSocket.inboxDepth)
    }
}

/// Requests the gateway answered, and errors among them, since it started: the console's
/// overview turns them into rates.
final class ConsoleCounts: Sendable {
    let requests = Atomic<Int>(0)
    let errors = Atomic<Int>(0)
}
