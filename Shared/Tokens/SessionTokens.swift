import Crypto
import Foundation
import JWTKit
import PodiumMessages
import PodiumRuntime

/// Issues and verifies Podium's tokens: HS256 JWTs under one key from configuration.
///
/// Verification accepts exactly one algorithm: the header must say `HS256`, so `alg: none`,
/// RS/ES/EdDSA headers and any other swap are refused before the signature is looked at. Expiry
/// is required and checked against the caller's clock.
public struct SessionTokens: Sendable {
    private let keys: JWTKeyCollection

    /// Shortest accepted key, in bytes.
    public static let minimumKeyLength = 32
    /// The key development mode uses when none is configured. Refused outside development mode.
    public static let developmentKey = "podium-development-token-key--not-for-production"

    /// - Parameter key: the HMAC key, at least 32 bytes.
    public init(key: [UInt8]) async {
        keys = JWTKeyCollection()
        await keys.add(hmac: HMACKey(key: SymmetricKey(data: key)), digestAlgorithm: .sha256)
    }

    /// Signs a token. JWT times are whole seconds: `expiresAt` is rounded down to one (see
    /// ``wholeSeconds(_:)`` to report the same expiry).
    public func issue(
        _ kind: TokenKind, playerId: String, sessionId: String, tokenId: String, issuedAt: Int64, expiresAt: Int64
    ) async throws -> String {
        let claims = TokenClaims(
            sub: SubjectClaim(value: playerId), sid: sessionId, typ: kind.rawValue, jti: IDClaim(value: tokenId),
            iss: IssuerClaim(value: TokenClaims.issuer),
            iat: IssuedAtClaim(value: Date(timeIntervalSince1970: Double(issuedAt / 1000))),
            exp: ExpirationClaim(value: Date(timeIntervalSince1970: Double(expiresAt / 1000))))
        return try await keys.sign(claims)
    }

    /// The configured key, the development key in development mode, or a refusal naming
    /// `PODIUM_AUTH_TOKEN_KEY` (a missing, short or development key outside development mode).
    public static func configuredKey(_ configured: String?, developmentMode: Bool) throws -> [UInt8] {
        if let configured, configured != developmentKey {
            guard configured.utf8.count >= minimumKeyLength else {
                throw ConfigurationProblem("PODIUM_AUTH_TOKEN_KEY must be at least \(minimumKeyLength) bytes")
            }
            return Array(configured.utf8)
        }
        guard developmentMode else {
            throw ConfigurationProblem(
                "PODIUM_AUTH_TOKEN_KEY must be set to at least \(minimumKeyLength) random bytes, the same for podium-auth "
                    + "and podium-gateway (the development key is accepted only with PODIUM_DEVELOPMENT=true)")
        }
        return Array(developmentKey.utf8)
    }

    /// A time in ms rounded down to a whole second, as a token carries it.
    public static func wholeSeconds(_ milliseconds: Int64) -> Int64 { milliseconds / 1000 * 1000 }

    /// Verifies a token of the expected kind at time `now` (ms since the epoch).
    public func verify(_ token: String, as kind: TokenKind, now: Int64) async throws(ErrorReply) -> TokenClaims {
        guard token.utf8.count <= 4096 else { throw Self.invalid("token is too long") }
        guard Self.headerAlgorithm(of: token) == "HS256" else {
            throw Self.invalid("token algorithm is not accepted (only HS256)")
        }
        let claims: TokenClaims
        do {
            claims = try await keys.verify(token, as: TokenClaims.self)
        } catch {
            throw Self.invalid("token signature or contents are not valid")
        }
        guard claims.typ == kind.rawValue else {
            throw Self.invalid("a \(claims.typ) token cannot be used as a \(kind.rawValue) token")
        }
        guard claims.expiresAtMilliseconds > now else {
            throw ErrorReply(code: .tokenExpired, message: "the \(kind.rawValue) token has expired", field: "token")
        }
        return claims
    }

    /// The `alg` of a compact JWT's header, or nil if the header cannot be read.
    static func headerAlgorithm(of token: String) -> String? {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let header = Data(base64URL: String(parts[0])),
            let object = try? JSONSerialization.jsonObject(with: header) as? [String: Any]
        else { return nil }
        return object["alg"] as? String
    }

    private static func invalid(_ message: String) -> ErrorReply {
        ErrorReply(code: .invalidToken, message: message, field: "token")
    }
}

extension Data {
    /// Decodes unpadded base64url.
    init?(base64URL text: String) {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64.append("=") }
        self.init(base64Encoded: base64)
    }
}
