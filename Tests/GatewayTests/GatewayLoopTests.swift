import Foundation
import Logging
import PodiumRuntime
import ServiceLifecycle
import Testing

@testable import Gateway

/// A gateway whose loop dies must not stay up reporting ready: its service group, and so the
/// process, stops with an error.
@Suite("Gateway loops")
struct GatewayLoopTests {
    func gateway() async throws -> Gateway {
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("podium-loop-\(UUID().uuidString)")
        let runtime = RuntimeSettings(
            service: "gateway", dataDirectory: data, busPublishEndpoint: "tcp://127.0.0.1:*",
            busSubscribeEndpoint: "tcp://127.0.0.1:*", busServicesEndpoint: "tcp://127.0.0.1:*", developmentMode: true)
        let settings = GatewaySettings(
            runtime: runtime, requestEndpoint: "tcp://127.0.0.1:*", notificationEndpoint: "tcp://127.0.0.1:*",
            notificationSecret: Array(repeating: 7, count: 32))
        var logger = Logger(label: "test.gateway-loops")
        logger.logLevel = .critical
        return try await Gateway(settings: settings, logger: logger)
    }

    /// A service group with only the gateway in it, as the executable runs it.
    static func group(running gateway: Gateway) -> ServiceGroup {
        var logger = Logger(label: "test.gateway-loops.group")
        logger.logLevel = .critical
        return ServiceGroup(configuration: .init(services: [.init(service: gateway)], logger: logger))
    }

    @Test("the request socket failing stops the gateway's service group with GatewayLoopEnded")
    func deadLoopStopsTheGroup() async throws {
        let gateway = try await gateway()
        let group = Self.group(running: gateway)
        let running = Task { try await group.run() }
        // Let run() start its loops (closing earlier ends the loop just the same), then take the
        // request socket away under it.
        try await Task.sleep(for: .milliseconds(200))
        await gateway.clientSocket.close()
        // Without the failure, the group would run on: give up after 20 s rather than hang.
        let watchdog = Task {
            try await Task.sleep(for: .seconds(20))
            await group.triggerGracefulShutdown()
        }
        let outcome: String
        do {
            try await running.value
            outcome = "the group ran on until the watchdog stopped it"
        } catch let error as Gateway.GatewayLoopEnded {
            outcome = error.loop
        } catch {
            outcome = "\(error)"
        }
        watchdog.cancel()
        #expect(outcome == "requests")
    }

    @Test("a graceful shutdown is not a failure")
    func gracefulShutdownIsClean() async throws {
        let gateway = try await gateway()
        let group = Self.group(running: gateway)
        let running = Task { try await group.run() }
        try await Task.sleep(for: .milliseconds(200))
        await group.triggerGracefulShutdown()
        try await running.value
    }
}
