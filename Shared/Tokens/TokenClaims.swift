import JWTKit

/// The claims of Podium's session and refresh tokens (JWT, HS256).
public struct TokenClaims: JWTPayload, Equatable {
    /// The player id.
    public var sub: SubjectClaim
    /// The session id.
    public var sid: String
    /// `session` or `refresh`: a token of one kind is never accepted as the other.
    public var typ: String
    /// This token's own id (refresh tokens rotate by id).
    public var jti: IDClaim
    /// Always `podium`.
    public var iss: IssuerClaim
    /// Issued at and expiry, seconds since the epoch (JWT convention).
    public var iat: IssuedAtClaim
    public var exp: ExpirationClaim

    public static let issuer = "podium"

    /// Structural checks only; expiry is checked against Podium's injected clock by ``SessionTokens``.
    public func verify(using algorithm: some JWTAlgorithm) async throws {
        guard iss.value == Self.issuer else {
            throw JWTError.claimVerificationFailure(failedClaim: iss, reason: "issuer")
        }
    }

    public var playerId: String { sub.value }
    public var tokenId: String { jti.value }
    /// Expiry in ms since the epoch.
    public var expiresAtMilliseconds: Int64 { Int64((exp.value.timeIntervalSince1970 * 1000).rounded()) }
}

/// The two kinds of token.
public enum TokenKind: String, Sendable {
    case session
    case refresh
}
