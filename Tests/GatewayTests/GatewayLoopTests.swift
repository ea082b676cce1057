import Foundation
import GatewaySQLite
import Logging
import PodiumRuntime
import PodiumTesting
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
        return try await Gateway(settings: settings, logger: logger, openStorage: GatewayStorage.sqlite)
    }

    /// A service group with the gateway's parts in it, as the executable runs them.
    static func group(running gateway: Gateway) -> ServiceGroup {
        var logger = Logger(label: "test.gateway-loops.group")
        logger.logLevel = .critical
        return ServiceGroup(configuration: .init(services: gateway.services.map { .init(service: $0) }, logger: logger))
    }

    /// Each part's socket, and the name the failure carries when it dies under the part.
    enum FailingPart: String, CaseIterable, CustomTestStringConvertible {
        case requests, services, notifications
        case busHub = "bus hub"
        var testDescription: String { rawValue }

        func kill(_ gateway: Gateway) async {
            switch self {
            case .requests: await gateway.front.socket.close()
            case .services: await gateway.router.socket.close()
            case .notifications: await gateway.relay.feed.close()
            case .busHub: await gateway.bus.proxy.stop()
            }
        }
    }

    @Test(
        "a part whose socket fails makes the gateway unready and stops its service group with LoopEnded",
        arguments: FailingPart.allCases)
    func deadPartStopsTheGroup(part: FailingPart) async throws {
        let gateway = try await gateway()
        let group = Self.group(running: gateway)
        let running = Task { try await group.run() }
        // Let every part start, then take the part's socket away under it.
        let ready = try await withDeadline(.seconds(10)) {
            while await !gateway.isReady { try await Task.sleep(for: .milliseconds(20)) }
            return true
        }
        #expect(ready, "every part runs before one is killed")
        await part.kill(gateway)
        // Without the failure, the group would run on: give up after 20 s rather than hang.
        let watchdog = Task {
            try await Task.sleep(for: .seconds(20))
            await group.triggerGracefulShutdown()
        }
        let outcome: String
        do {
            try await running.value
            outcome = "the group ran on until the watchdog stopped it"
        } catch let error as LoopEnded {
            outcome = error.loop
            #expect(gateway.loops.failed == [part.rawValue])
        } catch {
            outcome = "\(error)"
        }
        watchdog.cancel()
        #expect(outcome == part.rawValue)
        #expect(await !gateway.isReady, "a gateway with a dead part is not ready")
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

    @Test("the gateway is ready (its operations probe) once every part runs, and not after it stopped")
    func readyWhenEveryPartRuns() async throws {
        let gateway = try await gateway()
        #expect(await !gateway.isReady, "nothing runs yet")
        let group = Self.group(running: gateway)
        let running = Task { try await group.run() }
        let ready = try await withDeadline(.seconds(10)) {
            while await !gateway.isReady { try await Task.sleep(for: .milliseconds(20)) }
            return true
        }
        #expect(ready)
        await group.triggerGracefulShutdown()
        try await running.value
        #expect(await !gateway.isReady)
    }
}
