import Foundation
import PodiumMessages

/// The gateway's routing as one state machine: which service instances are connected
/// (``ServiceDirectory``: announcements, heartbeats, round-robin and ownership) and which
/// requests wait on them (``PendingRequests``: admission, duplicate ids, the in-flight cap,
/// deadlines, completion).
///
/// Pure state, tested without sockets: every event (a request to forward, a message from a
/// service, a failed send, the time passing, shutdown) returns the ``Action``s it calls for, and
/// the shell (``ServiceRouter``) carries them out on its socket. Time is passed in as monotonic
/// milliseconds.
struct Routing: Sendable {
    /// What routing allows: fixed for the gateway's life (``GatewaySettings``).
    struct Limits: Sendable {
        /// How long a client's or a service's request may wait for its answer, in milliseconds.
        var requestTimeout: Int64
        /// Most requests waiting on services at once (`PODIUM_MAX_IN_FLIGHT`).
        var maxInFlight: Int
        /// Services the deployment runs: a type of one of them with no instance connected is
        /// `service_unavailable` (it may come back), any other unannounced type `unknown_type`.
        var knownServices: [String]
    }

    /// Why the gateway answers a request in its service's place.
    enum Failure: Sendable, Equatable {
        /// No answer before the deadline.
        case timedOut
        /// The request could not be handed to the instance.
        case unreachable
        /// The gateway stops with the request still waiting.
        case shuttingDown
    }

    /// What the shell does next.
    enum Action: Sendable {
        /// Hand `envelope` to the service instance; report a failure with
        /// ``unreachable(internalID:instance:instanceGone:)``.
        case send(RawEnvelope, instance: Data, internalID: String)
        /// Deliver a service's answer to whoever asked (``ServiceRouter/resolve(_:with:)``).
        case resolve(PendingRequests.Entry, RawEnvelope)
        /// Answer whoever asked with the gateway's error in the service's place.
        case fail(PendingRequests.Entry, ErrorReply, Failure)
        /// Answer a service's own request (no request waits on this answer) with an error.
        case answerInstance(Data, requestID: String, ErrorReply)
        /// A service asks for a page of the event log: read it and answer the instance.
        case readEventLog(RawEnvelope, instance: Data, asker: String)
        /// An instance announced itself for the first time (tell the operators).
        case serviceConnected(ServiceAnnouncement)
        /// An instance's heartbeats stopped and it was forgotten (tell the operators).
        case serviceLost(ServiceAnnouncement)
        /// An announcement that names another service's types, or none valid: ignored.
        case announcementRefused
    }

    let limits: Limits
    private(set) var directory = ServiceDirectory()
    private(set) var pending = PendingRequests()

    init(limits: Limits) {
        self.limits = limits
    }

    // MARK: Reading

    /// Requests waiting on services.
    var inFlight: Int { pending.count }

    /// How many of this connection's requests are waiting on services.
    func inFlight(fromConnection connection: ClientConnection.Key) -> Int {
        pending.inFlight(fromConnection: connection)
    }

    /// Whether some service announced the type since the gateway started (the metrics' bounded labels).
    func isAnnounced(_ type: MessageType) -> Bool { directory.announcedTypes.contains(type.rawValue) }

    /// Names of the services with at least one live instance.
    var connectedServices: [String] { directory.connectedServices }

    // MARK: Requests

    /// Admits a client's request and picks its instance: `envelope` is the request as the service
    /// gets it (its `id` the internal id replies will carry, its `correlationId` the client's id).
    /// Refused with `unknown_type` or `service_unavailable` (no instance), `duplicate_request_id`
    /// (the connection has one with that id in flight) or `overloaded` (``Limits/maxInFlight``).
    mutating func forward(
        _ envelope: RawEnvelope, from client: ClientConnection, now: Int64
    ) throws(ErrorReply) -> Action {
        let requestID = envelope.correlationId ?? ""
        let (instance, service): (Data, String)
        switch directory.route(envelope.type, key: Self.partitionKey(envelope), knownServices: limits.knownServices) {
        case .unknown:
            throw ErrorReply(code: .unknownType, message: "no service handles '\(envelope.type)'", field: "type")
        case .unavailable(let name):
            throw ErrorReply(
                code: .serviceUnavailable,
                message: "no \(name) instance is serving (not connected, or one is taking over); retry shortly")
        case .instance(let id, let name):
            (instance, service) = (id, name)
        }
        if pending.isInFlight(connection: client.key, requestID: requestID) {
            throw ErrorReply(
                code: .duplicateRequestID, message: "a request with id '\(requestID)' is still in flight", field: "id")
        }
        if pending.count >= limits.maxInFlight {
            throw ErrorReply(code: .overloaded, message: "too many requests in flight; retry shortly")
        }
        pending.add(
            PendingRequests.Entry(
                origin: .client(client, requestID: requestID), service: service, serviceRoutingID: instance,
                deadline: now + limits.requestTimeout, requestType: envelope.type),
            internalID: envelope.id)
        return .send(envelope, instance: instance, internalID: envelope.id)
    }

    /// Picks the instance for the gateway's own question (`envelope.id` the internal id); its
    /// answer fills `slot`. Refused with `service_unavailable` when no instance serves.
    /// Not counted against ``Limits/maxInFlight``: the gateway's questions come from requests
    /// already admitted.
    mutating func ask(
        _ envelope: RawEnvelope, answer slot: ReplySlot<RawEnvelope>, timeout: Int64, now: Int64
    ) throws(ErrorReply) -> Action {
        guard
            case .instance(let instance, let service) = directory.route(
                envelope.type, key: Self.partitionKey(envelope), knownServices: limits.knownServices)
        else {
            throw ErrorReply(
                code: .serviceUnavailable, message: "the \(envelope.type.serviceName) service is not connected")
        }
        pending.add(
            PendingRequests.Entry(
                origin: .gateway(slot), service: service, serviceRoutingID: instance, deadline: now + timeout),
            internalID: envelope.id)
        return .send(envelope, instance: instance, internalID: envelope.id)
    }

    // MARK: Messages from services

    /// An instance's announcement (its first, or a heartbeat).
    mutating func announced(_ envelope: RawEnvelope, from instance: Data, now: Int64) -> Action? {
        guard let announcement = try? envelope.decodePayload(as: ServiceAnnouncement.self),
            Identifiers.isValidID(announcement.service),
            announcement.requestTypes.allSatisfy({ MessageType(rawValue: $0).serviceName == announcement.service })
        else { return .announcementRefused }
        return directory.register(announcement, routingID: instance, now: now) ? .serviceConnected(announcement) : nil
    }

    /// A service's reply or error: whoever asked gets it, unless the request was already answered
    /// (it timed out, or its instance was unreachable) or is unknown: then nil, the reply is dropped.
    mutating func replied(_ envelope: RawEnvelope) -> Action? {
        guard let internalID = envelope.correlationId, let entry = pending.complete(internalID: internalID) else {
            return nil
        }
        return .resolve(entry, envelope)
    }

    /// Takes the request a reply answers when `accept` takes its entry (the reply is then passed
    /// on as it is); otherwise leaves it waiting, to be resolved by ``replied(_:)``.
    mutating func take<Taken>(internalID: String, _ accept: (PendingRequests.Entry) -> Taken?) -> Taken? {
        guard let entry = pending.entry(internalID: internalID), let taken = accept(entry) else { return nil }
        _ = pending.complete(internalID: internalID)
        return taken
    }

    /// A request one service sends another (for example "are these two friends?"), `internalID`
    /// the id to forward it under. Only announced instances may ask; `events.read` is the
    /// gateway's own (the event log).
    mutating func serviceAsked(_ request: RawEnvelope, from instance: Data, internalID: String, now: Int64) -> Action {
        guard let asker = directory.instances[instance]?.announcement.service else {
            return .answerInstance(
                instance, requestID: request.id,
                ErrorReply(code: .forbidden, message: "announce the service before sending requests"))
        }
        if request.type == .eventsRead { return .readEventLog(request, instance: instance, asker: asker) }
        let route = directory.route(request.type, key: Self.partitionKey(request), knownServices: limits.knownServices)
        guard case .instance(let target, let service) = route else {
            let refusal =
                route == .unknown
                ? ErrorReply(code: .unknownType, message: "no service handles '\(request.type)'", field: "type")
                : ErrorReply(
                    code: .serviceUnavailable,
                    message: "no \(request.type.serviceName) instance is serving (not connected, or one is taking over)"
                )
            return .answerInstance(instance, requestID: request.id, refusal)
        }
        pending.add(
            PendingRequests.Entry(
                origin: .service(routingID: instance, requestID: request.id), service: service,
                serviceRoutingID: target,
                deadline: now + limits.requestTimeout),
            internalID: internalID)
        var forwarded = request
        forwarded.id = internalID
        forwarded.correlationId = request.id
        forwarded.actor = Actor(kind: .service, service: asker)
        return .send(forwarded, instance: target, internalID: internalID)
    }

    /// The partition key of a request to a partitioned service (``PartitionKey``), nil for others.
    static func partitionKey(_ envelope: RawEnvelope) -> String? {
        guard PartitionKey.partitionedServices.contains(envelope.type.serviceName) else { return nil }
        return PartitionKey.of(envelope)
    }

    // MARK: Failures and time

    /// A request could not be handed to its instance: forgets an instance that went away
    /// (`instanceGone`) and answers the request in its place, if it still waits.
    mutating func unreachable(internalID: String, instance: Data, instanceGone: Bool) -> Action? {
        if instanceGone { _ = directory.remove(routingID: instance) }
        guard let entry = pending.complete(internalID: internalID) else { return nil }
        return .fail(
            entry,
            ErrorReply(
                code: .serviceUnavailable, message: "the \(entry.service) service is not reachable; retry shortly"),
            .unreachable)
    }

    /// Answers requests past their deadline and forgets instances whose heartbeats stopped.
    mutating func tick(now: Int64) -> [Action] {
        var actions: [Action] = pending.expire(now: now).map { entry in
            .fail(
                entry,
                ErrorReply(
                    code: .serviceTimeout,
                    message: "\(entry.service) did not answer in time; the request may or may not have taken effect"),
                .timedOut)
        }
        actions += directory.expire(now: now).map { .serviceLost($0.announcement) }
        return actions
    }

    /// Answers every request still waiting (the gateway stops).
    mutating func drain() -> [Action] {
        pending.drain().map {
            .fail($0, ErrorReply(code: .serviceUnavailable, message: "the gateway is shutting down"), .shuttingDown)
        }
    }
}
