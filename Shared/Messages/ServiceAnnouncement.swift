/// What a service tells the gateway when it connects, and again as its heartbeat.
public struct ServiceAnnouncement: Codable, Sendable, Equatable {
    /// The service name; request types starting with `<service>.` are routed to it.
    public var service: String
    /// The instance id.
    public var instance: String
    /// Exact request types it handles (each starts with `<service>.`).
    public var requestTypes: [String]
    /// Heartbeat interval the gateway should expect, ms.
    public var heartbeatIntervalMilliseconds: Int
    /// With several instances sharing a database: the partitions this instance owns (empty: it
    /// stands by, and the gateway routes nothing to it but the types any instance answers). Absent: it owns
    /// everything.
    public var partitions: [Int]?
    /// How many partitions the service's data is split into (`PODIUM_PARTITIONS`; the same in
    /// every instance). Absent or 1: one owner serves everything. With more, the gateway sends a
    /// request with a partition key (``PartitionKey``) to the instance owning its partition.
    public var partitionCount: Int?

    public init(
        service: String, instance: String, requestTypes: [String], heartbeatIntervalMilliseconds: Int,
        partitions: [Int]? = nil
    ) {
        self.partitions = partitions
        self.service = service
        self.instance = instance
        self.requestTypes = requestTypes
        self.heartbeatIntervalMilliseconds = heartbeatIntervalMilliseconds
    }
}
