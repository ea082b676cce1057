// swift-tools-version: 6.1
import PackageDescription

/// Every Swift target uses Swift 6 language mode with strict concurrency (the tools-version default).
let package = Package(
    name: "Podium",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "podium-gateway", targets: ["GatewayMain"]),
        .executable(name: "podium-auth", targets: ["AuthMain"]),
        .executable(name: "podium-leaderboard", targets: ["LeaderboardMain"]),
        .executable(name: "podium-achievement", targets: ["AchievementMain"]),
        .executable(name: "podium-challenge", targets: ["ChallengeMain"]),
        .executable(name: "podium", targets: ["PodiumCLI"]),
        .executable(name: "podium-data", targets: ["PodiumDataCLI"]),
        .executable(name: "podium-bench", targets: ["PodiumBench"]),
        .executable(name: "podium-bench-zmq", targets: ["PodiumBenchZMQ"]),
        .library(name: "ZeroMQ", targets: ["ZeroMQ"]),
        .library(name: "PodiumMessages", targets: ["PodiumMessages"]),
        .library(name: "PodiumRuntime", targets: ["PodiumRuntime"]),
        .library(name: "PodiumTesting", targets: ["PodiumTesting"]),
        .library(name: "PodiumClient", targets: ["PodiumClient"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-configuration", from: "1.4.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-collections", from: "1.6.0"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-crypto", from: "4.5.2"),
        .package(url: "https://github.com/vapor/jwt-kit", from: "5.8.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket", from: "2.8.1"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/hummingbird-project/swift-mustache", from: "2.1.1"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        .package(url: "https://github.com/HdrHistogram/hdrhistogram-swift", from: "0.2.0"),
        // The Swift client library (its own package, docs/clients/swift.md); its tests are built
        // into this package's test bundle below, so that one debug build serves both.
        .package(path: "clients/swift"),
    ],
    targets: [
        // The C surface of libzmq. Only the ZeroMQ module imports it.
        .systemLibrary(
            name: "CZeroMQ",
            path: "Shared/CZeroMQ",
            pkgConfig: "libzmq",
            providers: [.apt(["libzmq3-dev"])]
        ),
        // The safe Swift layer over libzmq: contexts, sockets, frames, options, owner threads.
        .target(
            name: "ZeroMQ",
            dependencies: [
                "CZeroMQ",
                .product(name: "DequeModule", package: "swift-collections"),
            ],
            path: "Shared/ZeroMQ"
        ),
        // The wire contract: envelope, payloads, topics, error codes, codec.
        .target(
            name: "PodiumMessages",
            path: "Shared/Messages"
        ),
        // The typed client of the request endpoint, built from the request catalog: one codec,
        // over an async DEALER, a blocking DEALER (the CLI) or the gateway in-process (the console).
        .target(
            name: "PodiumClient",
            dependencies: ["ZeroMQ", "PodiumMessages"],
            path: "Shared/Client"
        ),
        // What every service shares: configuration, logging, lifecycle, the bus, storage, clock.
        .target(
            name: "PodiumRuntime",
            dependencies: [
                "ZeroMQ",
                "PodiumMessages",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Configuration", package: "swift-configuration"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "DequeModule", package: "swift-collections"),
                .product(name: "Metrics", package: "swift-metrics"),
            ],
            path: "Shared/Runtime"
        ),
        // The SQLite side of the storage seam (GRDB): opening a durable database, the durable
        // tables (receipts, outbox, stream positions) and their readers for the runtime.
        // The PostgreSQL side of the storage seam (postgres-nio): a connection pool from
        // PODIUM_DATABASE_URL, versioned migrations under an advisory lock, the durable tables.
        .target(
            name: "PodiumPostgres",
            dependencies: [
                "PodiumRuntime", "PodiumMessages",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Shared/Postgres"
        ),
        .target(
            name: "PodiumSQLite",
            dependencies: ["PodiumRuntime", .product(name: "GRDB", package: "GRDB.swift")],
            path: "Shared/SQLite"
        ),
        // Every process's operations listener (PODIUM_METRICS: /metrics, /health/live,
        // /health/ready) and `ServiceMain`, which runs a process's services beside it.
        .target(
            name: "PodiumOperations",
            dependencies: [
                "PodiumRuntime",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Configuration", package: "swift-configuration"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            path: "Shared/Operations"
        ),
        // Session and refresh tokens (JWT via jwt-kit), password hashing (scrypt) and one-time codes
        // (TOTP), shared by the auth service and the gateway.
        .target(
            name: "PodiumTokens",
            dependencies: [
                "PodiumMessages",
                "PodiumRuntime",
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
            ],
            path: "Shared/Tokens"
        ),
        .target(
            name: "Gateway",
            dependencies: [
                "PodiumRuntime", "PodiumTokens", "PodiumClient", .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "DequeModule", package: "swift-collections"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Mustache", package: "swift-mustache"),
                .product(name: "Histogram", package: "hdrhistogram-swift"),
            ],
            path: "Services/Gateway/Library"
        ),
        .target(
            name: "GatewayPostgres",
            dependencies: ["Gateway", "PodiumPostgres", .product(name: "PostgresNIO", package: "postgres-nio")],
            path: "Services/Gateway/Postgres"
        ),
        .target(
            name: "GatewaySQLite",
            dependencies: ["Gateway", "PodiumSQLite", .product(name: "GRDB", package: "GRDB.swift")],
            path: "Services/Gateway/SQLite"
        ),
        .target(
            name: "Auth",
            dependencies: ["PodiumRuntime", "PodiumTokens", .product(name: "CryptoExtras", package: "swift-crypto")],
            path: "Services/Auth/Library"
        ),
        .target(
            name: "AuthPostgres",
            dependencies: ["Auth", "PodiumPostgres", .product(name: "PostgresNIO", package: "postgres-nio")],
            path: "Services/Auth/Postgres"
        ),
        .target(
            name: "AuthSQLite",
            dependencies: ["Auth", "PodiumSQLite", .product(name: "GRDB", package: "GRDB.swift")],
            path: "Services/Auth/SQLite"
        ),
        .target(name: "Leaderboard", dependencies: ["PodiumRuntime"], path: "Services/Leaderboard/Library"),
        .target(
            name: "LeaderboardPostgres",
            dependencies: ["Leaderboard", "PodiumPostgres", .product(name: "PostgresNIO", package: "postgres-nio")],
            path: "Services/Leaderboard/Postgres"
        ),
        .target(
            name: "LeaderboardSQLite",
            dependencies: ["Leaderboard", "PodiumSQLite", .product(name: "GRDB", package: "GRDB.swift")],
            path: "Services/Leaderboard/SQLite"
        ),
        .target(name: "Achievement", dependencies: ["PodiumRuntime"], path: "Services/Achievement/Library"),
        .target(
            name: "AchievementPostgres",
            dependencies: ["Achievement", "PodiumPostgres", .product(name: "PostgresNIO", package: "postgres-nio")],
            path: "Services/Achievement/Postgres"
        ),
        .target(
            name: "AchievementSQLite",
            dependencies: ["Achievement", "PodiumSQLite", .product(name: "GRDB", package: "GRDB.swift")],
            path: "Services/Achievement/SQLite"
        ),
        .target(
            name: "Challenge",
            dependencies: ["PodiumRuntime", .product(name: "Configuration", package: "swift-configuration")],
            path: "Services/Challenge/Library"),
        .target(
            name: "ChallengePostgres",
            dependencies: ["Challenge", "PodiumPostgres", .product(name: "PostgresNIO", package: "postgres-nio")],
            path: "Services/Challenge/Postgres"
        ),
        .target(
            name: "ChallengeSQLite",
            dependencies: ["Challenge", "PodiumSQLite", .product(name: "GRDB", package: "GRDB.swift")],
            path: "Services/Challenge/SQLite"
        ),
        .executableTarget(
            name: "GatewayMain",
            dependencies: [
                "Gateway", "GatewaySQLite", "GatewayPostgres", "PodiumOperations",
                .product(name: "Logging", package: "swift-log"),
            ], path: "Services/Gateway/Main"),
        .executableTarget(
            name: "AuthMain", dependencies: ["Auth", "AuthSQLite", "AuthPostgres", "PodiumOperations"],
            path: "Services/Auth/Main"),
        .executableTarget(
            name: "LeaderboardMain",
            dependencies: ["Leaderboard", "LeaderboardSQLite", "LeaderboardPostgres", "PodiumOperations"],
            path: "Services/Leaderboard/Main"),
        .executableTarget(
            name: "AchievementMain",
            dependencies: ["Achievement", "AchievementSQLite", "AchievementPostgres", "PodiumOperations"],
            path: "Services/Achievement/Main"),
        .executableTarget(
            name: "ChallengeMain",
            dependencies: ["Challenge", "ChallengeSQLite", "ChallengePostgres", "PodiumOperations"],
            path: "Services/Challenge/Main"),
        // The `podium` command-line client: it speaks the protocol only, so it stays small (the
        // image links it statically, to be copied out and run anywhere; docs/DEPLOYMENT.md).
        .executableTarget(
            name: "PodiumCLI",
            dependencies: [
                "ZeroMQ",
                "PodiumMessages",
                "PodiumClient",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Services/CLI"
        ),
        // `podium-data export` and `import`: the SQLite reader, the PostgreSQL loader and the
        // services' PostgreSQL openers (their migrations make the target schemas).
        .executableTarget(
            name: "PodiumDataCLI",
            dependencies: [
                "PodiumMessages", "PodiumRuntime", "PodiumSQLite", "PodiumPostgres", "Gateway", "GatewayPostgres",
                "AuthPostgres", "LeaderboardPostgres", "AchievementPostgres", "ChallengePostgres",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Services/DataCLI"
        ),
        // Starts a whole stack in-process on ephemeral ports, for tests.
        .target(
            name: "PodiumTesting",
            dependencies: [
                "PodiumClient", "Gateway", "GatewaySQLite", "GatewayPostgres", "Auth", "AuthSQLite", "AuthPostgres",
                "Leaderboard", "LeaderboardSQLite", "LeaderboardPostgres", "Achievement", "AchievementSQLite",
                "AchievementPostgres", "Challenge", "ChallengeSQLite", "ChallengePostgres",
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            path: "Shared/Testing"
        ),
        // Benchmarks (scripts/bench): the leaderboard at scale, in-process and through the gateway.
        .executableTarget(
            name: "PodiumBench",
            dependencies: [
                "PodiumTesting", "PodiumClient", "GatewaySQLite", "LeaderboardSQLite", "LeaderboardPostgres",
            ],
            path: "Tests/Benchmarks/Stack"),
        // The raw-libzmq reference for scripts/bench: PUB/SUB and DEALER/ROUTER without Podium on top.
        .executableTarget(name: "PodiumBenchZMQ", dependencies: ["ZeroMQ"], path: "Tests/Benchmarks/RawZeroMQ"),
        .testTarget(name: "ZeroMQTests", dependencies: ["ZeroMQ"], path: "Tests/ZeroMQTests"),
        .testTarget(name: "MessagesTests", dependencies: ["PodiumMessages"], path: "Tests/MessagesTests"),
        .testTarget(
            name: "RuntimeTests",
            dependencies: ["PodiumRuntime", .product(name: "Configuration", package: "swift-configuration")],
            path: "Tests/RuntimeTests"
        ),
        .testTarget(
            name: "AuthTests",
            dependencies: [
                "PodiumTesting", "PodiumClient", "PodiumTokens", .product(name: "JWTKit", package: "jwt-kit"),
            ],
            path: "Tests/AuthTests"
        ),
        .testTarget(
            name: "PostgresTests",
            dependencies: [
                "PodiumPostgres", "GatewayPostgres", "Gateway", "PodiumMessages",
                .product(name: "PostgresNIO", package: "postgres-nio"), .product(name: "Logging", package: "swift-log"),
            ],
            path: "Tests/PostgresTests"
        ),
        .testTarget(
            name: "ChallengeTests", dependencies: ["PodiumTesting", "PodiumClient"], path: "Tests/ChallengeTests"),
        .testTarget(
            name: "AchievementTests", dependencies: ["PodiumTesting", "PodiumClient"], path: "Tests/AchievementTests"),
        .testTarget(
            name: "LeaderboardTests", dependencies: ["PodiumTesting", "PodiumClient"], path: "Tests/LeaderboardTests"),
        .testTarget(
            name: "GatewayTests",
            dependencies: [
                "PodiumTesting", "PodiumClient", "GatewaySQLite", "Leaderboard",
                .product(name: "Configuration", package: "swift-configuration"),
            ],
            path: "Tests/GatewayTests"
        ),
        // The Swift client's suite (scripts/test-clients swift runs it against a real stack).
        .testTarget(
            name: "PodiumKitTests", dependencies: [.product(name: "PodiumKit", package: "swift")],
            path: "clients/swift/Tests/PodiumKitTests"),
    ]
)
