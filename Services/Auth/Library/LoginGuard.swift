/// Decides whether a password login may be tried, so that a guesser is slowed without locking
/// out the other players who share the guesser's address (docs/SECURITY.md 3.4).
///
/// Three sliding-window limits on failed logins:
/// - **account and address**: the tightest; one address guessing one account is stopped after
///   a few tries, and nobody else is affected;
/// - **account**: failures from every address together, so that guessing from many addresses
///   is stopped too; an address the account logged in from successfully lately is exempt, so
///   the owner is not locked out by a guesser elsewhere;
/// - **address**: sized for many players behind one address (a carrier-grade NAT, a school, a
///   studio), it stops one address trying many accounts; players who logged in from that
///   address lately are exempt.
///
/// Pure state: the caller passes the time from the injected clock. Kept in memory, per auth
/// instance (a restart forgets it: an attacker only starts counting again).
public struct LoginGuard: Sendable {
    /// The settings, each documented in ``AuthConfiguration``.
    public struct Limits: Sendable, Equatable {
        public var accountAndAddress: Int
        public var account: Int
        public var address: Int
        public var windowMilliseconds: Int64
        /// How long a successful login exempts its account-and-address from the account and
        /// address limits.
        public var knownMilliseconds: Int64

        public init(
            accountAndAddress: Int = 5, account: Int = 20, address: Int = 300, windowMilliseconds: Int64 = 900_000,
            knownMilliseconds: Int64 = 30 * 86_400_000
        ) {
            self.accountAndAddress = accountAndAddress
            self.account = account
            self.address = address
            self.windowMilliseconds = windowMilliseconds
            self.knownMilliseconds = knownMilliseconds
        }
    }

    /// Which limit refused a login.
    public enum Scope: String, Sendable, Codable, CaseIterable {
        case accountAndAddress = "account-and-address"
        case account
        case address
    }

    /// A refusal: which limit, and how long until the next attempt may be made.
    public struct Refusal: Sendable, Equatable {
        public var scope: Scope
        public var retryAfterMilliseconds: Int64
    }

    /// A limit reached at the moment asked: what an operator sees.
    public struct LimitReached: Sendable, Equatable {
        public var scope: Scope
        public var account: String?
        public var address: String?
        public var failures: Int
        public var retryAfterMilliseconds: Int64
    }

    public let limits: Limits
    private var pairs: LoginThrottle
    private var accounts: LoginThrottle
    private var addresses: LoginThrottle
    /// When each account-and-address last logged in successfully.
    private var known: [String: Int64] = [:]

    public init(limits: Limits) {
        self.limits = limits
        pairs = LoginThrottle(limit: limits.accountAndAddress, windowMilliseconds: limits.windowMilliseconds)
        accounts = LoginThrottle(limit: limits.account, windowMilliseconds: limits.windowMilliseconds)
        addresses = LoginThrottle(limit: limits.address, windowMilliseconds: limits.windowMilliseconds)
    }

    /// The guard as the shared marks (``ThrottleLedger``) make it: each failure replayed into its
    /// limit in time order, each known pair remembered.
    public init(limits: Limits, marks: [ThrottleMark]) {
        self.init(limits: limits)
        for mark in marks.sorted(by: { $0.at < $1.at }) {
            switch mark.kind {
            case .loginPair: pairs.recordFailure(Self.pair(mark.account, mark.address), now: mark.at)
            case .loginAccount: accounts.recordFailure(mark.account, now: mark.at)
            case .loginAddress: addresses.recordFailure(mark.address, now: mark.at)
            case .loginKnown: known[Self.pair(mark.account, mark.address)] = mark.at
            case .invitePlayer, .inviteAddress: continue
            }
        }
    }

    /// The marks one failed login adds to the shared table.
    public static func failureMarks(account: String, address: String, now: Int64) -> [ThrottleMark] {
        [
            ThrottleMark(.loginPair, account: account, address: address, at: now),
            ThrottleMark(.loginAccount, account: account, at: now),
            ThrottleMark(.loginAddress, address: address, at: now),
        ]
    }

    /// Whether `account` (the normalized username) may try a password from `address` now.
    public mutating func check(account: String, address: String, now: Int64) -> Refusal? {
        if let wait = pairs.retryAfter(Self.pair(account, address), now: now) {
            return Refusal(scope: .accountAndAddress, retryAfterMilliseconds: wait)
        }
        if isKnown(account, address, now: now) { return nil }
        if let wait = accounts.retryAfter(account, now: now) {
            return Refusal(scope: .account, retryAfterMilliseconds: wait)
        }
        if let wait = addresses.retryAfter(address, now: now) {
            return Refusal(scope: .address, retryAfterMilliseconds: wait)
        }
        return nil
    }

    public mutating func recordFailure(account: String, address: String, now: Int64) {
        pairs.recordFailure(Self.pair(account, address), now: now)
        accounts.recordFailure(account, now: now)
        addresses.recordFailure(address, now: now)
    }

    /// The right password: the pair's failures are forgotten and the address becomes known for
    /// the account. The account's and the address's own counts stay, since a guesser elsewhere
    /// must not gain tries from the owner's logins.
    public mutating func recordSuccess(account: String, address: String, now: Int64) {
        let key = Self.pair(account, address)
        pairs.clear(key)
        known[key] = now
        if known.count > 200_000 { known = known.filter { $0.value + limits.knownMilliseconds > now } }
    }

    /// The limits reached at `now`, narrowed to an account and/or an address.
    public func lockouts(account: String?, address: String?, now: Int64) -> [LimitReached] {
        var found: [LimitReached] = []
        for blocked in pairs.blocked(now: now) {
            let (pairAccount, pairAddress) = Self.split(blocked.key)
            found.append(
                LimitReached(
                    scope: .accountAndAddress, account: pairAccount, address: pairAddress, failures: blocked.failures,
                    retryAfterMilliseconds: blocked.retryAfterMilliseconds))
        }
        for blocked in accounts.blocked(now: now) {
            found.append(
                LimitReached(
                    scope: .account, account: blocked.key, address: nil, failures: blocked.failures,
                    retryAfterMilliseconds: blocked.retryAfterMilliseconds))
        }
        for blocked in addresses.blocked(now: now) {
            found.append(
                LimitReached(
                    scope: .address, account: nil, address: blocked.key, failures: blocked.failures,
                    retryAfterMilliseconds: blocked.retryAfterMilliseconds))
        }
        return
            found
            .filter { lockout in
                // Every filter given is met, by equality or by a lockout that does not depend on it.
                let accountFits = account == nil || lockout.account == nil || lockout.account == account
                let addressFits = address == nil || lockout.address == nil || lockout.address == address
                let named =
                    (account != nil && lockout.account == account) || (address != nil && lockout.address == address)
                return accountFits && addressFits && (named || (account == nil && address == nil))
            }
            .sorted {
                ($0.scope.rawValue, $0.account ?? "", $0.address ?? "") < (
                    $1.scope.rawValue, $1.account ?? "", $1.address ?? ""
                )
            }
    }

    /// Forgets the failures counted against `account`, against `address`, and against every
    /// account-and-address with either; how many counts were cleared.
    public mutating func clear(account: String?, address: String?) -> Int {
        var cleared = 0
        if let account { cleared += accounts.clear(account) ? 1 : 0 }
        if let address { cleared += addresses.clear(address) ? 1 : 0 }
        cleared += pairs.clear { key in
            let (pairAccount, pairAddress) = Self.split(key)
            return pairAccount == account || pairAddress == address
        }
        return cleared
    }

    private func isKnown(_ account: String, _ address: String, now: Int64) -> Bool {
        guard let last = known[Self.pair(account, address)] else { return false }
        return last + limits.knownMilliseconds > now
    }

    /// Usernames cannot hold a NUL, so it separates the two.
    private static func pair(_ account: String, _ address: String) -> String { "\(account)\u{0}\(address)" }

    private static func split(_ key: String) -> (account: String, address: String) {
        let parts = key.split(separator: "\u{0}", maxSplits: 1, omittingEmptySubsequences: false)
        return (String(parts[0]), parts.count > 1 ? String(parts[1]) : "")
    }
}
