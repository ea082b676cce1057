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
/// | `PODIUM_LOGIN_WINDOW_S` | `900` | the sliding window failed logins are counted in (60-86400) |
/// | `PODIUM_LOGIN_ACCOUNT_ADDRESS_FAILURES` | `5` | failed logins of one account from one address within the window, then that pair waits |
/// | `PODIUM_LOGIN_ACCOUNT_FAILURES` | `20` | failed logins of one account from all addresses within the window, then it waits (addresses it logged in from lately excepted) |
/// | `PODIUM_LOGIN_ADDRESS_FAILURES` | `300` | failed logins from one address within the window, then new logins from it wait (its known players excepted) |
/// | `PODIUM_USERNAME_QUARANTINE_DAYS` | `30` | how long a deleted account's username stays taken (0-365; 0: free at once) |
/// | `PODIUM_LOGIN_KNOWN_DAYS` | `30` | how long a successful login exempts its account-and-address from the account and address limits (0: never) |
///
/// Without a key the service refuses to start, unless `PODIUM_DEVELOPMENT=true`, where it uses
/// the well-known development key (which it refuses in production).
public struct AuthConfiguration: Sendable {
    public var tokenKey: [UInt8]
    public var sessionLifetimeMilliseconds: Int64
    public var refreshLifetimeMilliseconds: Int64
    public var passwordCost: PasswordHasher.Cost
    /// How failed password logins are limited (``LoginGuard``).
    public var loginLimits: LoginGuard.Limits
    /// How long a deleted account's username cannot be registered again (ms), so that nobody
    /// passes for the player at once.
    public var usernameQuarantineMilliseconds: Int64

    public init(
        tokenKey: [UInt8], sessionLifetimeMilliseconds: Int64 = 900_000,
        refreshLifetimeMilliseconds: Int64 = 2_592_000_000,
        passwordCost: PasswordHasher.Cost = .standard, loginLimits: LoginGuard.Limits = .init(),
        usernameQuarantineMilliseconds: Int64 = 30 * 86_400_000
    ) {
        self.usernameQuarantineMilliseconds = usernameQuarantineMilliseconds
        self.tokenKey = tokenKey
        self.sessionLifetimeMilliseconds = sessionLifetimeMilliseconds
        self.refreshLifetimeMilliseconds = refreshLifetimeMilliseconds
        self.passwordCost = passwordCost
        self.loginLimits = loginLimits
    }

    public init(reader: ConfigReader, developmentMode: Bool) throws {
        let podium = reader.scoped(to: "podium")
        let session = podium.int(forKey: ["session", "ttl", "s"], default: 900)
        let refresh = podium.int(forKey: ["refresh", "ttl", "s"], default: 2_592_000)
        guard (30...86_400).contains(session) else {
            throw ConfigurationProblem("PODIUM_SESSION_TTL_S must be 30-86400")
        }
        let quarantine = podium.int(forKey: ["username", "quarantine", "days"], default: 30)
        guard (0...365).contains(quarantine) else {
            throw ConfigurationProblem("PODIUM_USERNAME_QUARANTINE_DAYS must be 0-365")
        }
        guard (session...31_536_000).contains(refresh) else {
            throw ConfigurationProblem("PODIUM_REFRESH_TTL_S must be at least the session lifetime and at most a year")
        }
        self.init(
            tokenKey: try Self.tokenKey(
                podium.string(forKey: ["auth", "token", "key"], isSecret: true), developmentMode: developmentMode),
            sessionLifetimeMilliseconds: Int64(session) * 1000, refreshLifetimeMilliseconds: Int64(refresh) * 1000,
            loginLimits: try Self.loginLimits(podium.scoped(to: "login")),
            usernameQuarantineMilliseconds: Int64(quarantine) * 86_400_000)
    }

    /// The login limits from `PODIUM_LOGIN_*`, each checked against a range that still stops
    /// guessing (an account limit of 1,000 per window is at most 96,000 tries a day).
    static func loginLimits(_ login: ConfigReader) throws -> LoginGuard.Limits {
        func setting(_ key: [String], _ fallback: Int, _ range: ClosedRange<Int>) throws -> Int {
            let value = login.int(forKey: ConfigKey(key), default: fallback)
            guard range.contains(value) else {
                let name = "PODIUM_LOGIN_" + key.joined(separator: "_").uppercased()
                throw ConfigurationProblem("\(name) must be \(range.lowerBound)-\(range.upperBound) (it is \(value))")
            }
            return value
        }
        return LoginGuard.Limits(
            accountAndAddress: try setting(["account", "address", "failures"], 5, 1...100),
            account: try setting(["account", "failures"], 20, 1...1000),
            address: try setting(["address", "failures"], 300, 1...100_000),
            windowMilliseconds: Int64(try setting(["window", "s"], 900, 60...86_400)) * 1000,
            knownMilliseconds: Int64(try setting(["known", "days"], 30, 0...365)) * 86_400_000)
    }

    /// The configured token key, the development key in development mode, or a refusal.
    public static func tokenKey(_ configured: String?, developmentMode: Bool) throws -> [UInt8] {
        try SessionTokens.configuredKey(configured, developmentMode: developmentMode)
    }
}
