// swift-tools-version: 6.0
import PackageDescription

/// PodiumKit: a Swift client of Podium's HTTP/JSON front and WebSocket (docs/PROTOCOL.md sections
/// 20 and 21), shaped like GameKit. It depends on none of the server's modules.
///
/// On Apple platforms it uses Foundation only (URLSession, URLSessionWebSocketTask, the Keychain).
/// On Linux, FoundationNetworking's URLSession carries HTTP, and the WebSocket is SwiftNIO's
/// client (NIOWebSocket, NIOSSL for wss): URLSessionWebSocketTask there needs a libcurl with
/// WebSocket support that distributions do not ship, and WSClient always sends an `Origin` header,
/// which the gateway refuses from origins it was not told to allow.
let package = Package(
    name: "PodiumKit",
    platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16)],
    products: [
        .library(name: "PodiumKit", targets: ["PodiumKit"])
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.0"),
    ],
    targets: [
        .target(
            name: "PodiumKit",
            dependencies: [
                .product(name: "NIOCore", package: "swift-nio", condition: .when(platforms: [.linux])),
                .product(name: "NIOPosix", package: "swift-nio", condition: .when(platforms: [.linux])),
                .product(name: "NIOHTTP1", package: "swift-nio", condition: .when(platforms: [.linux])),
                .product(name: "NIOWebSocket", package: "swift-nio", condition: .when(platforms: [.linux])),
                .product(name: "NIOSSL", package: "swift-nio-ssl", condition: .when(platforms: [.linux])),
            ]
        ),
        // Unit tests of the pure parts, and the integration suite that runs against a real stack
        // (PODIUM_TEST_HTTP…; skipped without it). scripts/test-clients runs it from the root
        // package's test bundle, where the same folder is a test target too.
        .testTarget(name: "PodiumKitTests", dependencies: ["PodiumKit"]),
    ]
)
