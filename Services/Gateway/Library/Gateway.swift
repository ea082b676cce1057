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
///
/// The composition root: `init` binds the sockets and builds the parts, each given what it
/// needs: ``BusHub``; the ``EventLog`` and ``AuditLog``; ``ServiceRouter`` (the service ROUTER
/// around the ``Routing`` state machine); ``ClientSessions`` (the session cache in front of the
/// auth service); ``RequestLimits``; ``GatewayPipeline``, the ``RequestPipeline`` every front
/// calls; ``ZeroMQFront``; ``NotificationRelay`` and the ``WebSocketHub``. ``services`` lists
/// the long-running ones for the service group.
public final class Gateway: Sendable {
    public let settings: GatewaySettings
    /// Where the gateway listens.
    public let endpoints: GatewayEndpoints

    let clock: any PodiumClock
    let logger: Logger
    /// The bus hub and the gateway's own publisher on it.
    let bus: BusHub
    /// Every acknowledged event, on disk before its acknowledgement; its writer is a part.
    let eventLog: EventLog
    /// The service ROUTER and routing (directory, pending requests).
    let router: ServiceRouter
    /// The notification endpoint and the bus feed it relays.
    let relay: NotificationRelay
    /// The request ROUTER.
    let front: ZeroMQFront
    /// What every front calls.
    let pipeline: GatewayPipeline
    /// What the stores run while open (PostgreSQL's connection pool), watched as a part.
    let storageRunner: (any StorageRunner)?
    /// The states of the parts (``services``); the gateway is ready while all of them run.
    let loops = LoopStates()
    /// Sharing the players' admitted requests with the other gateways (PostgreSQL only).
    let rateSharing: RateSharing?
    /// The web console's sessions (`/console`).
    let consoleSessions = Locked(ConsoleSessions())
    /// Failed console logins (``ConsoleLoginThrottle``), shared by every console request.
    let consoleLoginThrottle = Locked(ConsoleLoginThrottle())

    public init(
        settings: GatewaySettings, clock: any PodiumClock = SystemClock(), logger: Logger? = nil,
        openStorage: GatewayStorageOpener
    ) async throws {
        self.settings = settings
        self.clock = clock
        var logger = logger ?? Logger(label: "podium.gateway")
        logger[metadataKey: "service"] = "gateway"
        logger[metadataKey: "instance"] = "\(settings.runtime.instanceID)"
        self.logger = logger
        let topics = NotificationTopics(secret: settings.notificationSecret)
        let tokens = await SessionTokens(key: settings.tokenKey)
        let storage = try await openStorage(settings.runtime)
        let eventLog = try await EventLog(store: storage.eventLog)
        self.eventLog = eventLog
        self.storageRunner = storage.runner
        let audit = AuditLog(store: storage.audit, clock: clock, logger: logger)
        let pruner = Pruner(
            service: "gateway", stream: (StreamName.events, storage.eventLog, "event"), receipts: nil,
            settings: settings.runtime.retention)
        // CURVE options must be on the public sockets before they bind.
        let curve = settings.curveKeyPair?.serverOptions ?? []
        let bus = try BusHub(settings: settings.runtime, clock: clock, logger: logger)
        self.bus = bus
        let context = bus.context
        let busOptions = settings.runtime.busSecurity?.hubOptions ?? []

        let notificationFeed = try AsyncSocket(
            context: context, type: .subscriber, name: "gateway.notification-feed",
            options: [
                .receiveHighWaterMark(100_000), .subscribe(Data(Topic.allNotifications.utf8)),
                .subscribe(Data(NotificationRelay.revocationPrefix.utf8)),
                .subscribe(Data(NotificationRelay.operatorBusPrefix.utf8)),
            ]
                // Accepted scores drop the kept top pages of their game (PopularReads).
                + (settings.readCacheLifetime == nil ? [] : [.subscribe(Data(PopularReads.scoreTopicPrefix.utf8))]),
            connect: [bus.inprocSubscribeEndpoint])
        let serviceSocket = try AsyncSocket(
            context: context, type: .router, name: "gateway.services",
            options: [
                .routerMandatory(true), .routerHandover(true), .sendHighWaterMark(100_000),
                .receiveHighWaterMark(100_000), .heartbeatIntervalMilliseconds(1000),
                .heartbeatTimeoutMilliseconds(3000),
            ] + busOptions,
            bind: [settings.runtime.busServicesEndpoint],
            monitor: bus.busGuard?.monitorEndpoints[2])
        let clientSocket = try AsyncSocket(
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
        let subscriptionLogger = logger
        let notificationSocket = try AsyncSocket(
            context: context, type: .extendedPublisher, name: "gateway.notifications",
            options: [.publisherManual(true), .maxMessageSize(1024), .sendHighWaterMark(100_000)] + curve,
            bind: [settings.notificationEndpoint],
            receiveFilter: { socket, frames in
                NotificationRelay.applySubscription(frames, on: socket, logger: subscriptionLogger)
                return false
            })
        endpoints = GatewayEndpoints(
            requests: clientSocket.boundEndpoints[0], notifications: notificationSocket.boundEndpoints[0],
            busPublish: bus.publishEndpoint, busSubscribe: bus.subscribeEndpoint,
            busServices: serviceSocket.boundEndpoints[0])

        // The parts, each given what it needs.
        let router = ServiceRouter(
            socket: serviceSocket,
            limits: Routing.Limits(
                requestTimeout: settings.requestTimeout.milliseconds, maxInFlight: settings.maxInFlight,
                knownServices: settings.expectedServices),
            eventLog: eventLog, pruner: pruner,
            operators: OperatorNotifier(
                socket: notificationSocket, topic: topics.operatorTopic, instanceID: settings.runtime.instanceID,
                clock: clock),
            clock: clock, logger: logger)
        self.router = router
        let sockets = WebSocketHub(tokens: tokens, clock: clock)
        let sessions = ClientSessions(
            authorizer: Authorizer(settings: settings, tokens: tokens), router: router, sockets: sockets,
            checkTimeout: min(settings.requestTimeout, .seconds(2)), clock: clock, logger: logger)
        let limits = RequestLimits(settings: settings, router: router, clock: clock)
        rateSharing = storage.rateUsage.map {
            limits.shareWithOtherGateways()
            return RateSharing(usage: $0, limits: limits, gateway: settings.runtime.instanceID, clock: clock)
        }
        let operators = Operators(
            store: storage.operators, hasher: PasswordHasher(cost: settings.operatorPasswordCost), clock: clock)
        let readCache = settings.readCacheLifetime.map { ReadCache(lifetime: $0, clock: clock) }
        let pipeline = GatewayPipeline(
            settings: settings, sessions: sessions, limits: limits, router: router, eventLog: eventLog, audit: audit,
            operators: operators,
            topics: topics, readCache: readCache,
            clock: clock, logger: logger)
        self.pipeline = pipeline
        relay = NotificationRelay(
            feed: notificationFeed, socket: notificationSocket, topics: topics, sessions: sessions, sockets: sockets,
            readCache: readCache, logger: logger)
        front = ZeroMQFront(
            socket: clientSocket, pipeline: pipeline, limits: limits,
            maxWholeMessageBytes: settings.maxWholeMessageBytes,
            clock: clock, logger: logger)
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
                serve: { [bus] in await bus.run() },
                stop: { [self] in
                    await bus.stop()
                    await eventLog.store.close()
                    await pipeline.audit.store.close()
                })
        ]
        // The pool stops after everything that writes (the parts after it) and before the bus
        // hub's stop closes the stores.
        if let storageRunner {
            parts.append(
                part(
                    name: "database pool", cancelsServe: true, serve: { await storageRunner.waitUntilEnded() }, stop: {}
                ))
        }
        parts += [
            part(
                name: "event log",
                serve: { [eventLog, bus, logger] in
                    await eventLog.serve { committed in
                        // A committed batch goes to the bus in one hand-over, in sequence order.
                        let refused = await bus.publisher.publishRaw(committed.map { (topic: $0.topic, body: $0.body) })
                        if refused > 0 {
                            logger.warning(
                                "logged events not published (services read them from the log)",
                                metadata: ["events": "\(refused)"])
                        }
                    }
                },
                stop: { [eventLog] in eventLog.finish() }),
            part(
                name: "services",
                serve: { [router] in await router.serve() },
                stop: { [router, eventLog] in
                    await router.finishInFlight(within: .seconds(1), whileBusy: { !eventLog.isIdle })
                    await router.close()
                }),
            part(
                name: "housekeeping", cancelsServe: true, serve: { [housekeeping] in await housekeeping.run() },
                stop: {}),
            part(
                name: "log erasure", cancelsServe: true,
                serve: { [self] in
                    await LogErasure(
                        router: router, eventLog: eventLog.store, audit: pipeline.audit.store, clock: clock,
                        logger: logger
                    ).run()
                }, stop: {}),
            part(
                name: "retention", cancelsServe: true,
                serve: { [pruner, clock, logger] in await pruner.run(clock: clock, logger: logger) }, stop: {}),
        ]
        if let rateSharing {
            parts.append(
                part(
                    name: "rate sharing", cancelsServe: true,
                    serve: { [logger] in await rateSharing.run(logger: logger) }, stop: {}))
        }
        parts += [
            part(
                name: "notifications",
                serve: { [relay] in await relay.run() },
                stop: { [relay] in await relay.close() }),
            part(
                name: "requests", cancelsServe: true,
                serve: { [self] in
                    logStart()
                    await front.serve()
                },
                stop: { [router, front, eventLog, logger] in
                    logger.info("gateway stopping", metadata: ["requests.in_flight": "\(router.inFlight)"])
                    await router.finishInFlight(within: .seconds(2), whileBusy: { !eventLog.isIdle })
                    await front.close()
                }),
        ]
        return parts
    }

    /// Periodic chores: bus ticks, routing's deadlines, expired WebSockets and tokens.
    private var housekeeping: Housekeeping {
        Housekeeping(
            publisher: bus.publisher, router: router, sessions: pipeline.sessions, sockets: relay.sockets,
            heartbeat: settings.runtime.heartbeatInterval, clock: clock)
    }

    /// Prunes the event log by retention, never past what the services following it have read.
    public var pruner: Pruner { router.pruner }

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
                "endpoint.bus.publish": "\(endpoints.busPublish)",
                "endpoint.bus.subscribe": "\(endpoints.busSubscribe)",
                "endpoint.bus.services": "\(endpoints.busServices)",
            ])
    }
}

extension Gateway: OperationsProbe {
    /// Ready while every part runs (its listeners are bound in `init`). It does not wait for the
    /// services: one of them down must not take the gateway out of a load balancer.
    public var isReady: Bool {
        get async { loops.allRunning }
    }

    public var loopStates: [String: LoopStates.State] { loops.snapshot }

    public var databaseFiles: [String] { eventLog.store.files + pipeline.audit.store.files }

    public func sampleMetrics() async {
        Gauge(label: MetricNames.sessionsCached).record(pipeline.sessions.count)
        Gauge(label: MetricNames.requestsInFlight).record(router.inFlight)
        Gauge(label: MetricNames.websocketConnections).record(relay.sockets.openCount)
        Gauge(label: MetricNames.eventLogHead).record(eventLog.head)
        await (eventLog.store as? any StorageSize)?.recordSize()
        Gauge(label: MetricNames.socketInboxDepth, dimensions: [("socket", "requests")]).record(front.socket.inboxDepth)
        Gauge(label: MetricNames.socketInboxDepth, dimensions: [("socket", "services")]).record(
            router.socket.inboxDepth)
    }
}

extension Gateway {
    /// What the operators' console is given (``ConsoleParts``): the HTTP front hands it on.
    var consoleParts: ConsoleParts {
        ConsoleParts(
            pipeline: pipeline, sessions: consoleSessions, loginThrottle: consoleLoginThrottle, eventLog: eventLog,
            clock: clock, settings: settings)
    }
}
