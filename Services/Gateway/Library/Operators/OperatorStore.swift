import PodiumMessages

/// A stored operator account.
public struct OperatorRecord: Sendable, Equatable {
    public var name: String
    /// scrypt (``PasswordHasher``'s stored form).
    public var passwordHash: String
    public var role: OperatorRole
    /// The confirmed TOTP secret (base32); nil: a password alone logs in.
    public var totpSecret: String?
    /// A secret begun but not yet confirmed with a code.
    public var pendingTOTPSecret: String?
    /// The last time step whose code logged in (a code is used once).
    public var lastTOTPStep: Int64?
    public var createdAt: Int64
    public var lastLoginAt: Int64?

    public init(
        name: String, passwordHash: String, role: OperatorRole, totpSecret: String? = nil,
        pendingTOTPSecret: String? = nil, lastTOTPStep: Int64? = nil, createdAt: Int64, lastLoginAt: Int64? = nil
    ) {
        self.name = name
        self.passwordHash = passwordHash
        self.role = role
        self.totpSecret = totpSecret
        self.pendingTOTPSecret = pendingTOTPSecret
        self.lastTOTPStep = lastTOTPStep
        self.createdAt = createdAt
        self.lastLoginAt = lastLoginAt
    }

    /// As operators see it.
    public var account: OperatorAccount {
        OperatorAccount(name: name, role: role, totp: totpSecret != nil, createdAt: createdAt, lastLoginAt: lastLoginAt)
    }
}

/// Where the gateway keeps operator accounts (beside its audit log; every gateway of a
/// deployment on PostgreSQL shares them).
public protocol OperatorStore: Sendable {
    /// Adds an account; false when the name is taken.
    func insert(_ record: OperatorRecord) async throws -> Bool
    func record(named name: String) async throws -> OperatorRecord?
    /// Every account, by name.
    func records() async throws -> [OperatorRecord]
    /// Replaces an account's stored fields; false when there is none by that name.
    func update(_ record: OperatorRecord) async throws -> Bool
    /// Removes an account; false when there was none.
    func remove(named name: String) async throws -> Bool
    /// Records a login with the code of `step`, only if no code of that step or a later one was
    /// used before (one statement: two logins with one code cannot both pass); false otherwise.
    func claimTOTPStep(name: String, step: Int64, at time: Int64) async throws -> Bool
}
