import Logging
import PodiumMessages

/// Answers one request type. Throw an ``ErrorReply`` for a clear client error; any other error
/// becomes `internal_error`.
public typealias RequestHandler = @Sendable (RawEnvelope, ServiceContext) async throws -> JSONValue

/// What makes a service this service: its name, what it listens to and what it answers.
/// The shared ``ServiceRuntime`` does the rest (bus, gateway link, health, shutdown).
public struct ServiceDefinition: Sendable {
    /// The service name; its request types start with `<name>.`.
    public var name: String
    /// Bus topic prefixes it subscribes to.
    public var subscriptions: [String]
    /// Request types it answers, beyond the built-in `<name>.health` and `<name>.test-notification`
    /// (services give them as typed ``TypedRequestHandler``s, from their ``RequestDefinition``s).
    public var requestHandlers: [MessageType: RequestHandler]
    /// Called for every bus message it receives (after the runtime has recorded it).
    public var onBusMessage: (@Sendable (BusDelivery, ServiceContext) async -> Void)?
    /// Runs while the service runs (cancelled at shutdown), for periodic work.
    public var background: (@Sendable (ServiceContext) async -> Void)?
    /// Durable streams (``StreamName``) whose messages go to ``consumer`` in order, exactly once,
    /// instead of ``onBusMessage``.
    public var follows: [String] = []
    /// Applies the followed streams' messages.
    public var consumer: (any DurableConsumer)?
    /// The service's outbox: relayed to the bus and readable with `<name>.outbox.read`.
    public var outbox: OutboxRelay?
    /// Where the service's request receipts (``RequestReceipts``) are read: the runtime answers
    /// `<name>.receipt` (asked by the gateway for `receipt.get`) from it.
    public var receipts: (any ReceiptReader)?
    /// The durable tables retention prunes (``Pruner``): the receipts, and the outbox when
    /// ``outbox`` is set.
    public var retention: (any StreamRetention & ReceiptRetention)?
    /// Where the service keeps its data, for health (`sqlite:/path`, `postgresql://…`).
    public var storage: String?
    /// The store in a database server, measured for `podium_database_size_bytes` before each scrape.
    public var sizedStorage: (any StorageSize)?
    /// Where the service's instances lease its data (PostgreSQL): with several instances, one
    /// owns it at a time and the others stand by (``Ownership``); nil: a single instance.
    public var leases: (any LeaseStore)?
    /// Runs when this instance gains partitions (at start, or taking over): load what it keeps in
    /// memory for them (the previous owner changed the store meanwhile). They are served once it
    /// returns; a throw lets the leases go.
    public var onOwnershipGained: (@Sendable (ServiceContext, _ partitions: [Int]) async throws -> Void)?
    /// Runs when this instance lost partitions (another took them, or its leases lapsed): drop
    /// what it keeps in memory for them. They are no longer served when it runs.
    public var onOwnershipLost: (@Sendable (_ partitions: [Int]) async -> Void)?
    /// How the service's requests map to partitions (``PartitionKey``), when its data is split
    /// over its live instances: set by the runtime for a partitioned service with leases; nil:
    /// one partition, one owner.
    public var partitionMap: PartitionMap?
    /// With ``partitionMap``: the partition key of a followed stream's message (its player, for
    /// example). Set, the instances form a consumer group: each applies the messages of the
    /// partitions it serves, with a position per partition (``PartitionedConsumer``). Nil: the
    /// streams are followed by partition 0's holder alone.
    public var streamKey: (@Sendable (_ stream: String, StreamMessage) -> String?)?
    /// With ``partitionMap``: the instances form a consumer group in which every message is
    /// applied in every partition (each partition restricted to its own data), the partitions at
    /// one position together (``PartitionedConsumer``).
    public var broadcastsStreams = false
    /// With ``streamKey``: followed streams whose every message is applied in every partition
    /// all the same (account deletions, for a service whose keys are players in games).
    public var broadcastStreams: Set<String> = []
    /// Runs on every instance while the service runs (not only on partition 0's holder), for
    /// work each instance does for itself, such as reading operators' definitions again.
    public var onEveryInstance: (@Sendable (ServiceContext) async -> Void)?
    /// Runs once the service has stopped (lets go of its database).
    public var shutdown: (@Sendable () async -> Void)?
    /// What the store runs while open (a connection pool): one of the service's loops.
    public var storageRunner: (any StorageRunner)?

    public init(
        name: String,
        subscriptions: [String],
        requestHandlers: [MessageType: RequestHandler] = [:],
        handlers: [TypedRequestHandler] = [],
        onBusMessage: (@Sendable (BusDelivery, ServiceContext) async -> Void)? = nil,
        background: (@Sendable (ServiceContext) async -> Void)? = nil,
        follows: [String] = [],
        consumer: (any DurableConsumer)? = nil
    ) {
        self.follows = follows
        self.consumer = consumer
        self.background = background
        self.name = name
        self.subscriptions = subscriptions
        var all = requestHandlers
        for typed in handlers {
            precondition(all[typed.type] == nil, "two handlers for \(typed.type)")
            all[typed.type] = typed.handler
        }
        self.requestHandlers = all
        self.onBusMessage = onBusMessage
    }
}

/// How to build a service once its settings are known (its storage lives under the data directory).
public struct ServiceBlueprint: Sendable {
    public var name: String
    public var make: @Sendable (RuntimeSettings, any PodiumClock) async throws -> ServiceDefinition

    public init(
        name: String, make: @escaping @Sendable (RuntimeSettings, any PodiumClock) async throws -> ServiceDefinition
    ) {
        self.name = name
        self.make = make
    }

    /// A service that needs nothing but its definition.
    public init(_ definition: ServiceDefinition) {
        self.init(name: definition.name) { _, _ in definition }
    }
}

/// What a running service's handlers can use: the bus, other services, the clock, the logger.
public struct ServiceContext: Sendable {
    public let settings: RuntimeSettings
    public let publisher: BusPublisher
    public let clock: any PodiumClock
    public let logger: Logger
    let asker: ServiceAsker
    let outbox: OutboxRelay?
    let streams: StreamControl
    /// What this instance owns.
    let ownership: Ownership?

    /// The partitions this instance serves now, with their fencing epochs (every partition, as
    /// the single partition 0, for a service without leases).
    public var servedPartitions: [Int: UInt64] { ownership?.served ?? [0: 0] }

    /// Runs `body` while the followed `stream` is paused, with the position applied so far
    /// (for a rebuild: replay up to that position; live messages wait and follow afterwards).
    public func pausingStream<Result: Sendable>(_ stream: String, _ body: (UInt64) async throws -> Result) async throws
        -> Result
    {
        guard let follower = streams.followers.value[stream] else {
            throw ErrorReply(code: .invalidField, message: "this service does not follow '\(stream)'")
        }
        return try await follower.paused(body)
    }

    /// Where the service stands in a followed stream (nil if it does not follow it).
    public func streamStatus(_ stream: String) -> StreamStatus? {
        streams.followers.value[stream]?.status
    }

    /// Says that the service committed outbox messages, so they are relayed now.
    public func outboxChanged() { outbox?.wake() }

    /// Asks another service through the gateway and returns its reply or error envelope.
    func ask<Payload: Encodable & Sendable>(
        _ type: MessageType, payload: Payload, gameId: String? = nil, playerId: String? = nil,
        timeout: Duration = .seconds(5)
    ) async throws -> RawEnvelope {
        try await asker.ask(
            type, payload: try WireCodec.jsonValue(payload), gameId: gameId, playerId: playerId, timeout: timeout)
    }

    /// Sends another service (or the gateway) a request of a defined type and returns its typed
    /// reply; an error reply is thrown as its ``ErrorReply``.
    public func call<Payload, Reply>(
        _ definition: RequestDefinition<Payload, Reply>, _ payload: Payload, gameId: String? = nil,
        playerId: String? = nil,
        timeout: Duration = .seconds(5)
    ) async throws -> Reply {
        let reply = try await ask(
            definition.type, payload: payload, gameId: gameId, playerId: playerId, timeout: timeout)
        if reply.type == .error { throw try reply.decodePayload(as: ErrorReply.self) }
        return try reply.decodePayload(as: Reply.self)
    }
}

/// The followers of a running service's durable streams, shared by the runtime and the context.
final class StreamControl: Sendable {
    let followers = Locked([String: StreamFollower]())
}
