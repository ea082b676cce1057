import PodiumMessages

/// The health details a test reads (stream positions, recent event ids, connected services):
/// anyone else is told only whether things are ready, so these ask with the admin key.
extension TestClient {
    /// `<service>.health` with the admin key: the answering instance in detail.
    public func serviceHealth(_ service: String, adminKey: String = PodiumTestStack.testAdminKey) async throws
        -> ServiceHealth
    {
        try await call(ServiceRequests.healthDetails(of: service), credential: .adminKey(adminKey))
    }

    /// `health` with the admin key: the gateway and every expected service in detail.
    public func systemHealth(adminKey: String = PodiumTestStack.testAdminKey) async throws -> SystemHealth {
        try await call(GatewayRequests.healthDetails, credential: .adminKey(adminKey))
    }

    /// `gateway.health` with the admin key.
    public func gatewayHealthDetails(adminKey: String = PodiumTestStack.testAdminKey) async throws -> GatewayHealth {
        try await call(GatewayRequests.gatewayHealthDetails, credential: .adminKey(adminKey))
    }
}
