import Achievement
import AchievementPostgres
import Auth
import AuthPostgres
import Challenge
import ChallengePostgres
import Foundation
import Gateway
import GatewayPostgres
import Leaderboard
import LeaderboardPostgres
import Logging
import PodiumClient
import PodiumMessages
import PodiumRuntime
import ServiceLifecycle
import ZeroMQ

/// A whole Podium stack in one process, on ephemeral `tcp://127.0.0.1:*` ports and a temporary
/// data directory: the gateway and the services, each with its real sockets and SQLite file.
public final class PodiumTestStack: Sendable {
    /// What to start and how.
    public struct Options: Sendable {
        /// The services to run (default: all four).
        public var services: [ServiceBlueprint]
        /// Services `health` expects (default: the names of `services`).
        public var expectedServices: [String]?
        public var requestTimeout: Duration
        public var maxMessageBytes: Int
        public var heartbeatInterval: Duration
        public var clock: any PodiumClock
        /// Every process's retention (``RetentionSettings``).
        public var retention: RetentionSettings
        /// Instances of each service (more than one needs PostgreSQL: they lease the data).
        public var instances: Int
        /// Each service's lease time (``RuntimeSettings/leaseMilliseconds``).
        public var leaseMilliseconds: Int64
        /// Game server keys by game id.
        public var serverKeys: [String: String]
        /// The operator's key; every stack has ``PodiumTestStack/testAdminKey`` unless a test names
        /// another (health details need one).
        public var adminKey: String?
        /// The auth service's settings (the gateway gets the same token key).
        public var auth: AuthConfiguration
        /// Where the services keep their databases; nil makes a fresh temporary directory that
        /// shutdown removes. A given directory is kept, so that a second stack can restart on it.
        public var dataDirectory: URL?
        /// The gateway's notification secret (random when nil).
        public var notificationSecret: [UInt8]?
        /// The gateway's request limits.
        public var connectionRateLimit: RateLimit
        public var playerRateLimit: RateLimit
        public var maxInFlightPerConnection: Int
        /// When set, the gateway's public endpoints are CURVE servers with this pair, and the
        /// stack's own clients (``client()``, ``player(_:password:)``) use CURVE.
        public var curveKeyPair: CurveKeyPair?
        /// CURVE on the bus: the gateway's bus sockets admit only the services' keys (fresh ones).
        public var busCurve: Bool
        /// Where the stack's processes log; nil: nowhere (or stderr with `PODIUM_TEST_LOGS`).
        public var logger: Logger?
        /// How many gateways (each its own bus hub, all sharing the gateway's storage and
        /// secrets); the services connect to every one.
        public var gateways: Int
        /// How long the gateways answer top pages they kept (nil: every read goes to the service).
        public var readCacheLifetime: Duration?

        public init(
            services: [ServiceBlueprint]? = nil,
            expectedServices: [String]? = nil,
            requestTimeout: Duration = .seconds(5),
            maxMessageBytes: Int = 65536,
            heartbeatInterval: Duration = .milliseconds(250),
            clock: any PodiumClock = SystemClock(),
            serverKeys: [String: String] = [:],
            adminKey: String? = PodiumTestStack.testAdminKey,
            auth: AuthConfiguration = PodiumTestStack.testAuthConfiguration,
            dataDirectory: URL? = nil,
            notificationSecret: [UInt8]? = nil,
            connectionRateLimit: RateLimit = GatewaySettings.defaultConnectionRateLimit,
            playerRateLimit: RateLimit = GatewaySettings.defaultPlayerRateLimit,
            maxInFlightPerConnection: Int = 1000,
            curveKeyPair: CurveKeyPair? = nil,
            busCurve: Bool = false,
            logger: Logger? = nil,
            gateways: Int = 1,
            retention: RetentionSettings = RetentionSettings(),
            instances: Int = 1,
            leaseMilliseconds: Int64 = 5000,
            readCacheLifetime: Duration? = .milliseconds(1000)
        ) {
            self.readCacheLifetime = readCacheLifetime
            self.instances = instances
            self.leaseMilliseconds = leaseMilliseconds
            self.retention = retention
            self.gateways = gateways
            self.busCurve = busCurve
            self.logger = logger
            self.connectionRateLimit = connectionRateLimit
            self.playerRateLimit = playerRateLimit
            self.maxInFlightPerConnection = maxInFlightPerConnection
            self.curveKeyPair = curveKeyPair
            self.dataDirectory = dataDirectory
            self.notificationSecret = notificationSecret
            self.services = services ?? PodiumTestStack.services(auth: auth)
            self.serverKeys = serverKeys
            self.adminKey = adminKey
            self.auth = auth
            self.expectedServices = expectedServices
            self.requestTimeout = requestTimeout
            self.maxMessageBytes = maxMessageBytes
            self.heartbeatInterval = heartbeatInterval
            self.clock = clock
        }
    }

    /// The four Podium services, the auth service with the given settings.
    public static func services(
        auth: AuthConfiguration = testAuthConfiguration, games: GameCatalog = testGames,
        achievements: AchievementCatalog = testAchievements
    ) -> [ServiceBlueprint] {
        [
            AuthService.blueprint(configuration: auth, openStore: TestStores.accounts),
            LeaderboardService.blueprint(catalog: games, openStore: TestStores.scores),
            AchievementService.blueprint(catalog: achievements, openStore: TestStores.progress),
            ChallengeService.blueprint(
                openGames: [], catalog: try! ChallengeCatalog(Array(games.games.values)),
                openStore: TestStores.challenges),
        ]
    }

    /// The games tests use: `dash` with an open high-score board, a fastest-time board, a
    /// server-only board, an increment board, an hourly recurring board and one set.
    public static var testGames: GameCatalog {
        // The definitions are constant and valid, so this cannot throw.
        try! GameCatalog([
            GameConfiguration(
                gameId: "dash",
                leaderboards: [
                    LeaderboardDefinition(id: "dash.highscore", title: "High score", minimum: 0, maximum: 1_000_000),
                    LeaderboardDefinition(
                        id: "dash.fastest", title: "Fastest run", sortOrder: .lowerIsBetter, format: .timeMilliseconds),
                    LeaderboardDefinition(id: "dash.ranked", title: "Ranked (server only)", serverOnly: true),
                    LeaderboardDefinition(id: "dash.coins", title: "Coins collected", submitOperator: .increment),
                    LeaderboardDefinition(
                        id: "dash.hourly", title: "Hourly cup",
                        recurrence: .init(startsAt: 0, durationMilliseconds: 3_600_000)),
                ],
                leaderboardSets: [
                    LeaderboardSet(
                        id: "dash.main", title: "Main boards", leaderboardIds: ["dash.highscore", "dash.fastest"])
                ],
                challenges: [
                    ChallengeDefinition(
                        id: "dash.sprint", title: "Sprint", details: "Your best of three runs in the time you pick.",
                        leaderboardId: "dash.highscore", durations: [600_000, 3_600_000], attempts: .limited(3),
                        repeatable: true),
                    ChallengeDefinition(
                        id: "dash.secret", title: "Secret", details: "Not released yet.",
                        leaderboardId: "dash.highscore",
                        durations: [600_000], attempts: .unlimited, releaseState: .prerelease),
                    ChallengeDefinition(
                        id: "dash.once", title: "Once", details: "One run, once.", leaderboardId: "dash.highscore",
                        durations: [600_000]),
                ])
        ])
    }

    /// The example games' achievements (docs/examples/games): Whack-a-Cac and more.
    public static var testAchievements: AchievementCatalog {
        let examples = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("docs/examples/games")
        // The examples are part of the repository and validated by their own test.
        return (try? AchievementCatalog(directory: examples)) ?? (try! AchievementCatalog([]))
    }

    /// The auth settings tests use: a random token key, cheap password hashing.
    /// The admin key of a test stack that names none.
    public static let testAdminKey = String(repeating: "t", count: 40)

    public static var testAuthConfiguration: AuthConfiguration {
        AuthConfiguration(
            tokenKey: (0..<32).map { _ in UInt8.random(in: .min ... .max) }, passwordCost: .testing)
    }

    /// The first gateway (the one ``endpoints`` and ``client()`` use).
    public let gateway: Gateway
    /// Every gateway (``Options/gateways``).
    public let gateways: [Gateway]
    public let services: [ServiceRuntime]
    /// The gateway's bus public key when the bus uses CURVE (``Options/busCurve``).
    public let busHubKey: CurveKey?
    public let dataDirectory: URL
    private let ownsDataDirectory: Bool
    /// One group per gateway, then one for the services (so that one gateway can be stopped).
    private let groups: [ServiceGroup]
    private let running: [Task<Void, any Error>]

    /// The gateway's endpoints.
    public var endpoints: GatewayEndpoints { gateway.endpoints }

    /// Starts everything and waits until `health` says every expected service is ready.
    public static func start(_ options: Options = Options()) async throws -> PodiumTestStack {
        let stack = try await PodiumTestStack(options)
        do {
            try await stack.waitUntilReady()
        } catch {
            await stack.shutdown()
            throw error
        }
        return stack
    }

    /// Starts everything without waiting for readiness (for stacks that are meant to be incomplete).
    public static func startWithoutWaiting(_ options: Options = Options()) async throws -> PodiumTestStack {
        try await PodiumTestStack(options)
    }

    private init(_ options: Options) async throws {
        let logger = options.logger ?? Self.logger()
        var hubSecurity: BusSecurity?
        var memberPairs: [String: CurveKeyPair] = [:]
        if options.busCurve {
            for blueprint in options.services { memberPairs[blueprint.name] = try CurveKeyPair.generate() }
            hubSecurity = BusSecurity(
                keyPair: try CurveKeyPair.generate(),
                admitted: Dictionary(uniqueKeysWithValues: memberPairs.map { ($0.value.publicKey, $0.key) }))
        }
        busHubKey = hubSecurity?.keyPair.publicKey
        let data =
            options.dataDirectory
            ?? FileManager.default.temporaryDirectory.appendingPathComponent("podium-test-\(UUID().uuidString)")
        dataDirectory = data
        ownsDataDirectory = options.dataDirectory == nil
        var gatewayRuntime = RuntimeSettings(
            service: "gateway", dataDirectory: data, busPublishEndpoint: "tcp://127.0.0.1:*",
            busSubscribeEndpoint: "tcp://127.0.0.1:*", busServicesEndpoint: "tcp://127.0.0.1:*",
            heartbeatInterval: options.heartbeatInterval, developmentMode: true,
            database: try Self.testDatabase(service: "gateway", dataDirectory: data), busSecurity: hubSecurity)
        gatewayRuntime.retention = options.retention
        var gatewaySettings = GatewaySettings(
            runtime: gatewayRuntime, requestEndpoint: "tcp://127.0.0.1:*", notificationEndpoint: "tcp://127.0.0.1:*",
            notificationSecret: options.notificationSecret ?? (0..<32).map { _ in UInt8.random(in: .min ... .max) },
            maxMessageBytes: options.maxMessageBytes, requestTimeout: options.requestTimeout,
            maxInFlightPerConnection: options.maxInFlightPerConnection,
            connectionRateLimit: options.connectionRateLimit,
            playerRateLimit: options.playerRateLimit, curveKeyPair: options.curveKeyPair,
            expectedServices: options.expectedServices ?? options.services.map(\.name),
            tokenKey: options.auth.tokenKey, serverKeys: options.serverKeys, adminKey: options.adminKey)
        gatewaySettings.readCacheLifetime = options.readCacheLifetime
        var gateways: [Gateway] = []
        for index in 0..<max(1, options.gateways) {
            var settings = gatewaySettings
            settings.runtime.instanceID = "gateway-\(index + 1)-\(UUID().uuidString.prefix(4).lowercased())"
            gateways.append(
                try await Gateway(
                    settings: settings, clock: options.clock, logger: logger, openStorage: TestStores.gateway))
        }
        self.gateways = gateways
        gateway = gateways[0]
        // The services connect to every gateway's hub (comma-separated lists, one entry each).
        let busPublish = gateways.map(\.endpoints.busPublish).joined(separator: ",")
        let busSubscribe = gateways.map(\.endpoints.busSubscribe).joined(separator: ",")
        let busServices = gateways.map(\.endpoints.busServices).joined(separator: ",")
        var runtimes: [ServiceRuntime] = []
        for instance in 0..<max(1, options.instances) {
            for blueprint in options.services {
                var settings = RuntimeSettings(
                    service: blueprint.name, dataDirectory: data, busPublishEndpoint: busPublish,
                    busSubscribeEndpoint: busSubscribe, busServicesEndpoint: busServices,
                    heartbeatInterval: options.heartbeatInterval,
                    database: try Self.testDatabase(service: blueprint.name, dataDirectory: data),
                    busSecurity: memberPairs[blueprint.name].map {
                        BusSecurity(keyPair: $0, hubKey: hubSecurity!.keyPair.publicKey)
                    })
                settings.retention = options.retention
                settings.leaseMilliseconds = options.leaseMilliseconds
                if options.instances > 1 {
                    settings.instanceID =
                        "\(blueprint.name)-\(instance + 1)-\(UUID().uuidString.prefix(4).lowercased())"
                }
                let definition = try await blueprint.make(settings, options.clock)
                runtimes.append(
                    try ServiceRuntime(definition: definition, settings: settings, clock: options.clock, logger: logger)
                )
            }
        }
        services = runtimes
        // Several instances: each in a group of its own, so that one can be stopped alone.
        let members: [[any Service]] =
            gateways.map(\.services) + (options.instances > 1 ? services.map { [$0] } : [services])
        let groups = members.map { parts in
            ServiceGroup(
                configuration: ServiceGroupConfiguration(services: parts.map { .init(service: $0) }, logger: logger))
        }
        self.groups = groups
        running = groups.map { group in Task { try await group.run() } }
    }

    /// The PostgreSQL database the stacks use when `PODIUM_TEST_DATABASE_URL` is set (scripts/test
    /// runs the suites once without it, on SQLite, and once with it): each data directory gets
    /// schemas of its own (`t<digest of the directory>_<service>`), so a stack restarted on the
    /// same directory finds its data again, like SQLite files.
    public static func testDatabase(service: String, dataDirectory: URL) throws -> DatabaseSettings? {
        guard let url = ProcessInfo.processInfo.environment["PODIUM_TEST_DATABASE_URL"], !url.isEmpty else {
            return nil
        }
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in dataDirectory.standardizedFileURL.path.utf8 {
            hash ^= UInt64(byte)
            hash &*= 0x100_0000_01b3
        }
        var settings = try DatabaseSettings(url: url, schema: "t\(String(hash, radix: 16))_\(service)")
        // Small by default (many stacks share the server); the benchmark asks for more.
        settings.poolSize = Int(ProcessInfo.processInfo.environment["PODIUM_TEST_DATABASE_POOL"] ?? "") ?? 2
        return settings
    }

    /// Which storage the stacks use: `sqlite` or `postgresql`.
    public static var storageKind: String {
        (ProcessInfo.processInfo.environment["PODIUM_TEST_DATABASE_URL"] ?? "").isEmpty ? "sqlite" : "postgresql"
    }

    /// The gateway's CURVE public key, when its public endpoints use CURVE.
    public var curveServerKey: CurveKey? { gateway.settings.curveKeyPair?.publicKey }

    /// A new client of the request endpoint (a CURVE client when the gateway uses CURVE); of
    /// another gateway's with `gateway`.
    public func client(gateway index: Int = 0) throws -> TestClient {
        try TestClient(endpoint: gateways[index].endpoints.requests, curveServerKey: curveServerKey)
    }

    /// Polls `health` until every expected service is ready (at most `limit`).
    /// With several instances of each service (leases): waits until every service's partitions
    /// are spread evenly over its running instances and served, so that no request of the test
    /// meets a partition that is still moving (it would be refused with `service_unavailable`).
    public func waitUntilSettled(limit: Duration = .seconds(30)) async throws {
        let deadline = ContinuousClock.now + limit
        while true {
            let unsettled = Dictionary(grouping: services.filter(\.ownership.isLeased)) { $0.definition.name }
                .filter { _, instances in
                    let counts = instances.map { $0.ownership.served.count }
                    let total = instances.first?.definition.partitionMap?.partitions ?? 1
                    return counts.reduce(0, +) != total || (counts.max() ?? 0) - (counts.min() ?? 0) > 1
                }
            if unsettled.isEmpty { return }
            guard ContinuousClock.now < deadline else { throw Unsettled(services: unsettled.keys.sorted()) }
            try await Task.sleep(for: .milliseconds(100))
        }
    }

    public func waitUntilReady(limit: Duration = .seconds(20)) async throws {
        var client = try self.client()
        defer { Task { [client] in await client.close() } }
        let deadline = ContinuousClock.now + limit
        var last: String?
        while ContinuousClock.now < deadline {
            let reply = try? await client.exchange(GatewayRequests.health, timeout: .seconds(3))
            last = reply?.text
            if let reply, (try? reply.value())?.ready == true { return }
            if reply?.error?.code == .rateLimited {
                // A stack with a tiny connection rate limit: poll from a new connection.
                let spent = client
                Task { await spent.close() }
                client = try self.client()
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw TestStackError("stack not ready within \(limit); last health: \(last ?? "none")")
    }

    /// Registers a player and returns a client that acts as them (its session token on every request).
    public func player(_ username: String, password: String = "correct horse battery") async throws -> (
        client: TestClient, grant: SessionGrant
    ) {
        let client = try self.client()
        let grant: SessionGrant
        do {
            grant = try await client.call(AuthRequests.register, Registration(username: username, password: password))
        } catch {
            await client.close()
            throw TestStackError("registering \(username) failed: \(error)")
        }
        client.use(.token(grant.sessionToken))
        return (client, grant)
    }

    /// Gracefully stops every service and the gateway, then removes the data directory.
    public func shutdown() async {
        // The services first, then the gateways (as one group would stop them).
        for index in groups.indices.reversed() {
            await groups[index].triggerGracefulShutdown()
            _ = await running[index].result
        }
        if ownsDataDirectory { try? FileManager.default.removeItem(at: dataDirectory) }
    }

    /// Stops one service instance (as at SIGTERM) while the rest runs on (a stack with several
    /// instances of each service).
    public func stopService(instance: String) async {
        guard services.count > 1, let index = services.firstIndex(where: { $0.settings.instanceID == instance }),
            groups.count == gateways.count + services.count
        else { return }
        await groups[gateways.count + index].triggerGracefulShutdown()
        _ = await running[gateways.count + index].result
    }

    /// Stops one gateway (its parts, as at SIGTERM) while the rest of the stack runs on.
    public func stopGateway(_ index: Int) async {
        await groups[index].triggerGracefulShutdown()
        _ = await running[index].result
    }

    /// Quiet unless `PODIUM_TEST_LOGS` is set.
    static func logger() -> Logger {
        if ProcessInfo.processInfo.environment["PODIUM_TEST_LOGS"] != nil {
            return Logger(label: "podium.test")
        }
        return Logger(label: "podium.test", factory: { _ in SwiftLogNoOpLogHandler() })
    }
}

/// Runs `body` against a fresh stack and always shuts it down, pass or fail.
public func withPodiumStack<Result: Sendable>(
    _ options: PodiumTestStack.Options = .init(),
    _ body: (PodiumTestStack) async throws -> Result
) async throws -> Result {
    let stack = try await PodiumTestStack.start(options)
    do {
        let result = try await body(stack)
        await stack.shutdown()
        return result
    } catch {
        await stack.shutdown()
        throw error
    }
}

/// A failure of the test harness itself.
public struct TestStackError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// Partitions still moving when a test's limit passed (``PodiumTestStack/waitUntilSettled(limit:)``).
struct Unsettled: Error, CustomStringConvertible {
    let services: [String]
    var description: String { "partitions of \(services.joined(separator: ", ")) not settled" }
}
