import Configuration
import PodiumRuntime
import PodiumTokens

/// The auth service's settings, read from environment variables.
///
/// | variable | default | meaning |
/// |---|---|---|
/// | `PODIUM_AUTH_TOKEN_KEY` | none: required | HS256 key for session and refresh tokens (≥ 32 bytes); the gateway needs the same |
/// | `PODIUM_SESSION_TTL_S` | `900` | session token lifetime |
/// | `PODIUM_REFRESH_TTL_S` | `2592000` (30 days) | refresh token lifetime |
///
/// Without a key the service refuses to start, unless `PODIUM_DEVELOPMENT=true`, where it uses
/// the well-known development key (which it refuses in production).
public struct AuthConfiguration: Sendable {
    public var tokenKey: [UInt8]
    public var sessionLifetimeMilliseconds: Int64
    public var refreshLifetimeMilliseconds: Int64
    public var passwordCost: PasswordHasher.Cost
    /// Failed logins allowed per username within the window.
    public var usernameFailureLimit: Int
    /// Failed logins allowed per client address within the window.
    public var peerFailureLimit: Int
    public var failureWindowMilliseconds: Int64

    public init(
        tokenKey: [UInt8], sessionLifetimeMilliseconds: Int64 = 900_000, refreshLifetimeMilliseconds: Int64 = 2_592_000_000,
        passwordCost: PasswordHasher.Cost = .standard, usernameFailureLimit: Int = 5, peerFailureLimit: Int = 20,
        failureWindowMilliseconds: Int64 = 900_000
    ) {
        self.tokenKey = tokenKey
        self.sessionLifetimeMilliseconds = sessionLifetimeMilliseconds
        self.refreshLifetimeMilliseconds = refreshLifetimeMilliseconds
        self.passwordCost = passwordCost
        self.usernameFailureLimit = usernameFailureLimit
        self.peerFailureLimit = peerFailureLimit
        self.failureWindowMilliseconds = failureWindowMilliseconds
    }

    public init(reader: ConfigReader, developmentMode: Bool) throws {
        let podium = reader.scoped(to: "podium")
        let session = podium.int(forKey: ["session", "ttl", "s"], default: 900)
        let refresh = podium.int(forKey: ["refresh", "ttl", "s"], default: 2_592_000)
        guard (30...86_400).contains(session) else { throw ConfigurationProblem("PODIUM_SESSION_TTL_S must be 30-86400") }
        guard (session...31_536_000).contains(refresh) else {
            throw ConfigurationProblem("PODIUM_REFRESH_TTL_S must be at least the session lifetime and at most a year")
        }
        self.init(
            tokenKey: try Self.tokenKey(podium.string(forKey: ["auth", "token", "key"], isSecret: true), developmentMode: developmentMode),
            sessionLifetimeMilliseconds: Int64(session) * 1000, refreshLifetimeMilliseconds: Int64(refresh) * 1000)
    }

    /// The configured token key, the development key in development mode, or a refusal.
    public static func tokenKey(_ configured: String?, developmentMode: Bool) throws -> [UInt8] {
        try SessionTokens.configuredKey(configured, developmentMode: developmentMode)
    }
}
