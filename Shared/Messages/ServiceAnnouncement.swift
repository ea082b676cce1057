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

    public init(service: String, instance: String, requestTypes: [String], heartbeatIntervalMilliseconds: Int) {
        self.service = service
        self.instance = instance
        self.requestTypes = requestTypes
        self.heartbeatIntervalMilliseconds = heartbeatIntervalMilliseconds
    }
}
