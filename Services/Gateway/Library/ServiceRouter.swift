import Foundation
import Logging
import PodiumMessages
import PodiumRuntime
import ZeroMQ

/// The shell around ``Routing``: owns the service ROUTER (`PODIUM_BUS_SERVICES`) and its send
/// queue, feeds the state machine what arrives and what fails, and carries out the actions it
/// returns. Requests from every front reach services through ``forward(_:from:)``; the gateway's
/// own questions through ``ask(_:payload:timeout:)``.
final class ServiceRouter: Sendable {
    let routing: Locked<Routing>
    let socket: AsyncSocket
    /// Messages to services, handed to the socket in batches.
    private let sends: SendQueue
    private let clock: any PodiumClock
    private let logger: Logger
    /// Services read the event log through the gateway (`events.read`).
    private let eventLog: EventLog
    /// Prunes the event log by retention, never past what the services following it have read.
    let pruner: Pruner
    /// Tells operators when instances come and go.
    private let operators: OperatorNotifier

    init(
        socket: AsyncSocket, limits: Routing.Limits, eventLog: EventLog, pruner: Pruner, operators: OperatorNotifier,
        clock: any PodiumClock, logger: Logger
    ) {
        self.routing = Locked(Routing(limits: limits))
        self.socket = socket
        self.sends = SendQueue(socket: socket)
        self.eventLog = eventLog
        self.pruner = pruner
        self.operators = operators
        self.clock = clock
        self.logger = logger
    }

    /// Messages taken from the socket at a time.
    static let batch = 256

    private var envelopes: Envelopes { Envelopes(clock: clock) }

    // MARK: Reading

    /// Requests waiting on services.
    var inFlight: Int { routing.withLock { $0.inFlight } }

    /// How many of this connection's requests are waiting on services.
    func inFlight(fromConnection connection: ClientConnection.Key) -> Int {
        routing.withLock { $0.inFlight(fromConnection: connection) }
    }

    /// Whether some service announced the type since the gateway started.
    func isAnnounced(_ type: MessageType) -> Bool { routing.withLock { $0.isAnnounced(type) } }

    /// Names of the services with at least one live instance.
    var connectedServices: [String] { routing.withLock { $0.connectedServices } }

    // MARK: Requests

    /// Forwards a client's request (`envelope.id` the internal id, `correlationId` the client's)
    /// to an instance of its service; throws the refusal if none may take it now. The reply, or
    /// the gateway's error in its place, goes to `client.deliver` (or, passed on as it came,
    /// `client.deliverEncoded`).
    func forward(_ envelope: RawEnvelope, from client: ClientConnection) async throws(ErrorReply) {
        let now = clock.monotonicMilliseconds
        let admitted = routing.withLock { routing -> Result<Routing.Action, ErrorReply> in
            do throws(ErrorReply) {
                return .success(try routing.forward(envelope, from: client, now: now))
            } catch {
                return .failure(error)
            }
        }
        await perform(try admitted.get())
    }

    /// Asks one service a question on the gateway's own behalf; the answer, or the gateway's
    /// error in its place.
    func ask(_ type: MessageType, payload: JSONValue = .object([:]), timeout: Duration) async -> RawEnvelope {
        let envelope = RawEnvelope(
            type: type, id: MessageID.make(), timestamp: clock.nowMilliseconds,
            actor: Actor(kind: .service, service: "gateway"),
            payload: payload)
        let now = clock.monotonicMilliseconds
        let slot = ReplySlot<RawEnvelope>()
        let admitted = routing.withLock { routing -> Result<Routing.Action, ErrorReply> in
            do throws(ErrorReply) {
                return .success(try routing.ask(envelope, answer: slot, timeout: timeout.milliseconds, now: now))
            } catch {
                return .failure(error)
            }
        }
        switch admitted {
        case .success(let action):
            await perform(action)
            return await slot.reply()
        case .failure(let error):
            return envelopes.error(error, correlationId: nil)
        }
    }

    // MARK: Serving

    /// Reads announcements and replies from services until the socket closes, a batch at a time.
    func serve() async {
        while true {
            let messages: [ZMQMessage]
            do {
                guard let next = try await socket.receiveBatch(maximum: Self.batch) else { return }
                messages = next
            } catch {
                return
            }
            for message in messages { await received(message.frames) }
        }
    }

    /// Lets requests already forwarded get their replies (and whatever else `isBusy` waits on
    /// finish), then answers the rest with an error.
    func finishInFlight(within limit: Duration, whileBusy isBusy: @Sendable () -> Bool = { false }) async {
        let deadline = clock.monotonicMilliseconds + limit.milliseconds
        while (inFlight > 0 || isBusy()) && clock.monotonicMilliseconds < deadline {
            try? await clock.sleep(for: .milliseconds(20))
        }
        for action in routing.withLock({ $0.drain() }) { await perform(action) }
    }

    /// Answers requests past their deadline and forgets instances whose heartbeats stopped.
    func tick() async {
        let now = clock.monotonicMilliseconds
        for action in routing.withLock({ $0.tick(now: now) }) { await perform(action) }
    }

    /// Stops: the last messages leave before the socket closes.
    func close() async {
        await sends.waitUntilSent()
        await socket.close()
    }

    private func received(_ frames: [Data]) async {
        if frames.count == 2, await passOn(frames[1]) { return }
        guard frames.count == 2, let envelope = try? WireCodec.decode(RawEnvelope.self, from: frames[1]) else {
            logger.warning(
                "service message dropped: expected [routing id, envelope]", metadata: ["frames": "\(frames.count)"])
            return
        }
        let instance = frames[0]
        let action: Routing.Action?
        switch envelope.type {
        case .serviceAnnouncement:
            let now = clock.monotonicMilliseconds
            action = routing.withLock { $0.announced(envelope, from: instance, now: now) }
        case .reply, .error:
            action = routing.withLock { $0.replied(envelope) }
            if action == nil {
                logger.debug("late or unknown service reply dropped", metadata: ["message.id": "\(envelope.id)"])
            }
        default:
            let now = clock.monotonicMilliseconds
            let internalID = MessageID.make()
            action = routing.withLock { $0.serviceAsked(envelope, from: instance, internalID: internalID, now: now) }
        }
        if let action { await perform(action) }
    }

    /// Passes a service's successful reply to a client as it is, with only its correlation id
    /// swapped in the bytes, when the client's transport takes encoded envelopes and the request
    /// needs nothing more of the reply (see ``ClientSessions/changesSessions(_:)``). Returns false
    /// to have the reply decoded and resolved in full.
    private func passOn(_ body: Data) async -> Bool {
        guard let header = EnvelopeHeader.scan(body), header.type == MessageType.reply.rawValue,
            let internalID = header.correlationId
        else { return false }
        // The request leaves the pending ones only once its reply is in hand, so a reply that
        // cannot be passed on is still resolved the long way.
        typealias Taken = (deliver: @Sendable (Data) async -> Void, reply: Data)
        let taken = routing.withLock { routing -> Taken? in
            routing.take(internalID: internalID) { entry -> Taken? in
                guard case .client(let client, let requestID) = entry.origin,
                    let deliverEncoded = client.deliverEncoded,
                    !ClientSessions.changesSessions(entry.requestType),
                    let reply = header.replacingCorrelationId(in: body, with: requestID)
                else { return nil }
                return (deliverEncoded, reply)
            }
        }
        guard let taken else { return false }
        await taken.deliver(taken.reply)
        return true
    }

    // MARK: Actions

    private func perform(_ action: Routing.Action) async {
        switch action {
        case .send(let envelope, let instance, let internalID):
            await send(envelope, to: instance, internalID: internalID)
        case .resolve(let entry, let envelope):
            await resolve(entry, with: envelope)
        case .fail(let entry, let error, let failure):
            if failure == .timedOut {
                logger.warning("service did not answer in time", metadata: ["service.name": "\(entry.service)"])
            }
            await resolve(entry, with: envelopes.error(error, correlationId: nil))
        case .answerInstance(let instance, let requestID, let error):
            var reply = envelopes.error(error, correlationId: requestID)
            reply.correlationId = requestID
            sendToInstance([instance, Envelopes.encode(reply)])
        case .readEventLog(let request, let instance, let asker):
            await readEventLog(request, for: instance, asker: asker)
        case .serviceConnected(let announcement):
            logger.info(
                "service connected",
                metadata: [
                    "service.name": "\(announcement.service)", "service.instance": "\(announcement.instance)",
                    "service.request_types": "\(announcement.requestTypes.count)",
                ])
            await operators.notify(
                kind: "operator.service-connected", message: "\(announcement.service) connected",
                details: ["service": .string(announcement.service), "instance": .string(announcement.instance)])
        case .serviceLost(let announcement):
            logger.warning(
                "service heartbeat lost",
                metadata: ["service.name": "\(announcement.service)", "service.instance": "\(announcement.instance)"])
            await operators.notify(
                kind: "operator.service-lost", message: "\(announcement.service) stopped answering",
                details: ["service": .string(announcement.service), "instance": .string(announcement.instance)])
        case .announcementRefused:
            logger.warning("service announcement refused")
        }
    }

    /// Hands a request to a service instance through the batching queue (``SendQueue``); if it
    /// cannot be reached, answers the request in its place.
    private func send(_ envelope: RawEnvelope, to instance: Data, internalID: String) async {
        let frames: [Data]
        do {
            frames = [instance, try WireCodec.encode(envelope)]
        } catch {
            await unreachable(instance, internalID: internalID, error: error)
            return
        }
        sends.send(frames) { [self] error in
            await unreachable(instance, internalID: internalID, error: error)
        }
    }

    /// A request could not be handed to its service: forgets an instance that went away and
    /// answers the request in its place.
    private func unreachable(_ instance: Data, internalID: String, error: Error) async {
        let gone = (error as? ZMQError)?.errno == EHOSTUNREACH
        guard
            let action = routing.withLock({
                $0.unreachable(internalID: internalID, instance: instance, instanceGone: gone)
            }),
            case .fail(let entry, _, _) = action
        else { return }
        logger.warning("service unreachable", metadata: ["service.name": "\(entry.service)", "error": "\(error)"])
        await perform(action)
    }

    /// Sends a message to a service without a pending request behind it (an answer to its question).
    private func sendToInstance(_ frames: [Data]) {
        sends.send(frames) { [logger] error in
            logger.warning("message to a service not delivered", metadata: ["error": "\(error)"])
        }
    }

    /// Delivers a service's answer (or the gateway's error in its place) to whoever asked.
    private func resolve(_ entry: PendingRequests.Entry, with envelope: RawEnvelope) async {
        switch entry.origin {
        case .client(let client, let requestID):
            var answer = envelope
            answer.correlationId = requestID
            if answer.type != .reply && answer.type != .error {
                answer = envelopes.error(
                    ErrorReply(code: .internalError, message: "\(entry.service) sent an unexpected answer"),
                    correlationId: requestID)
            }
            await client.deliver(answer)
        case .gateway(let slot):
            await slot.fill(envelope)
        case .service(let routingID, let requestID):
            var answer = envelope
            answer.correlationId = requestID
            sendToInstance([routingID, Envelopes.encode(answer)])
        }
    }

    /// `events.read` from a service: a page of the event log, its read noted for retention.
    private func readEventLog(_ request: RawEnvelope, for instance: Data, asker: String) async {
        do {
            let read = try request.requestPayload(as: StreamRead.self)
            let limit = try read.checkedLimit()
            pruner.noteRead(by: Actor(kind: .service, service: asker), after: read.after)
            let page = try await eventLog.page(after: read.after, limit: limit)
            let reply = RawEnvelope(
                type: .reply, correlationId: request.id, timestamp: clock.nowMilliseconds,
                payload: try WireCodec.jsonValue(page))
            sendToInstance([instance, Envelopes.encode(reply)])
        } catch let error as ErrorReply {
            await perform(.answerInstance(instance, requestID: request.id, error))
        } catch {
            logger.error("event log unreadable", metadata: ["error": "\(error)"])
            await perform(
                .answerInstance(
                    instance, requestID: request.id,
                    ErrorReply(code: .storageUnavailable, message: "the event log could not be read")))
        }
    }
}
