import Configuration
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import Metrics
import NIOCore
import PodiumRuntime
import Prometheus
import ServiceLifecycle

/// A process's operations listener (`PODIUM_METRICS`, loopback by default, one documented port
/// per process; docs/OPERATIONS.md):
///
/// - `GET /metrics`: the process's metrics in Prometheus's text format;
/// - `GET /health/live`: 200 while the process runs;
/// - `GET /health/ready`: 200 when ``OperationsProbe/isReady``, else 503.
///
/// A `Service` of the process's group: if its port is taken, the process stops.
public struct OperationsServer: Service {
    let address: ListenAddress
    let probe: any OperationsProbe
    let registry: PrometheusCollectorRegistry
    let logger: Logger
    let onListening: @Sendable (Int) async -> Void
    private let process = ProcessMetrics()

    /// Each process's default listener (`PODIUM_METRICS` unset).
    public static let defaultPorts: [String: Int] = [
        "gateway": 9551, "auth": 9552, "leaderboard": 9553, "achievement": 9554, "challenge": 9555,
    ]

    public init(
        address: ListenAddress, probe: any OperationsProbe, registry: PrometheusCollectorRegistry, logger: Logger,
        onListening: @escaping @Sendable (Int) async -> Void = { _ in }
    ) {
        self.address = address
        self.probe = probe
        self.registry = registry
        var logger = logger
        logger[metadataKey: "listener"] = "operations"
        self.logger = logger
        self.onListening = onListening
    }

    /// Makes swift-metrics report into a new Prometheus registry (Podium's buckets, every metric's help
    /// text) and returns it.
    public static func bootstrapMetrics() -> PrometheusCollectorRegistry {
        let registry = PrometheusCollectorRegistry()
        MetricsSystem.bootstrap(
            HelpedMetricsFactory(
                registry: registry, durationBuckets: MetricNames.durationBuckets, valueBuckets: MetricNames.batchBuckets
            ))
        return registry
    }

    /// `PODIUM_METRICS` for the process named `service`: its default when unset, nil for `off`.
    public static func address(for service: String, reader: ConfigReader) throws -> ListenAddress? {
        let fallback = "127.0.0.1:\(defaultPorts[service] ?? 0)"
        return try ListenAddress.parse(
            reader.scoped(to: "podium").string(forKey: ["metrics"], default: fallback), setting: "PODIUM_METRICS")
    }

    public func run() async throws {
        let router = Router()
        let probe = self.probe
        let registry = self.registry
        let process = self.process
        let databases = Self.databaseGauges(probe.databaseFiles)
        let ready = Metrics.Gauge(label: MetricNames.ready)
        router.get("/metrics") { _, _ -> Response in
            process.sample()
            for (path, gauge) in databases { gauge.record(StorageLocation.bytesOnDisk(path)) }
            ready.record(await probe.isReady ? 1 : 0)
            await probe.sampleMetrics()
            var buffer: [UInt8] = []
            buffer.reserveCapacity(16 * 1024)
            registry.emit(into: &buffer)
            var headers = HTTPFields()
            headers[.contentType] = "text/plain; version=0.0.4; charset=utf-8"
            return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: buffer)))
        }
        router.get("/health/live") { _, _ -> Response in
            Self.json(.ok, #"{"live":true}"#)
        }
        router.get("/health/ready") { _, _ -> Response in
            let report = Readiness(ready: await probe.isReady, loops: probe.loopStates.mapValues(\.rawValue))
            return Self.json(report.ready ? .ok : .serviceUnavailable, report.json)
        }
        let logger = self.logger
        let address = self.address
        let onListening = self.onListening
        let app = Application(
            router: router,
            configuration: .init(address: .hostname(address.host, port: address.port), serverName: "podium-operations"),
            onServerRunning: { channel in
                let port = channel.localAddress?.port ?? 0
                logger.info(
                    "operations listener ready",
                    metadata: ["endpoint.metrics": "http://\(address.host):\(port)/metrics"])
                await onListening(port)
            },
            logger: logger)
        try await app.run()
    }

    private static func json(_ status: HTTPResponse.Status, _ body: String) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "application/json"
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: body)))
    }

    /// One size gauge per database, labelled with its file name without `.sqlite`.
    private static func databaseGauges(_ paths: [String]) -> [(String, Metrics.Gauge)] {
        paths.map { path in
            var name = URL(fileURLWithPath: path).lastPathComponent
            if name.hasSuffix(".sqlite") { name.removeLast(".sqlite".count) }
            return (path, Metrics.Gauge(label: MetricNames.databaseSize, dimensions: [("database", name)]))
        }
    }
}

/// The body of `/health/ready`: whether the process is ready, and the state of each of its loops
/// (``LoopService``): a loop that is not `running` is why a process is not ready.
struct Readiness: Encodable {
    var ready: Bool
    var loops: [String: String]

    var json: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return (try? encoder.encode(self)).map { String(decoding: $0, as: UTF8.self) } ?? #"{"ready":false}"#
    }
}
