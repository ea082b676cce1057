/// `auth.admin.lockouts` and `auth.admin.unlock`: an account, an address, or both
/// (docs/PROTOCOL.md 22.9). Without either, `lockouts` lists every limit reached.
public struct LockoutQuery: Codable, Sendable, Equatable {
    /// A username (any case).
    public var username: String?
    /// A client address as the gateway sees it (an IP address, without a port).
    public var address: String?

    public init(username: String? = nil, address: String? = nil) {
        self.username = username
        self.address = address
    }
}

/// One failed-login limit reached: which one, for whom, and until when.
public struct Lockout: Codable, Sendable, Equatable {
    /// `account-and-address`, `account` or `address`.
    public var limit: String
    /// The username (lowercase), absent for an address limit.
    public var username: String?
    /// The address, absent for an account limit.
    public var address: String?
    /// Failed logins within the window.
    public var failures: Int
    /// When the next attempt is allowed, from now.
    public var retryAfterMilliseconds: Int64

    public init(limit: String, username: String?, address: String?, failures: Int, retryAfterMilliseconds: Int64) {
        self.limit = limit
        self.username = username
        self.address = address
        self.failures = failures
        self.retryAfterMilliseconds = retryAfterMilliseconds
    }
}

/// The reply to `auth.admin.lockouts` (at most 200, account-and-address first).
public struct LockoutList: Codable, Sendable, Equatable {
    public var lockouts: [Lockout]
    public init(lockouts: [Lockout]) { self.lockouts = lockouts }
}

/// The reply to `auth.admin.unlock`.
public struct UnlockReceipt: Codable, Sendable, Equatable {
    public var username: String?
    public var address: String?
    /// How many counts (an account's, an address's, an account-and-address's) were forgotten.
    public var cleared: Int

    public init(username: String?, address: String?, cleared: Int) {
        self.username = username
        self.address = address
        self.cleared = cleared
    }
}
