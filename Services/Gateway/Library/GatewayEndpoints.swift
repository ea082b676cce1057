/// The endpoints a running gateway listens on, with wildcard ports resolved.
public struct GatewayEndpoints: Sendable, Equatable {
    /// Public: clients send requests here (ROUTER; connect a DEALER or REQ).
    public var requests: String
    /// Public: clients subscribe to their notification topic here (XPUB; connect a SUB).
    public var notifications: String
    /// Internal: services publish here (XSUB).
    public var busPublish: String
    /// Internal: services subscribe here (XPUB).
    public var busSubscribe: String
    /// Internal: services connect their DEALER here (ROUTER).
    public var busServices: String
}
