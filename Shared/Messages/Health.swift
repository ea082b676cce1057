/// The public answer to `health`, `gateway.health` and `<service>.health`: whether it is ready,
/// nothing more. The details (instances, storage, streams, partitions) go only to the admin key
/// (``SystemHealth``, ``GatewayHealth``, ``ServiceHealth``) and the operations listener.
public struct Readiness: Codable, Sendable, Equatable {
    public var ready: Bool
    public init(ready: Bool) { self.ready = ready }
}

/// A service's answer to `<service>.health` with the admin key.
public struct ServiceHealth: Codable, Sendable, Equatable {
    /// The service name (`auth`, `leaderboard`, …).
    public var service: String
    /// The running instance's id, also its publisher id on the bus.
    public var instance: String
    /// Whether it is ready to serve.
    public var ready: Bool
    /// When the instance started, ms since the epoch.
    public var startedAt: Int64
    /// Topic prefixes it subscribes to.
    public var subscriptions: [String]
    /// Bus messages it has received since it started.
    public var eventsReceived: UInt64
    /// Ids of the most recent bus messages it received, newest last (at most 32).
    public var recentEventIds: [String]
    /// Bus messages it found missing (sequence numbers skipped) since it started.
    public var gapsDetected: UInt64
    /// Where it stores its data (`sqlite:/path/leaderboard-scores.sqlite`).
    public var storage: String
    /// Where it stands in each durable stream it follows (position and the stream's head).
    public var streams: [String: StreamStatus]?
    /// With several instances (leases in PostgreSQL): the partitions this instance owns; empty
    /// while it stands by. Absent for a single instance, which owns everything.
    public var partitions: [Int]?
    /// With leases: how many partitions the service's data is split into.
    public var partitionCount: Int?

    public init(
        service: String, instance: String, ready: Bool, startedAt: Int64, subscriptions: [String],
        eventsReceived: UInt64, recentEventIds: [String], gapsDetected: UInt64, storage: String,
        streams: [String: StreamStatus]? = nil, partitions: [Int]? = nil, partitionCount: Int? = nil
    ) {
        self.partitions = partitions
        self.partitionCount = partitionCount
        self.streams = streams
        self.service = service
        self.instance = instance
        self.ready = ready
        self.startedAt = startedAt
        self.subscriptions = subscriptions
        self.eventsReceived = eventsReceived
        self.recentEventIds = recentEventIds
        self.gapsDetected = gapsDetected
        self.storage = storage
    }
}

/// The gateway's own part of a health answer.
public struct GatewayHealth: Codable, Sendable, Equatable {
    public var instance: String
    public var ready: Bool
    public var startedAt: Int64
    /// Services currently connected, by name.
    public var connectedServices: [String]

    public init(instance: String, ready: Bool, startedAt: Int64, connectedServices: [String]) {
        self.instance = instance
        self.ready = ready
        self.startedAt = startedAt
        self.connectedServices = connectedServices
    }
}

/// The reply to `health`: the gateway and every expected service.
public struct SystemHealth: Codable, Sendable, Equatable {
    /// True when the gateway and every expected service are ready.
    public var ready: Bool
    public var gateway: GatewayHealth
    /// Each expected service's health, or why it could not be had.
    public var services: [String: ServiceHealthResult]

    public init(ready: Bool, gateway: GatewayHealth, services: [String: ServiceHealthResult]) {
        self.ready = ready
        self.gateway = gateway
        self.services = services
    }
}

/// One service's entry in ``SystemHealth``.
public struct ServiceHealthResult: Codable, Sendable, Equatable {
    public var ready: Bool
    public var health: ServiceHealth?
    public var error: ErrorReply?

    public init(ready: Bool, health: ServiceHealth? = nil, error: ErrorReply? = nil) {
        self.ready = ready
        self.health = health
        self.error = error
    }
}
