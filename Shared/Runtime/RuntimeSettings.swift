import Configuration
import Foundation
import Logging

/// The settings every Podium process shares, read from environment variables.
///
/// | variable | default | meaning |
/// |---|---|---|
/// | `PODIUM_DATA` | `./.podium` | directory holding each service's database |
/// | `PODIUM_INSTANCE_ID` | `<service>-<random>` | this process's id; its publisher id on the bus |
/// | `PODIUM_BUS_PUBLISH` | `tcp://127.0.0.1:5560` | bus input (gateway XSUB): publishers connect here |
/// | `PODIUM_BUS_SUBSCRIBE` | `tcp://127.0.0.1:5561` | bus output (gateway XPUB): subscribers connect here |
/// | `PODIUM_BUS_SERVICES` | `tcp://127.0.0.1:5562` | gateway ROUTER that services connect their DEALER to |
///
/// With several gateways (each its own hub), a service takes comma-separated lists of the three,
/// one entry per gateway in the same order, and connects to every hub.
/// | `PODIUM_HEARTBEAT_MS` | `1000` | interval of service announcements and bus ticks |
/// | `PODIUM_LOG_LEVEL` | `info` | trace, debug, info, notice, warning, error, critical |
/// | `PODIUM_DEVELOPMENT` | `false` | allows generated development secrets; never in production |
/// | `PODIUM_DATABASE_URL` | unset | PostgreSQL instead of SQLite (``DatabaseSettings``) |
/// | `PODIUM_BUS_SECRET_KEY`, … | unset: plain bus | CURVE on the bus (``BusSecurity``) |
/// | `PODIUM_*_RETENTION_SECONDS`, … | 30 days of events, 7 of outboxes and receipts | retention (``RetentionSettings``) |
///
/// The gateway binds the three bus endpoints; services connect to them.
public struct RuntimeSettings: Sendable {
    public var service: String
    public var instanceID: String
    public var dataDirectory: URL
    public var busPublishEndpoint: String
    public var busSubscribeEndpoint: String
    public var busServicesEndpoint: String
    public var heartbeatInterval: Duration
    public var logLevel: Logger.Level
    public var developmentMode: Bool
    /// The PostgreSQL server the service keeps its data in; nil: SQLite files under ``dataDirectory``.
    public var database: DatabaseSettings?
    /// CURVE on the bus; nil: plain (the single-box default on 127.0.0.1).
    public var busSecurity: BusSecurity?
    /// How long the event log, outboxes and receipts are kept (``RetentionSettings``).
    public var retention = RetentionSettings()
    /// How long a lease holds (several instances of a service on PostgreSQL): a dead owner's
    /// data is taken over this long after its last renewal at most. `PODIUM_LEASE_MS`.
    public var leaseMilliseconds: Int64 = 5000
    /// How many partitions a partitioned service's data is split into (the leaderboard, by
    /// board; ``PartitionKey``), the same in every process of a deployment. Each partition has its
    /// own lease, so the live instances share the partitions and each serves its own. Fixed once
    /// a service's data is split (docs/SCALING.md). `PODIUM_PARTITIONS`.
    public var partitions = 16

    public init(
        service: String,
        instanceID: String? = nil,
        dataDirectory: URL,
        busPublishEndpoint: String = "tcp://127.0.0.1:5560",
        busSubscribeEndpoint: String = "tcp://127.0.0.1:5561",
        busServicesEndpoint: String = "tcp://127.0.0.1:5562",
        heartbeatInterval: Duration = .seconds(1),
        logLevel: Logger.Level = .info,
        developmentMode: Bool = false,
        database: DatabaseSettings? = nil,
        busSecurity: BusSecurity? = nil
    ) {
        self.service = service
        self.instanceID = instanceID ?? "\(service)-\(UUID().uuidString.prefix(8).lowercased())"
        self.dataDirectory = dataDirectory
        self.busPublishEndpoint = busPublishEndpoint
        self.busSubscribeEndpoint = busSubscribeEndpoint
        self.busServicesEndpoint = busServicesEndpoint
        self.heartbeatInterval = heartbeatInterval
        self.logLevel = logLevel
        self.developmentMode = developmentMode
        self.database = database
        self.busSecurity = busSecurity
    }

    /// The hubs a service connects to: one entry per gateway, from the comma-separated lists.
    public var busPublishEndpoints: [String] { Self.list(busPublishEndpoint) }
    public var busSubscribeEndpoints: [String] { Self.list(busSubscribeEndpoint) }
    public var busServicesEndpoints: [String] { Self.list(busServicesEndpoint) }

    static func list(_ text: String) -> [String] {
        text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    /// Checks the bus endpoint lists: one entry each for the gateway (it binds them), the same
    /// number of entries in all three for a service (one per gateway).
    func checkBusEndpoints() throws {
        let counts = [busPublishEndpoints.count, busSubscribeEndpoints.count, busServicesEndpoints.count]
        if counts.contains(0) {
            throw ConfigurationProblem(
                "PODIUM_BUS_PUBLISH, PODIUM_BUS_SUBSCRIBE and PODIUM_BUS_SERVICES must not be empty")
        }
        if service == "gateway" {
            guard counts == [1, 1, 1] else {
                throw ConfigurationProblem(
                    "the gateway binds one bus endpoint of each kind: PODIUM_BUS_PUBLISH, _SUBSCRIBE and _SERVICES take one endpoint here"
                )
            }
        } else if Set(counts).count != 1 {
            throw ConfigurationProblem(
                "PODIUM_BUS_PUBLISH, PODIUM_BUS_SUBSCRIBE and PODIUM_BUS_SERVICES list \(counts.map(String.init).joined(separator: ", ")) endpoints: give one of each per gateway, in the same order"
            )
        }
    }

    /// Reads the settings for one service (see the table above).
    public init(service: String, reader: ConfigReader) throws {
        let podium = reader.scoped(to: "podium")
        let levelName = podium.string(forKey: ["log", "level"], default: "info")
        guard let level = Logger.Level(rawValue: levelName.lowercased()) else {
            throw ConfigurationProblem(
                "PODIUM_LOG_LEVEL must be one of trace, debug, info, notice, warning, error, critical")
        }
        let heartbeat = podium.int(forKey: ["heartbeat", "ms"], default: 1000)
        guard (50...60_000).contains(heartbeat) else {
            throw ConfigurationProblem("PODIUM_HEARTBEAT_MS must be between 50 and 60000")
        }
        var database: DatabaseSettings?
        if let url = podium.string(forKey: ["database", "url"], isSecret: true), !url.isEmpty {
            var settings = try DatabaseSettings(
                url: url, schema: podium.string(forKey: ["database", "schema"], default: "podium_\(service)"))
            settings.poolSize = podium.int(forKey: ["database", "pool", "size"], default: 8)
            settings.statementTimeoutMilliseconds = podium.int(
                forKey: ["database", "statement", "timeout", "ms"], default: 10_000)
            settings.connectTimeoutMilliseconds = podium.int(
                forKey: ["database", "connect", "timeout", "ms"], default: 2000)
            guard (1...100).contains(settings.poolSize) else {
                throw ConfigurationProblem("PODIUM_DATABASE_POOL_SIZE must be 1-100")
            }
            guard (100...600_000).contains(settings.statementTimeoutMilliseconds) else {
                throw ConfigurationProblem("PODIUM_DATABASE_STATEMENT_TIMEOUT_MS must be 100-600000")
            }
            guard (100...60_000).contains(settings.connectTimeoutMilliseconds) else {
                throw ConfigurationProblem("PODIUM_DATABASE_CONNECT_TIMEOUT_MS must be 100-60000")
            }
            database = settings
        }
        self.init(
            service: service,
            instanceID: podium.string(forKey: ["instance", "id"]),
            dataDirectory: URL(fileURLWithPath: podium.string(forKey: ["data"], default: "./.podium")),
            busPublishEndpoint: podium.string(forKey: ["bus", "publish"], default: "tcp://127.0.0.1:5560"),
            busSubscribeEndpoint: podium.string(forKey: ["bus", "subscribe"], default: "tcp://127.0.0.1:5561"),
            busServicesEndpoint: podium.string(forKey: ["bus", "services"], default: "tcp://127.0.0.1:5562"),
            heartbeatInterval: .milliseconds(heartbeat),
            logLevel: level,
            developmentMode: podium.bool(forKey: ["development"], default: false),
            database: database,
            busSecurity: try BusSecurity.read(from: podium, isHub: service == "gateway")
        )
        let lease = podium.int(forKey: ["lease", "ms"], default: 5000)
        guard (500...60_000).contains(lease) else { throw ConfigurationProblem("PODIUM_LEASE_MS must be 500-60000") }
        leaseMilliseconds = Int64(lease)
        partitions = podium.int(forKey: ["partitions"], default: 16)
        guard (1...1024).contains(partitions) else { throw ConfigurationProblem("PODIUM_PARTITIONS must be 1-1024") }
        retention = try RetentionSettings.checked(
            eventSeconds: podium.int(forKey: ["event", "retention", "seconds"], default: 30 * 86_400),
            outboxSeconds: podium.int(forKey: ["outbox", "retention", "seconds"], default: 7 * 86_400),
            receiptSeconds: podium.int(forKey: ["receipt", "retention", "seconds"], default: 7 * 86_400),
            intervalSeconds: podium.int(forKey: ["retention", "interval", "seconds"], default: 60))
        try checkBusEndpoints()
    }

    /// Whether a bus endpoint reaches beyond this machine (anything but loopback and inproc),
    /// where a plain bus lets anyone who can reach it read every message and publish as a service.
    public static func leavesMachine(_ endpoint: String) -> Bool {
        guard endpoint.hasPrefix("tcp://") else { return false }
        let host = endpoint.dropFirst(6).split(separator: ":").dropLast().joined(separator: ":")
        return !(host.hasPrefix("127.") || host == "localhost" || host == "[::1]" || host == "::1")
    }

    /// Says at start how this process's bus is protected: `bus uses CURVE` with its public key
    /// (and, on the hub, the names it admits), or a warning when a plain bus reaches beyond this
    /// machine.
    public func logBusSecurity(to logger: Logger) {
        if let security = busSecurity {
            var metadata: Logger.Metadata = ["bus.public_key": "\(security.keyPair.publicKey.z85)"]
            if !security.admitted.isEmpty {
                metadata["bus.admitted"] = "\(security.admitted.values.sorted().joined(separator: ","))"
            }
            logger.info("bus uses CURVE", metadata: metadata)
        } else if let open = busEndpoints.first(where: Self.leavesMachine) {
            logger.warning(
                "the bus is plain on an endpoint beyond this machine: anyone who reaches it reads every message and may publish as a service; set PODIUM_BUS_SECRET_KEY (docs/SECURITY.md)",
                metadata: ["bus.endpoint": "\(open)"])
        }
    }

    /// The bus endpoints this process uses.
    public var busEndpoints: [String] { busPublishEndpoints + busSubscribeEndpoints + busServicesEndpoints }

    /// The environment as a configuration reader, secrets redacted from access logs.
    public static func environmentReader() -> ConfigReader {
        ConfigReader(
            provider: EnvironmentVariablesProvider(
                secretsSpecifier: .dynamic { key, _ in key.hasSuffix("_SECRET") || key.hasSuffix("_KEY") }))
    }
}

/// A configuration value that cannot be used; the process refuses to start.
public struct ConfigurationProblem: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
