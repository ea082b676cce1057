/// What the shared throttle table counts (docs/SECURITY.md 3.4, 3.4.1).
public enum ThrottleKind: String, Sendable, CaseIterable {
    /// A failed password login, counted for its account and address together.
    case loginPair = "login.pair"
    /// A failed password login, counted for its account.
    case loginAccount = "login.account"
    /// A failed password login, counted for its address.
    case loginAddress = "login.address"
    /// The last successful login of an account from an address (one mark per pair).
    case loginKnown = "login.known"
    /// A wrong invite code, counted for the player who entered it.
    case invitePlayer = "invite.player"
    /// A wrong invite code, counted for the address it came from.
    case inviteAddress = "invite.address"
}

/// One counted attempt (or a known pair) in the shared throttle table. A mark counted for an
/// account alone has an empty address, one for an address alone an empty account.
public struct ThrottleMark: Sendable, Equatable {
    public var kind: ThrottleKind
    public var account: String
    public var address: String
    public var at: Int64

    public init(_ kind: ThrottleKind, account: String = "", address: String = "", at: Int64) {
        self.kind = kind
        self.account = account
        self.address = address
        self.at = at
    }
}

/// Where the login and invite-code throttles keep their counts when several auth instances share
/// them (PostgreSQL): every instance reads the same marks, so the limits hold for the deployment
/// and not per process, and a restart forgets nothing. Without it (SQLite files, one instance)
/// the counts live in the instance's memory.
///
/// Matching: a mark matches an account (an address) when its own is empty or equal; nil matches
/// any.
public protocol ThrottleLedger: Sendable {
    /// The marks of `kinds` made at `since` or later that match, oldest first.
    func marks(_ kinds: [ThrottleKind], account: String?, address: String?, since: Int64) async throws
        -> [ThrottleMark]
    /// Adds marks; a ``ThrottleKind/loginKnown`` mark replaces the pair's previous one. Marks
    /// older than `forgetBefore` (known pairs older than `forgetKnownBefore`) are forgotten.
    func add(_ marks: [ThrottleMark], forgetBefore: Int64, forgetKnownBefore: Int64) async throws
    /// Deletes the marks of `kinds` that match; how many distinct (kind, account, address)
    /// counts had some.
    @discardableResult
    func remove(_ kinds: [ThrottleKind], account: String?, address: String?) async throws -> Int
}
