import Configuration
import Foundation
import Logging
import PodiumRuntime
import ServiceLifecycle

/// What every executable's `main` does: read the environment, set up logging and metrics, run
/// the process's services and its operations listener (`PODIUM_METRICS`) in one service group
/// that shuts down gracefully on SIGTERM or SIGINT.
public enum ServiceMain {
    /// Exit status for a configuration the process refuses (sysexits' EX_CONFIG).
    public static let configurationExitCode: Int32 = 78

    /// What `build` returns: the process's services, and what its operations listener asks.
    public struct Process {
        public var services: [any Service]
        public var probe: any OperationsProbe

        public init(services: [any Service], probe: any OperationsProbe) {
            self.services = services
            self.probe = probe
        }
    }

    /// Runs the services `build` makes from the environment; exits the process on a bad configuration.
    public static func run(label: String, build: (Logger) async throws -> Process) async {
        MemoryTrimmer.start()
        let reader = RuntimeSettings.environmentReader()
        let level = (try? RuntimeSettings(service: label, reader: reader).logLevel) ?? .info
        PodiumLogging.bootstrap(level: level)
        let registry = OperationsServer.bootstrapMetrics()
        let logger = Logger(label: "podium.\(label)")
        let process: Process
        let address: ListenAddress?
        do {
            address = try OperationsServer.address(for: label, reader: reader)
            process = try await build(logger)
        } catch let problem as ConfigurationProblem {
            logger.critical("refusing to start: \(problem.description)")
            exit(configurationExitCode)
        } catch {
            logger.critical("could not start", metadata: ["error": "\(error)"])
            exit(1)
        }
        var services = process.services
        if let address {
            services.append(
                OperationsServer(address: address, probe: process.probe, registry: registry, logger: logger))
        }
        var configuration = ServiceGroupConfiguration(
            services: services.map { .init(service: $0) },
            gracefulShutdownSignals: [.sigterm, .sigint],
            logger: logger)
        configuration.maximumGracefulShutdownDuration = .seconds(10)
        let group = ServiceGroup(configuration: configuration)
        do {
            try await group.run()
        } catch {
            logger.error("stopped with an error", metadata: ["error": "\(error)"])
            exit(1)
        }
    }

    /// Runs one standard Podium service built from the environment's settings.
    public static func run(_ blueprint: ServiceBlueprint) async {
        await run(label: blueprint.name) { logger in
            let settings = try RuntimeSettings(service: blueprint.name, reader: RuntimeSettings.environmentReader())
            let clock = SystemClock()
            let runtime = try ServiceRuntime(
                definition: try await blueprint.make(settings, clock), settings: settings, clock: clock, logger: logger)
            return Process(services: [runtime], probe: runtime)
        }
    }
}
