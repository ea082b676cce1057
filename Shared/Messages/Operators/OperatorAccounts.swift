/// What an operator account may do (docs/SECURITY.md 3.10): each role can do everything the one
/// before it can.
///
/// - `viewer`: reads (pages, lists, the audit log), no change and no player's export.
/// - `moderator`: the viewer's reads, and acting on players: bans, sessions, lockouts, scores,
///   ending challenges, notices, exports.
/// - `administrator`: everything, deleting accounts, definitions, resets and operators included.
public enum OperatorRole: String, Codable, Sendable, CaseIterable, Comparable {
    case viewer, moderator, administrator

    public static func < (lhs: OperatorRole, rhs: OperatorRole) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }
}

/// An operator account as operators see it (never its password or second factor's secret).
public struct OperatorAccount: Codable, Sendable, Equatable {
    /// 3-32 characters: lower-case letters, digits, `.`, `_` and `-`.
    public var name: String
    public var role: OperatorRole
    /// Whether logging in needs a code from an authenticator app (TOTP, RFC 6238).
    public var totp: Bool
    public var createdAt: Int64
    public var lastLoginAt: Int64?

    public init(name: String, role: OperatorRole, totp: Bool, createdAt: Int64, lastLoginAt: Int64?) {
        self.name = name
        self.role = role
        self.totp = totp
        self.createdAt = createdAt
        self.lastLoginAt = lastLoginAt
    }
}

/// `admin.operators.create`: a new operator account.
public struct OperatorCreation: Codable, Sendable, Equatable {
    public var name: String
    /// 12-256 characters.
    public var password: String
    public var role: OperatorRole

    public init(name: String, password: String, role: OperatorRole) {
        self.name = name
        self.password = password
        self.role = role
    }
}

/// `admin.operators.update`: a new password and/or role for an operator.
public struct OperatorUpdate: Codable, Sendable, Equatable {
    public var name: String
    public var password: String?
    public var role: OperatorRole?

    public init(name: String, password: String? = nil, role: OperatorRole? = nil) {
        self.name = name
        self.password = password
        self.role = role
    }
}

/// An operator, by name (`admin.operators.remove`, `admin.operators.totp-begin`, `…-remove`).
public struct OperatorTarget: Codable, Sendable, Equatable {
    public var name: String
    public init(name: String) { self.name = name }
}

/// The reply to `admin.operators.list`.
public struct OperatorList: Codable, Sendable, Equatable {
    public var operators: [OperatorAccount]
    public init(operators: [OperatorAccount]) { self.operators = operators }
}

/// The reply to `admin.operators.remove`.
public struct OperatorRemoval: Codable, Sendable, Equatable {
    public var name: String
    public var removed: Bool
    public init(name: String, removed: Bool) {
        self.name = name
        self.removed = removed
    }
}

/// The reply to `admin.operators.totp-begin`: the secret to put in the operator's authenticator
/// app (as the `otpauth://` URI, or typed in base32). It counts once confirmed with a code.
public struct TOTPEnrollment: Codable, Sendable, Equatable {
    public var name: String
    /// Base32 (RFC 4648), 32 characters: 160 random bits.
    public var secret: String
    /// `otpauth://totp/Podium:<name>?secret=…&issuer=Podium&algorithm=SHA1&digits=6&period=30`.
    public var uri: String

    public init(name: String, secret: String, uri: String) {
        self.name = name
        self.secret = secret
        self.uri = uri
    }
}

/// `admin.operators.totp-confirm`: a code from the authenticator, to make the pending secret count.
public struct TOTPConfirmation: Codable, Sendable, Equatable {
    public var name: String
    public var code: String
    public init(name: String, code: String) {
        self.name = name
        self.code = code
    }
}
