import DequeModule
import Foundation
import Logging
import Metrics
import PodiumMessages
import ServiceLifecycle
import Synchronization
import ZeroMQ

/// Runs one Podium service: joins the bus, links to the gateway, answers requests, records
/// what it receives, and shuts down gracefully.
///
/// Shutdown order: stop taking bus messages and requests, let in-flight requests finish and
/// reply, then close the sockets with their linger.
public final class ServiceRuntime: Service, Sendable {
    public let definition: ServiceDefinition
    public let settings: RuntimeSettings
    private let clock: any PodiumClock
    private let logger: Logger
    private let context: ZMQContext
    private let startedAt: Int64
    private let status = Locked(Status())
    private let streams = StreamControl()
    private let sampled = SampledMetrics()
    /// The request counters and timers, made once per label set.
    private let metricHandles = MetricHandles()
    private var followers: Locked<[String: StreamFollower]> { streams.followers }
    /// Prunes the outbox and receipts by retention (nil for a service without durable tables).
    public let pruner: Pruner?
    /// What this instance owns: everything without leases; with leases, what its rounds hold.
    public let ownership: Ownership
    private let keeper: LeaseKeeper?
    /// The states of the loops (``LoopService``) while the service runs: it is ready only while
    /// all of them run.
    public let loops = LoopStates()
    /// The sockets of the running service (nil before ``run()``).
    let running = Locked<Running?>(nil)

    struct Running: Sendable {
        let publisher: BusPublisher
        let subscriber: BusSubscriber
        let links: [ServiceLink]
    }

    private struct Status {
        /// When the last `bus/tick` arrived (monotonic milliseconds): the bus delivers.
        var lastTick: Int64?
        var eventsReceived: UInt64 = 0
        var gapsDetected: UInt64 = 0
        var recentEventIds = Deque<String>()
    }

    /// Most recent bus message ids reported by health.
    static let recentLimit = 32

    /// Opens the service's storage; sockets are created when it runs.
    public init(
        definition: ServiceDefinition,
        settings: RuntimeSettings,
        clock: any PodiumClock = SystemClock(),
        logger: Logger? = nil,
        context: ZMQContext? = nil
    ) throws {
        self.definition = definition
        self.settings = settings
        self.clock = clock
        var logger = logger ?? Logger(label: "podium.\(definition.name)")
        logger[metadataKey: "service"] = "\(definition.name)"
        logger[metadataKey: "instance"] = "\(settings.instanceID)"
        self.logger = logger
        self.context = try context ?? ZMQContext()
        self.startedAt = clock.nowMilliseconds
        let ownership = Ownership(isLeased: definition.leases != nil)
        self.ownership = ownership
        let partitions = definition.partitionMap?.partitions ?? 1
        keeper = definition.leases.map {
            LeaseKeeper(
                store: $0, rules: PartitionLeases(partitions: partitions, duration: settings.leaseMilliseconds),
                instance: settings.instanceID,
                ownership: ownership, clock: clock, logger: logger)
        }
        pruner = definition.retention.map { tables in
            Pruner(
                service: definition.name, stream: definition.outbox == nil ? nil : (definition.name, tables, "outbox"),
                receipts: tables, settings: settings.retention)
        }
    }

    public func run() async throws {
        let security = settings.busSecurity?.memberOptions ?? []
        // One hub per gateway: the publisher and the subscriber connect to all of them, and
        // there is one link to each gateway.
        let publisher = try BusPublisher(
            context: context, endpoints: settings.busPublishEndpoints, publisherID: settings.instanceID, clock: clock,
            security: security)
        let subscriber = try BusSubscriber(
            context: context, endpoints: settings.busSubscribeEndpoints, prefixes: definition.subscriptions,
            name: "\(definition.name).bus", security: security)
        let links = try settings.busServicesEndpoints.map {
            try ServiceLink(context: context, endpoint: $0, instanceID: settings.instanceID, security: security)
        }
        settings.logBusSecurity(to: logger)
        let asker = ServiceAsker(links: links, clock: clock)
        let serviceContext = ServiceContext(
            settings: settings, publisher: publisher, clock: clock, logger: logger, asker: asker,
            outbox: definition.outbox,
            streams: streams, ownership: ownership)
        running.withLock { $0 = Running(publisher: publisher, subscriber: subscriber, links: links) }
        logger.info(
            "service starting",
            metadata: [
                "bus.subscribe": "\(settings.busSubscribeEndpoints.joined(separator: ","))",
                "storage": "\(definition.storage ?? "-")",
            ])
        makeFollowers(context: serviceContext)
        if let keeper {
            _ = await keeper.round()
            logger.info(
                ownership.holdsLeases
                    ? "instance owns the service's data" : "instance stands by (another instance owns the data)",
                metadata: ["partitions": "\(ownership.partitions ?? [])", "lease.ms": "\(settings.leaseMilliseconds)"])
            // A previous owner may have written until a moment ago: load what is kept in memory
            // now that this instance owns the data (a leased service loads nothing before).
            if ownership.holdsLeases {
                await ownershipChanged(gained: ownership.partitions ?? [], lost: [], context: serviceContext)
            }
        }

        let handlers = builtInHandlers(publisher: publisher).merging(definition.requestHandlers) { _, own in own }
        let loops = makeLoops(
            publisher: publisher, subscriber: subscriber, links: links, asker: asker, handlers: handlers,
            context: serviceContext)
        var groupLogger = logger
        groupLogger.logLevel = max(logger.logLevel, .notice)
        let group = ServiceGroup(
            configuration: ServiceGroupConfiguration(services: loops.map { .init(service: $0) }, logger: groupLogger))
        var failure: (any Error)?
        do {
            try await group.run()
        } catch {
            failure = error
            logger.critical(
                "a loop of the service ended; the service stops",
                metadata: ["error": "\(error)", "loops.failed": "\(self.loops.failed)"])
        }
        // Whatever the loops left: the links and the publisher closed, the leases let go, the store closed.
        for link in links { await link.close() }
        await subscriber.close()
        await publisher.close()
        await keeper?.leave()
        await definition.shutdown?()
        logger.info("service stopped")
        if let failure { throw failure }
    }

    /// The runtime's loops, each a ``LoopService`` in one service group, in start order (the group
    /// stops them in the reverse one): the bus publisher's subscription watch, the lease keeper,
    /// the bus consumer, the stream followers, the outbox relay, retention, the service's periodic
    /// work, then for each gateway its link's connection watch, the announcements and the request
    /// server. The request servers stop first (they stop reading, and what is in flight answers),
    /// the link's watch closes the link once the replies left, and the bus goes last.
    private func makeLoops(
        publisher: BusPublisher, subscriber: BusSubscriber, links: [ServiceLink], asker: ServiceAsker,
        handlers: [MessageType: RequestHandler], context: ServiceContext
    ) -> [LoopService] {
        let states = self.loops
        var loops = [
            LoopService(
                "bus publisher", states: states, serve: { await publisher.watchSubscriptions() },
                stop: { await publisher.close() })
        ]
        if let runner = definition.storageRunner {
            loops.append(
                LoopService(
                    "database pool", states: states, cancelsServe: true, serve: { await runner.waitUntilEnded() }))
        }
        if let keeper {
            loops.append(
                LoopService(
                    "lease keeper", states: states, cancelsServe: true,
                    serve: {
                        await keeper.run { gained, lost in
                            await self.ownershipChanged(gained: gained, lost: lost, context: context)
                        }
                    }))
        }
        loops.append(
            LoopService(
                "bus subscriber", states: states, serve: { await self.consume(subscriber, context: context) },
                stop: { await subscriber.close() }))
        if !followers.value.isEmpty {
            loops.append(
                LoopService(
                    "stream followers", states: states, cancelsServe: true,
                    serve: { await self.keepFollowersCaughtUp() }))
        }
        if let relay = definition.outbox {
            loops.append(
                LoopService(
                    "outbox relay", states: states, cancelsServe: true,
                    serve: { [ownership, logger] in
                        await relay.run(publisher: publisher, logger: logger) { ownership.isOwner }
                    },
                    stop: { relay.finish() }))
        }
        if let pruner {
            loops.append(
                LoopService(
                    "retention", states: states, cancelsServe: true,
                    serve: { [clock, logger] in
                        await self.whileOwner { await pruner.run(clock: clock, logger: logger) }
                    }))
        }
        if let everyInstance = definition.onEveryInstance {
            loops.append(
                LoopService(
                    "instance work", states: states, cancelsServe: true, serve: { await everyInstance(context) }))
        }
        if let background = definition.background {
            loops.append(
                LoopService(
                    "periodic work", states: states, cancelsServe: true,
                    serve: { await self.whileOwner { await background(context) } }))
        }
        let shuttingDown = ErrorReply(code: .serviceUnavailable, message: "\(definition.name) is shutting down")
        for (index, link) in links.enumerated() {
            let suffix = links.count > 1 ? " \(index + 1)" : ""
            loops.append(
                LoopService(
                    "gateway link\(suffix)", states: states, serve: { await link.watch() }, stop: { await link.close() }
                ))
            loops.append(
                LoopService(
                    "announcements\(suffix)", states: states, cancelsServe: true,
                    serve: { await self.announce(over: link, handles: Array(handlers.keys)) }))
            loops.append(
                LoopService(
                    "requests\(suffix)", states: states, cancelsServe: true,
                    // Questions to other services fail at once, so handlers in flight finish.
                    onShutdown: { asker.failAll(shuttingDown) },
                    serve: { await self.serve(link, handlers: handlers, context: context, asker: asker) }))
        }
        return loops
    }

    // MARK: - Bus

    private func consume(_ subscriber: BusSubscriber, context: ServiceContext) async {
        await subscriber.run(
            logger: logger,
            onTick: { [status, clock] in status.withLock { $0.lastTick = clock.monotonicMilliseconds } },
            onGap: { [status] _, missing in
                status.withLock { $0.gapsDetected += UInt64(missing.count) }
            },
            handle: { delivery in
                await self.record(delivery)
                if let publisher = delivery.envelope.publisher, let follower = self.followers.value[publisher] {
                    guard self.followsStreams else { return }
                    await follower.deliver(StreamMessage(topic: delivery.topic.rawValue, envelope: delivery.envelope))
                } else {
                    await self.definition.onBusMessage?(delivery, context)
                }
            })
    }

    // MARK: - Durable streams

    /// Whether this instance follows its streams now: a consumer group member while it serves a
    /// partition, otherwise the holder of partition 0 (the owner of an unpartitioned service).
    private var followsStreams: Bool {
        definition.partitionMap != nil && (definition.streamKey != nil || definition.broadcastsStreams)
            ? !ownership.served.isEmpty : ownership.isOwner
    }

    private func makeFollowers(context: ServiceContext) {
        guard var consumer = definition.consumer else { return }
        if let map = definition.partitionMap, let key = definition.streamKey {
            consumer = PartitionedConsumer(
                consumer, map: map, ownership: ownership, broadcastStreams: definition.broadcastStreams, key: key)
        } else if let map = definition.partitionMap, definition.broadcastsStreams {
            consumer = PartitionedConsumer(consumer, map: map, ownership: ownership, broadcast: true)
        }
        var made: [String: StreamFollower] = [:]
        for stream in definition.follows {
            let read = StreamName.read(of: stream)
            made[stream] = StreamFollower(stream: stream, consumer: consumer, context: context) { after in
                try await context.call(read, StreamRead(after: after, limit: 500))
            }
        }
        followers.withLock { $0 = made }
    }

    /// Reads what the followed streams hold beyond each position: at start (before live
    /// messages are applied), then every second, so a lost newest message is found too.
    private func keepFollowersCaughtUp() async {
        let all = Array(followers.value.values)
        guard !all.isEmpty else { return }
        while !Task.isCancelled {
            if followsStreams { for follower in all { await follower.catchUp() } }
            try? await clock.sleep(for: .seconds(1))
        }
    }

    /// Where this instance stands in a followed stream (nil if it does not follow it).
    public func streamStatus(_ stream: String) -> StreamStatus? { followers.value[stream]?.status }

    // MARK: - Ownership

    /// Runs `work` while this instance owns the service's data (partition 0 of a partitioned
    /// service: periodic work runs on one instance only); cancels it when ownership goes, and
    /// starts it again when it comes back.
    private func whileOwner(_ work: @escaping @Sendable () async -> Void) async {
        while !Task.isCancelled {
            guard ownership.isOwner else {
                try? await clock.sleep(for: .milliseconds(200))
                continue
            }
            await withTaskGroup(of: Void.self) { group in
                group.addTask { await work() }
                group.addTask { [ownership, clock] in
                    while ownership.isOwner && !Task.isCancelled { try? await clock.sleep(for: .milliseconds(200)) }
                }
                _ = await group.next()
                group.cancelAll()
            }
        }
    }

    /// A lease round changed what this instance owns: on a gain it loads what it keeps in memory
    /// for the gained partitions before it serves them (``Ownership/serves(_:)`` stays false for
    /// them until then; the others go on serving); on a loss it drops what it kept for the lost
    /// ones. Either way the followers read their positions from the store again.
    private func ownershipChanged(gained: [Int], lost: [Int], context: ServiceContext) async {
        for follower in followers.value.values { follower.forgetPosition() }
        if !lost.isEmpty { await definition.onOwnershipLost?(lost) }
        // Serving the gained partitions starts once this ends, loaded or with no lease left.
        defer { ownership.finishLoading(gained) }
        if !gained.isEmpty, ownership.holdsLeases {
            do {
                try await definition.onOwnershipGained?(context, gained)
            } catch {
                // Serving without the state would answer wrong: let the leases go; the next
                // round takes them again (if nobody else does) and tries once more.
                logger.error(
                    "state not loaded after taking over; letting the leases go", metadata: ["error": "\(error)"])
                await keeper?.leave()
                return
            }
        }
        logger.notice(
            ownership.holdsLeases
                ? "instance took over partitions of the service's data"
                : "instance lost the service's data; standing by",
            metadata: ["gained": "\(gained)", "lost": "\(lost)", "partitions": "\(ownership.partitions ?? [])"])
    }

    private func record(_ delivery: BusDelivery) async {
        let envelope = delivery.envelope
        status.withLock { status in
            status.eventsReceived += 1
            status.recentEventIds.append(envelope.id)
            if status.recentEventIds.count > Self.recentLimit { status.recentEventIds.removeFirst() }
        }
        logger.debug(
            "bus message received",
            metadata: ["bus.topic": "\(delivery.topic)", "message.id": "\(envelope.id)"])
    }

    // MARK: - Gateway link

    private func announce(over link: ServiceLink, handles: [MessageType]) async {
        let interval = settings.heartbeatInterval.milliseconds
        var announcement = ServiceAnnouncement(
            service: definition.name, instance: settings.instanceID,
            requestTypes: handles.map(\.rawValue).sorted(), heartbeatIntervalMilliseconds: Int(interval))
        announcement.partitionCount = definition.partitionMap?.partitions
        while !Task.isCancelled {
            do {
                announcement.partitions = ownership.partitions
                try await link.send(
                    Envelope(type: .serviceAnnouncement, timestamp: clock.nowMilliseconds, payload: announcement))
                // Next heartbeat, or at once when what this instance owns changes.
                let due = clock.monotonicMilliseconds + interval
                while clock.monotonicMilliseconds < due && ownership.partitions == announcement.partitions {
                    try await clock.sleep(for: .milliseconds(min(interval, 50)))
                }
            } catch {
                return
            }
        }
    }

    private func serve(
        _ link: ServiceLink, handlers: [MessageType: RequestHandler], context: ServiceContext, asker: ServiceAsker
    ) async {
        await withDiscardingTaskGroup { inFlight in
            while true {
                // Everything the gateway sent that is waiting, in one hand-over from the socket.
                let messages: [ZMQMessage]
                do {
                    guard let next = try await link.receiveBatch() else { return }
                    messages = next
                } catch {
                    return  // cancelled by shutdown, or the socket failed
                }
                for message in messages {
                    let frames = message.frames
                    guard frames.count == 1 else {
                        logger.warning("gateway message dropped: undecodable", metadata: ["frames": "\(frames.count)"])
                        continue
                    }
                    let body = frames[0]
                    // Answers to this service's own questions complete here, in order; a request
                    // is read on its own task, so that one loop does not parse every request.
                    if let type = EnvelopeHeader.scan(body)?.type,
                        type == MessageType.reply.rawValue || type == MessageType.error.rawValue
                    {
                        if let answer = try? WireCodec.decode(RawEnvelope.self, from: body) {
                            complete(answer, asker: asker)
                        } else {
                            logger.warning("gateway message dropped: undecodable", metadata: ["frames": "1"])
                        }
                        continue
                    }
                    inFlight.addTask {
                        guard let request = try? WireCodec.decode(RawEnvelope.self, from: body) else {
                            self.logger.warning("gateway message dropped: undecodable", metadata: ["frames": "1"])
                            return
                        }
                        if request.type == .reply || request.type == .error {
                            self.complete(request, asker: asker)
                            return
                        }
                        let reply = await self.answer(request, handlers: handlers, context: context)
                        do {
                            try await link.send(reply)
                        } catch {
                            self.logger.error(
                                "reply not sent", metadata: ["request.id": "\(request.id)", "error": "\(error)"])
                        }
                    }
                }
            }
        }
    }

    /// An answer to a question this service asked through the gateway.
    private func complete(_ answer: RawEnvelope, asker: ServiceAsker) {
        if let id = answer.correlationId, asker.complete(id, with: answer) { return }
        logger.debug("late or unknown reply dropped", metadata: ["message.id": "\(answer.id)"])
    }

    /// The answer to a request, counted and timed (`podium_service_requests_total`,
    /// `podium_service_request_duration_seconds`).
    private func answer(
        _ request: RawEnvelope, handlers: [MessageType: RequestHandler], context: ServiceContext
    ) async -> RawEnvelope {
        let started = ContinuousClock.now
        let reply = await handle(request, handlers: handlers, context: context)
        let type = MetricNames.typeLabel(request.type.rawValue, known: handlers[request.type] != nil)
        let code = reply.type == .error ? (reply.payload["code"]?.stringValue ?? "internal_error") : "ok"
        metricHandles.counter(
            MetricNames.serviceRequests, [("service", definition.name), ("type", type), ("code", code)]
        ).increment()
        metricHandles.timer(MetricNames.serviceRequestDuration, [("service", definition.name), ("type", type)])
            .record(duration: ContinuousClock.now - started)
        return reply
    }

    private func handle(
        _ request: RawEnvelope, handlers: [MessageType: RequestHandler], context: ServiceContext
    ) async -> RawEnvelope {
        let now = clock.nowMilliseconds
        guard let handler = handlers[request.type] else {
            logger.warning("request rejected: unknown type", metadata: ["request.type": "\(request.type)"])
            return Self.errorEnvelope(
                ErrorReply(
                    code: .unknownType, message: "\(definition.name) does not handle '\(request.type)'", field: "type"),
                for: request, at: now)
        }
        // A standby answers only what any instance may: health, receipts, outbox pages. With
        // partitions, a request with a key is served by the owner of the key's partition only
        // (the gateway routes it there; one that arrives as the partition moves is refused and
        // resent), and one without by any instance that owns a partition.
        var fencedPartition: Int?
        if definition.requestHandlers[request.type] != nil {
            let partition = definition.partitionMap.flatMap { map in
                PartitionKey.of(request).map { map.partition(of: $0) }
            }
            let serves =
                partition.map { ownership.serves($0) }
                ?? (definition.partitionMap == nil ? ownership.isOwner : ownership.holdsLeases)
            if let partition {
                Counter(
                    label: MetricNames.partitionRequests,
                    dimensions: [
                        ("service", definition.name), ("partition", "\(partition)"),
                        ("outcome", serves ? "served" : "refused"),
                    ]
                ).increment()
            }
            guard serves else {
                logger.info(
                    "request refused: this instance does not own its partition",
                    metadata: ["request.type": "\(request.type)", "partition": "\(partition.map(String.init) ?? "-")"])
                return Self.errorEnvelope(LeaseLost(service: definition.name).reply, for: request, at: now)
            }
            fencedPartition = partition
        }
        do {
            // A keyed request's writes are fenced by its partition's lease alone (FencedPartitions).
            let result = try await FencedPartitions.$current.withValue(fencedPartition.map { [$0] }) {
                try await handler(request, context)
            }
            return RawEnvelope(
                type: .reply, correlationId: request.id, gameId: request.gameId, playerId: request.playerId,
                timestamp: clock.nowMilliseconds, payload: result)
        } catch let error as ErrorReply {
            logger.info(
                "request rejected",
                metadata: [
                    "request.type": "\(request.type)", "error.code": "\(error.code)",
                    "error.message": "\(error.message)",
                ])
            return Self.errorEnvelope(error, for: request, at: clock.nowMilliseconds)
        } catch let error as LeaseLost {
            logger.warning("request refused: the lease changed hands", metadata: ["request.type": "\(request.type)"])
            return Self.errorEnvelope(error.reply, for: request, at: clock.nowMilliseconds)
        } catch let error as StorageUnavailable {
            logger.warning(
                "request refused: storage unavailable",
                metadata: ["request.type": "\(request.type)", "error": "\(error.cause)"])
            return Self.errorEnvelope(error.reply, for: request, at: clock.nowMilliseconds)
        } catch is CancellationError {
            // Shutting down: whatever the handler did is either committed whole or not at all, and
            // a resend with the same id tells which (state-changing requests are idempotent).
            logger.info("request cut short by shutdown", metadata: ["request.type": "\(request.type)"])
            return Self.errorEnvelope(
                ErrorReply(
                    code: .serviceUnavailable,
                    message: "\(definition.name) is shutting down; send the request again with the same id"),
                for: request, at: clock.nowMilliseconds)
        } catch {
            logger.error("request failed", metadata: ["request.type": "\(request.type)", "error": "\(error)"])
            return Self.errorEnvelope(
                ErrorReply(code: .internalError, message: "\(definition.name) could not complete the request"),
                for: request, at: clock.nowMilliseconds)
        }
    }

    private static func errorEnvelope(_ error: ErrorReply, for request: RawEnvelope, at now: Int64) -> RawEnvelope {
        let payload = (try? WireCodec.jsonValue(error)) ?? .null
        return RawEnvelope(
            type: .error, correlationId: request.id, gameId: request.gameId, playerId: request.playerId,
            timestamp: now, payload: payload)
    }

    // MARK: - Built-in requests

    private func builtInHandlers(publisher: BusPublisher) -> [MessageType: RequestHandler] {
        let name = definition.name
        var handlers: [TypedRequestHandler] = [
            // The service answers in detail; the gateway tells clients without the admin key only
            // whether it is ready (PROTOCOL.md 7.5).
            ServiceRequests.healthDetails(of: name).handler { [self] _, _ in await self.health(publisher) },
            ServiceRequests.testNotification(of: name).handler { [self] request, _ in
                try await self.publishTestNotification(request.envelope, publisher: publisher)
            },
        ]
        if let receipts = definition.receipts {
            handlers.append(
                ServiceRequests.receipt(of: name).handler { request, _ in
                    guard let id = request.payload.id else {
                        throw ErrorReply(code: .missingField, message: "give the id", field: "payload.id")
                    }
                    let scope = RequestReceipts.scope(
                        gameId: request.payload.gameId, playerId: request.payload.playerId)
                    return try await receipts.storedReply(scope: scope, requestId: id)
                })
        }
        if let outbox = definition.outbox {
            handlers.append(
                ServiceRequests.outboxRead(of: name).handler { [pruner] request, _ in
                    let limit = try request.payload.checkedLimit()
                    pruner?.noteRead(by: request.caller, after: request.payload.after)
                    return try await outbox.page(after: request.payload.after, limit: limit)
                })
        }
        return Dictionary(uniqueKeysWithValues: handlers.map { ($0.type, $0.handler) })
    }

    /// How long the bus may stay silent (no `bus/tick` from any gateway) before the service stops
    /// being ready: five heartbeats, at least 5 s.
    var tickWindowMilliseconds: Int64 { max(5000, 5 * settings.heartbeatInterval.milliseconds) }

    /// Ready while every loop runs, the bus delivers (a gateway's `bus/tick` arrived within
    /// ``tickWindowMilliseconds``) and the publisher's subscription reached a hub: computed from
    /// the loops and the bus each time, never a flag set once.
    func readiness(publisher: BusPublisher?) -> Bool {
        guard loops.allRunning, let publisher, publisher.hasSubscribers, let tick = status.value.lastTick else {
            return false
        }
        return clock.monotonicMilliseconds - tick <= tickWindowMilliseconds
    }

    /// The current health report.
    func health(_ publisher: BusPublisher) async -> ServiceHealth {
        let snapshot = status.withLock { $0 }
        return ServiceHealth(
            service: definition.name, instance: settings.instanceID,
            ready: readiness(publisher: publisher),
            startedAt: startedAt, subscriptions: definition.subscriptions,
            eventsReceived: snapshot.eventsReceived, recentEventIds: Array(snapshot.recentEventIds),
            gapsDetected: snapshot.gapsDetected, storage: definition.storage ?? "none",
            streams: followers.value.isEmpty ? nil : followers.value.mapValues(\.status),
            partitions: ownership.partitions, partitionCount: definition.partitionMap?.partitions)
    }

    private func publishTestNotification(_ request: RawEnvelope, publisher: BusPublisher) async throws
        -> TestNotificationReceipt
    {
        guard let gameId = request.gameId else {
            throw ErrorReply(code: .missingField, message: "a test notification needs a gameId", field: "gameId")
        }
        guard let playerId = request.playerId else {
            throw ErrorReply(code: .missingField, message: "a test notification needs a playerId", field: "playerId")
        }
        var text = "Test notification from \(definition.name)"
        if let custom = request.payload["message"], custom != .null {
            guard let string = custom.stringValue, string.utf8.count <= 512 else {
                throw ErrorReply(
                    code: .invalidField, message: "message must be a string of at most 512 bytes",
                    field: "payload.message")
            }
            text = string
        }
        let topic = Topic.notification(gameId: gameId, playerId: playerId)
        let published = try await publisher.publish(
            type: .notification, topic: topic,
            payload: PlayerNotification(
                kind: "diagnostic.test", message: text, details: ["service": .string(definition.name)]),
            gameId: gameId, playerId: playerId, correlationId: request.correlationId ?? request.id)
        logger.info(
            "test notification published", metadata: ["player.id": "\(playerId)", "message.id": "\(published.id)"])
        return TestNotificationReceipt(notificationId: published.id, topic: topic.rawValue)
    }
}

extension ServiceRuntime: OperationsProbe {
    /// Ready as `health` says (``readiness(publisher:)``).
    public var isReady: Bool {
        get async { readiness(publisher: running.value?.publisher) }
    }

    public var loopStates: [String: LoopStates.State] { loops.snapshot }

    /// The service's SQLite file, from its storage description (`sqlite:<path>`).
    public var databaseFiles: [String] {
        guard let storage = definition.storage, storage.hasPrefix("sqlite:") else { return [] }
        return [String(storage.dropFirst("sqlite:".count))]
    }

    public func sampleMetrics() async {
        await definition.sizedStorage?.recordSize()
        let snapshot = status.value
        sampled.counter(MetricNames.busMessagesReceived, [("service", definition.name)]).update(
            to: snapshot.eventsReceived)
        sampled.counter(MetricNames.busGapsDetected, [("service", definition.name)]).update(to: snapshot.gapsDetected)
        for (stream, follower) in followers.value {
            let status = follower.status
            let dimensions = [("service", definition.name), ("stream", stream)]
            Gauge(label: MetricNames.streamPosition, dimensions: dimensions).record(status.position)
            Gauge(label: MetricNames.streamHead, dimensions: dimensions).record(status.head)
            Gauge(label: MetricNames.streamLag, dimensions: dimensions).record(
                status.head - min(status.head, status.position))
            sampled.counter(MetricNames.busGapsRepaired, dimensions).update(to: status.refetched)
        }
    }
}
