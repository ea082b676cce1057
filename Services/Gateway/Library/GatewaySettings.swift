import Configuration
import Foundation
import PodiumMessages
import PodiumRuntime
import PodiumTokens

/// The gateway's settings, read from environment variables (plus the shared ``RuntimeSettings``).
///
/// | variable | default | meaning |
/// |---|---|---|
/// | `PODIUM_GATEWAY_REQUESTS` | `tcp://127.0.0.1:5555` | public request endpoint (ROUTER) |
/// | `PODIUM_GATEWAY_NOTIFICATIONS` | `tcp://127.0.0.1:5556` | public notification endpoint (XPUB) |
/// | `PODIUM_NOTIFICATION_SECRET` | none: required | key that derives private notification topics (≥ 32 bytes) |
/// | `PODIUM_MAX_MESSAGE_BYTES` | `65536` | largest request accepted; larger gets `message_too_large` |
/// | `PODIUM_REQUEST_TIMEOUT_MS` | `5000` | how long a service has to answer |
/// | `PODIUM_MAX_IN_FLIGHT` | `10000` | requests waiting on services before `overloaded` |
/// | `PODIUM_EXPECTED_SERVICES` | `auth,leaderboard,achievement,challenge` | services `health` reports on |
/// | `PODIUM_AUTH_TOKEN_KEY` | none: required | the auth service's token key, to verify session tokens |
/// | `PODIUM_GAME_SERVER_KEYS` | none | `game=key,game2=key2`: each game server's key (≥ 32 bytes) |
/// | `PODIUM_ADMIN_KEY` | none | the operator's key (≥ 32 bytes); without it there is no admin access |
///
/// Without `PODIUM_NOTIFICATION_SECRET` the gateway refuses to start, unless
/// `PODIUM_DEVELOPMENT=true`, in which case it generates a random one for this run.
public struct GatewaySettings: Sendable {
    public var runtime: RuntimeSettings
    public var requestEndpoint: String
    public var notificationEndpoint: String
    public var notificationSecret: [UInt8]
    public var maxMessageBytes: Int
    public var requestTimeout: Duration
    public var maxInFlight: Int
    public var expectedServices: [String]
    public var tokenKey: [UInt8]
    /// Game server keys by game id.
    public var serverKeys: [String: String]
    public var adminKey: String?

    /// Frames above this size make libzmq drop the connection before Podium sees them.
    public var hardFrameLimit: Int64 { Int64(max(maxMessageBytes * 16, 1 << 20)) }

    /// Shortest accepted notification secret, in bytes.
    public static let minimumSecretLength = 32
    /// The well-known example value; refused like a missing secret.
    public static let exampleSecret = "change-me-to-a-long-random-secret-value"

    public init(
        runtime: RuntimeSettings,
        requestEndpoint: String = "tcp://127.0.0.1:5555",
        notificationEndpoint: String = "tcp://127.0.0.1:5556",
        notificationSecret: [UInt8],
        maxMessageBytes: Int = 65536,
        requestTimeout: Duration = .seconds(5),
        maxInFlight: Int = 10_000,
        expectedServices: [String] = ["auth", "leaderboard", "achievement", "challenge"],
        tokenKey: [UInt8] = Array(SessionTokens.developmentKey.utf8),
        serverKeys: [String: String] = [:],
        adminKey: String? = nil
    ) {
        self.runtime = runtime
        self.requestEndpoint = requestEndpoint
        self.notificationEndpoint = notificationEndpoint
        self.notificationSecret = notificationSecret
        self.maxMessageBytes = maxMessageBytes
        self.requestTimeout = requestTimeout
        self.maxInFlight = maxInFlight
        self.expectedServices = expectedServices
        self.tokenKey = tokenKey
        self.serverKeys = serverKeys
        self.adminKey = adminKey
    }

    /// Reads the settings; throws a ``ConfigurationProblem`` the process should print and exit on.
    public init(reader: ConfigReader) throws {
        let runtime = try RuntimeSettings(service: "gateway", reader: reader)
        let podium = reader.scoped(to: "podium")
        let secret = podium.string(forKey: ["notification", "secret"], isSecret: true)
        let secretBytes: [UInt8]
        if let secret, secret.utf8.count >= Self.minimumSecretLength, secret != Self.exampleSecret {
            secretBytes = Array(secret.utf8)
        } else if runtime.developmentMode {
            secretBytes = (0..<32).map { _ in UInt8.random(in: .min ... .max) }
        } else {
            throw ConfigurationProblem(
                "PODIUM_NOTIFICATION_SECRET must be set to at least \(Self.minimumSecretLength) random bytes "
                    + "(or set PODIUM_DEVELOPMENT=true to generate a throwaway one)")
        }
        let maxBytes = podium.int(forKey: ["max", "message", "bytes"], default: 65536)
        guard (1024...(16 << 20)).contains(maxBytes) else {
            throw ConfigurationProblem("PODIUM_MAX_MESSAGE_BYTES must be between 1024 and 16777216")
        }
        let timeout = podium.int(forKey: ["request", "timeout", "ms"], default: 5000)
        guard (10...600_000).contains(timeout) else {
            throw ConfigurationProblem("PODIUM_REQUEST_TIMEOUT_MS must be between 10 and 600000")
        }
        let inFlight = podium.int(forKey: ["max", "in", "flight"], default: 10_000)
        guard inFlight > 0 else { throw ConfigurationProblem("PODIUM_MAX_IN_FLIGHT must be positive") }
        let expected = podium.string(forKey: ["expected", "services"], default: "auth,leaderboard,achievement,challenge")
        let tokenKey = try Self.tokenKey(
            podium.string(forKey: ["auth", "token", "key"], isSecret: true), developmentMode: runtime.developmentMode)
        var serverKeys: [String: String] = [:]
        for entry in podium.string(forKey: ["game", "server", "keys"], isSecret: true, default: "").split(separator: ",") {
            let parts = entry.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard parts.count == 2, Identifiers.isValidID(parts[0]), parts[1].utf8.count >= Self.minimumSecretLength else {
                throw ConfigurationProblem(
                    "PODIUM_GAME_SERVER_KEYS must be game=key pairs separated by commas, each key at least \(Self.minimumSecretLength) bytes")
            }
            serverKeys[parts[0]] = parts[1]
        }
        let adminKey = podium.string(forKey: ["admin", "key"], isSecret: true)
        if let adminKey, adminKey.utf8.count < Self.minimumSecretLength {
            throw ConfigurationProblem("PODIUM_ADMIN_KEY must be at least \(Self.minimumSecretLength) bytes")
        }
        self.init(
            runtime: runtime,
            requestEndpoint: podium.string(forKey: ["gateway", "requests"], default: "tcp://127.0.0.1:5555"),
            notificationEndpoint: podium.string(forKey: ["gateway", "notifications"], default: "tcp://127.0.0.1:5556"),
            notificationSecret: secretBytes,
            maxMessageBytes: maxBytes,
            requestTimeout: .milliseconds(timeout),
            maxInFlight: inFlight,
            expectedServices: expected.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
                .filter { !$0.isEmpty },
            tokenKey: tokenKey, serverKeys: serverKeys, adminKey: adminKey)
    }
}

extension GatewaySettings {
    /// The configured token key, the development key in development mode, or a refusal.
    static func tokenKey(_ configured: String?, developmentMode: Bool) throws -> [UInt8] {
        try SessionTokens.configuredKey(configured, developmentMode: developmentMode)
    }
}
