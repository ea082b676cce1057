import Foundation
import Logging
import PodiumTesting
import ServiceLifecycle
import Testing

@testable import PodiumRuntime

/// A service process whose loop dies must not stay up reporting ready: the runtime marks the loop
/// failed (readiness turns false at once) and ends its service group, and so the process
/// (``ServiceMain`` exits non-zero), for the restart policy to bring it back.
@Suite("Service loops")
struct ServiceLoopTests {
    /// How a loop is made to fail, and the loop the failure must name.
    enum Fault: String, CaseIterable, CustomTestStringConvertible {
        case subscriber = "bus subscriber"
        case publisher = "bus publisher"
        case link = "gateway link"
        var testDescription: String { rawValue }

        func inflict(on runtime: ServiceRuntime) async throws {
            let running = try #require(runtime.running.value)
            switch self {
            case .subscriber: await running.subscriber.close()
            case .publisher: await running.publisher.close()
            case .link: await running.links[0].close()
            }
        }

        /// The loops the failure may be reported by first: closing a link ends its connection
        /// watch and its request server at once.
        var reportedBy: Set<String> {
            self == .link ? ["gateway link", "requests"] : [rawValue]
        }
    }

    static let serviceNames = ["auth", "leaderboard", "achievement", "challenge"]

    /// A gateway of its own, and one service running as its executable runs it: the runtime alone
    /// in a service group.
    struct Process {
        let stack: PodiumTestStack
        let runtime: ServiceRuntime
        let group: ServiceGroup
        let running: Task<Void, any Error>

        init(service name: String) async throws {
            stack = try await PodiumTestStack.start(.init(services: [], expectedServices: []))
            do {
                let blueprint = try #require(PodiumTestStack.services().first { $0.name == name })
                let endpoints = stack.endpoints
                let settings = RuntimeSettings(
                    service: name, dataDirectory: stack.dataDirectory, busPublishEndpoint: endpoints.busPublish,
                    busSubscribeEndpoint: endpoints.busSubscribe, busServicesEndpoint: endpoints.busServices,
                    heartbeatInterval: .milliseconds(250),
                    database: try PodiumTestStack.testDatabase(service: name, dataDirectory: stack.dataDirectory))
                var logger = Logger(label: "test.service-loops")
                logger.logLevel = .critical
                runtime = try ServiceRuntime(
                    definition: try await blueprint.make(settings, SystemClock()), settings: settings, logger: logger)
                group = ServiceGroup(configuration: .init(services: [.init(service: runtime)], logger: logger))
                let group = group
                running = Task { try await group.run() }
            } catch {
                await stack.shutdown()
                throw error
            }
        }

        func waitUntilReady() async throws -> Bool {
            try await withDeadline(.seconds(20)) {
                while await !runtime.isReady { try await Task.sleep(for: .milliseconds(20)) }
                return true
            }
        }

        /// The name of the loop the group's failure names, or what else happened.
        func outcome() async -> String {
            // Without the failure the group would run on: give up after 20 s rather than hang.
            let watchdog = Task { [group] in
                try await Task.sleep(for: .seconds(20))
                await group.triggerGracefulShutdown()
            }
            defer { watchdog.cancel() }
            do {
                try await running.value
                return "the group ran on until the watchdog stopped it"
            } catch let error as LoopEnded {
                return error.loop
            } catch {
                return "\(error)"
            }
        }
    }

    @Test("a service whose loop fails turns unready and ends its group", arguments: serviceNames, Fault.allCases)
    func deadLoopEndsTheService(service: String, fault: Fault) async throws {
        let process = try await Process(service: service)
        #expect(try await process.waitUntilReady(), "every loop runs and the bus ticks before the fault")
        #expect(process.runtime.loops.failed.isEmpty)
        try await fault.inflict(on: process.runtime)
        let outcome = await process.outcome()
        #expect(fault.reportedBy.contains(outcome), "the failure names the loop (\(outcome))")
        #expect(await !process.runtime.isReady, "a service with a dead loop is not ready")
        #expect(
            !process.runtime.loops.failed.isEmpty && process.runtime.loops.failed.allSatisfy(fault.reportedBy.contains))
        await process.stack.shutdown()
    }

    @Test(
        "a service whose database pool stops turns unready and ends its group",
        .enabled(if: PodiumTestStack.storageKind == "postgresql", "the pool exists on PostgreSQL only"),
        arguments: serviceNames)
    func deadPoolEndsTheService(service: String) async throws {
        let process = try await Process(service: service)
        #expect(try await process.waitUntilReady())
        // The store's closing stops its pool under the running service.
        await process.runtime.definition.shutdown?()
        #expect(await process.outcome() == "database pool")
        #expect(await !process.runtime.isReady)
        await process.stack.shutdown()
    }

    @Test("a graceful shutdown is not a failure, and the service is not ready afterwards", arguments: serviceNames)
    func gracefulShutdownIsClean(service: String) async throws {
        let process = try await Process(service: service)
        #expect(try await process.waitUntilReady())
        await process.group.triggerGracefulShutdown()
        try await process.running.value
        #expect(process.runtime.loops.failed.isEmpty)
        #expect(process.runtime.loops.snapshot.values.allSatisfy { $0 == .stopped })
        #expect(await !process.runtime.isReady)
        await process.stack.shutdown()
    }

    @Test("a service whose gateways fall silent turns unready: readiness is computed, never a flag set once")
    func silentBusTurnsUnready() async throws {
        let process = try await Process(service: "leaderboard")
        #expect(try await process.waitUntilReady())
        // The gateway (and with it its bus ticks) goes away; the service's loops still run.
        await process.stack.shutdown()
        let unready = try await withDeadline(.seconds(30)) {
            while await process.runtime.isReady { try await Task.sleep(for: .milliseconds(100)) }
            return true
        }
        #expect(unready)
        await process.group.triggerGracefulShutdown()
        try? await process.running.value
    }
}
