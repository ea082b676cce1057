import Configuration
import Foundation
import PodiumMessages
import PodiumRuntime
import PodiumTokens
import ZeroMQ

/// The gateway's settings, read from environment variables (plus the shared ``RuntimeSettings``).
///
/// | variable | default | meaning |
/// |---|---|---|
/// | `PODIUM_GATEWAY_REQUESTS` | `tcp://127.0.0.1:5555` | public request endpoint (ROUTER) |
/// | `PODIUM_GATEWAY_NOTIFICATIONS` | `tcp://127.0.0.1:5556` | public notification endpoint (XPUB) |
/// | `PODIUM_HTTP` | `127.0.0.1:8080` | the HTTP front's `host:port` (port 0: any free port); `off` for none |
/// | `PODIUM_HTTP_ALLOWED_ORIGINS` | none | browser origins that may call the HTTP front (CORS), comma-separated, or `*` |
/// | `PODIUM_HTTP_TRUSTED_PROXIES` | none | proxies (addresses or networks, comma-separated) whose `X-Forwarded-For` names the client; from anywhere else the connection's address counts |
/// | `PODIUM_NOTIFICATION_SECRET` | none: required | key that derives private notification topics (≥ 32 bytes) |
/// | `PODIUM_MAX_MESSAGE_BYTES` | `65536` | largest request accepted; larger gets `message_too_large` |
/// | `PODIUM_REQUEST_TIMEOUT_MS` | `5000` | how long a service has to answer |
/// | `PODIUM_MAX_IN_FLIGHT` | `10000` | requests waiting on services before `overloaded` |
/// | `PODIUM_MAX_IN_FLIGHT_PER_CONNECTION` | `1000` | one connection's requests waiting on services before `overloaded` |
/// | `PODIUM_RATE_CONNECTION_PER_SECOND` | `20000` | requests per second one connection may keep up (token bucket) |
/// | `PODIUM_RATE_CONNECTION_BURST` | `40000` | requests one connection may send at once; past the bucket, `rate_limited` |
/// | `PODIUM_RATE_PLAYER_PER_SECOND` | `10000` | requests per second for one player, over all connections (token bucket) |
/// | `PODIUM_RATE_PLAYER_BURST` | `20000` | requests at once for one player; past the bucket, `rate_limited` |
/// | `PODIUM_CURVE_SECRET_KEY` | none | Z85 CURVE secret key (`podium keygen`); when set, both public endpoints are CURVE servers |
/// | `PODIUM_EXPECTED_SERVICES` | `auth,leaderboard,achievement,challenge` | services `health` reports on |
/// | `PODIUM_AUTH_TOKEN_KEY` | none: required | the auth service's token key, to verify session tokens |
/// | `PODIUM_GAME_SERVER_KEYS` | none | `game=key,game2=key2`: each game server's key (≥ 32 bytes) |
/// | `PODIUM_ADMIN_KEY` | none | the operator's key (≥ 32 bytes); without it there is no admin access |
/// | `PODIUM_READ_CACHE` | `on` | `off`: every `leaderboard.top` goes to the leaderboard service (``PopularReads``) |
/// | `PODIUM_READ_CACHE_MS` | `1000` | the oldest a top page the gateway answers itself may be, 1–60000 ms |
///
/// Without `PODIUM_NOTIFICATION_SECRET` the gateway refuses to start, unless
/// `PODIUM_DEVELOPMENT=true`, in which case it generates a random one for this run.
///
/// The rate limit defaults are about twice the most one pipelining connection gets through the
/// whole stack (docs/BENCHMARKS.md), so they never slow a legitimate client or the benchmarks;
/// they stop one client from taking more than the gateway can serve. Deployments facing the
/// internet should lower the player rate to what their games need.
public struct GatewaySettings: Sendable {
    public var runtime: RuntimeSettings
    public var requestEndpoint: String
    public var notificationEndpoint: String
    /// Where the HTTP front listens; nil for no HTTP front.
    public var httpAddress: HTTPListenAddress?
    /// Browser origins the HTTP front answers with CORS headers.
    var corsPolicy: CORSPolicy = .none
    /// Proxies whose `X-Forwarded-For` names the HTTP client (rate limits, login throttling, audit).
    public var trustedProxies: TrustedProxies = .none
    public var notificationSecret: [UInt8]
    public var maxMessageBytes: Int
    public var requestTimeout: Duration
    public var maxInFlight: Int
    /// One connection's share of ``maxInFlight``.
    public var maxInFlightPerConnection: Int
    /// Requests per connection (ROUTER routing id).
    public var connectionRateLimit: RateLimit
    /// Requests per player: the session's player, or the player a server key acts for.
    public var playerRateLimit: RateLimit
    /// When set, the request and notification endpoints are CURVE servers with this key pair.
    public var curveKeyPair: CurveKeyPair?
    public var expectedServices: [String]
    public var tokenKey: [UInt8]
    /// Game server keys by game id.
    public var serverKeys: [String: String]
    public var adminKey: String?
    /// How long the gateway answers popular reads from the pages it kept (``PopularReads``); nil: never.
    public var readCacheLifetime: Duration? = .milliseconds(1000)
    /// How operators' passwords are hashed (scrypt); tests use a cheap cost.
    public var operatorPasswordCost: PasswordHasher.Cost = .standard

    /// Frames above this size make libzmq drop the connection before Podium sees them.
    public var hardFrameLimit: Int64 { Int64(max(maxMessageBytes * 16, 1 << 20)) }
    /// All frames of one message together above this get `message_too_large` (and are not kept).
    public var maxWholeMessageBytes: Int { Int(hardFrameLimit) }
    /// What the gateway keeps of one received message: a valid request's body plus room for the
    /// routing id and the delimiter. A message larger than this is refused from its size alone.
    public var maxKeptMessageBytes: Int { maxMessageBytes + 4096 }
    /// Connections and players whose rate the gateway tracks at once (each); idle ones are forgotten first.
    public static let rateLimitTrackedKeys = 100_000

    public static let defaultConnectionRateLimit = RateLimit(perSecond: 20_000, burst: 40_000)
    public static let defaultPlayerRateLimit = RateLimit(perSecond: 10_000, burst: 20_000)

    /// Shortest accepted notification secret, in bytes.
    public static let minimumSecretLength = 32
    /// The well-known example value; refused like a missing secret.
    public static let exampleSecret = "change-me-to-a-long-random-secret-value"

    public init(
        runtime: RuntimeSettings,
        requestEndpoint: String = "tcp://127.0.0.1:5555",
        notificationEndpoint: String = "tcp://127.0.0.1:5556",
        httpAddress: HTTPListenAddress? = nil,
        notificationSecret: [UInt8],
        maxMessageBytes: Int = 65536,
        requestTimeout: Duration = .seconds(5),
        maxInFlight: Int = 10_000,
        maxInFlightPerConnection: Int = 1000,
        connectionRateLimit: RateLimit = GatewaySettings.defaultConnectionRateLimit,
        playerRateLimit: RateLimit = GatewaySettings.defaultPlayerRateLimit,
        curveKeyPair: CurveKeyPair? = nil,
        expectedServices: [String] = RequestCatalog.services,
        tokenKey: [UInt8] = Array(SessionTokens.developmentKey.utf8),
        serverKeys: [String: String] = [:],
        adminKey: String? = nil
    ) {
        self.runtime = runtime
        self.requestEndpoint = requestEndpoint
        self.notificationEndpoint = notificationEndpoint
        self.httpAddress = httpAddress
        self.notificationSecret = notificationSecret
        self.maxMessageBytes = maxMessageBytes
        self.requestTimeout = requestTimeout
        self.maxInFlight = maxInFlight
        self.maxInFlightPerConnection = maxInFlightPerConnection
        self.connectionRateLimit = connectionRateLimit
        self.playerRateLimit = playerRateLimit
        self.curveKeyPair = curveKeyPair
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
        let perConnection = podium.int(forKey: ["max", "in", "flight", "per", "connection"], default: 1000)
        guard perConnection > 0 else {
            throw ConfigurationProblem("PODIUM_MAX_IN_FLIGHT_PER_CONNECTION must be positive")
        }
        let connectionRate = try Self.rateLimit(podium, "connection", default: Self.defaultConnectionRateLimit)
        let playerRate = try Self.rateLimit(podium, "player", default: Self.defaultPlayerRateLimit)
        let curveKeyPair = try Self.curveKeyPair(podium.string(forKey: ["curve", "secret", "key"], isSecret: true))
        let expected = podium.string(
            forKey: ["expected", "services"], default: "auth,leaderboard,achievement,challenge")
        let tokenKey = try Self.tokenKey(
            podium.string(forKey: ["auth", "token", "key"], isSecret: true), developmentMode: runtime.developmentMode)
        var serverKeys: [String: String] = [:]
        for entry in podium.string(forKey: ["game", "server", "keys"], isSecret: true, default: "").split(
            separator: ",")
        {
            let parts = entry.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard parts.count == 2, Identifiers.isValidID(parts[0]), parts[1].utf8.count >= Self.minimumSecretLength
            else {
                throw ConfigurationProblem(
                    "PODIUM_GAME_SERVER_KEYS must be game=key pairs separated by commas, each key at least \(Self.minimumSecretLength) bytes"
                )
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
            httpAddress: try HTTPListenAddress.parse(podium.string(forKey: ["http"], default: "127.0.0.1:8080")),
            notificationSecret: secretBytes,
            maxMessageBytes: maxBytes,
            requestTimeout: .milliseconds(timeout),
            maxInFlight: inFlight,
            maxInFlightPerConnection: perConnection,
            connectionRateLimit: connectionRate,
            playerRateLimit: playerRate,
            curveKeyPair: curveKeyPair,
            expectedServices: expected.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
                .filter { !$0.isEmpty },
            tokenKey: tokenKey, serverKeys: serverKeys, adminKey: adminKey)
        corsPolicy = try CORSPolicy.parse(podium.string(forKey: ["http", "allowed", "origins"], default: ""))
        switch podium.string(forKey: ["read", "cache"], default: "on").lowercased() {
        case "on", "true", "1":
            let lifetime = podium.int(forKey: ["read", "cache", "ms"], default: 1000)
            guard (1...60_000).contains(lifetime) else {
                throw ConfigurationProblem("PODIUM_READ_CACHE_MS must be between 1 and 60000")
            }
            readCacheLifetime = .milliseconds(lifetime)
        case "off", "false", "0":
            readCacheLifetime = nil
        default:
            throw ConfigurationProblem("PODIUM_READ_CACHE must be on or off")
        }
        trustedProxies = try TrustedProxies.parse(podium.string(forKey: ["http", "trusted", "proxies"], default: ""))
    }
}

extension GatewaySettings {
    /// The configured token key, the development key in development mode, or a refusal.
    /// `PODIUM_RATE_<WHO>_PER_SECOND` and `PODIUM_RATE_<WHO>_BURST`.
    static func rateLimit(_ podium: ConfigReader, _ who: String, default fallback: RateLimit) throws -> RateLimit {
        let perSecond = podium.double(forKey: ConfigKey(["rate", who, "per", "second"]), default: fallback.perSecond)
        let burst = podium.double(forKey: ConfigKey(["rate", who, "burst"]), default: fallback.burst)
        let name = "PODIUM_RATE_\(who.uppercased())"
        guard perSecond > 0, perSecond.isFinite else {
            throw ConfigurationProblem("\(name)_PER_SECOND must be a positive number")
        }
        guard burst >= 1, burst.isFinite else { throw ConfigurationProblem("\(name)_BURST must be at least 1") }
        return RateLimit(perSecond: perSecond, burst: burst)
    }

    /// The key pair of `PODIUM_CURVE_SECRET_KEY`; nil when unset or empty.
    static func curveKeyPair(_ configured: String?) throws -> CurveKeyPair? {
        guard let configured, !configured.isEmpty else { return nil }
        guard CurveKeyPair.isAvailable else {
            throw ConfigurationProblem(
                "PODIUM_CURVE_SECRET_KEY is set but this libzmq has no CURVE support (it needs libsodium)")
        }
        guard let secret = CurveKey(z85: configured), let pair = try? CurveKeyPair(secretKey: secret) else {
            throw ConfigurationProblem(
                "PODIUM_CURVE_SECRET_KEY must be a CURVE secret key: 40 characters of Z85 (make a key pair with `podium keygen`)"
            )
        }
        return pair
    }

    static func tokenKey(_ configured: String?, developmentMode: Bool) throws -> [UInt8] {
        try SessionTokens.configuredKey(configured, developmentMode: developmentMode)
    }
}
