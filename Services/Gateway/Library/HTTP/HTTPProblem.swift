import Foundation
import PodiumMessages

/// An error reply as HTTP: a status that fits Podium's stable error code, and an RFC 9457
/// `application/problem+json` body that carries the code.
///
/// Pure: tested without a server. The body's members: `type` (`urn:podium:error:<code>`),
/// `title` (the code), `status`, `detail` (the message), `code`, and when known `field`,
/// `retryAfterMilliseconds` and `requestId`.
struct HTTPProblem: Sendable, Equatable {
    let status: Int
    let error: ErrorReply
    let requestID: String?
    /// Whether the request carried a credential (for `WWW-Authenticate`).
    let credentialSent: Bool

    init(_ error: ErrorReply, requestID: String?, credentialSent: Bool = false) {
        self.status = Self.status(for: error.code)
        self.error = error
        self.requestID = requestID
        self.credentialSent = credentialSent
    }

    /// RFC 6750 3.1: the scheme on every 401, and `error="invalid_token"` when a token was
    /// refused (a session or refresh token), or a key sent in a header was wrong; not for a
    /// missing credential or a wrong username and password.
    var wwwAuthenticate: String? {
        guard status == 401 else { return nil }
        let refused: Bool
        switch error.code {
        case .invalidToken, .tokenExpired, .sessionRevoked: refused = true
        case .unauthenticated: refused = false
        // A wrong password in the payload (deleting an account) is not a refused token.
        case .invalidCredentials where error.field?.hasPrefix("payload.") == true: refused = false
        default: refused = credentialSent
        }
        return refused ? "Bearer realm=\"podium\", error=\"invalid_token\"" : "Bearer realm=\"podium\""
    }

    /// Whole seconds for a `Retry-After` header: the error's own wait rounded up, or one second
    /// for the codes that mean "try again shortly".
    var retryAfterSeconds: Int64? {
        if let milliseconds = error.retryAfterMilliseconds { return max(1, (milliseconds + 999) / 1000) }
        switch error.code {
        case .serviceUnavailable, .overloaded, .storageUnavailable, .rebuilding: return 1
        default: return nil
        }
    }

    var body: JSONValue {
        var members: [String: JSONValue] = [
            "type": .string("urn:podium:error:\(error.code.rawValue)"),
            "title": .string(error.code.rawValue),
            "status": .integer(Int64(status)),
            "detail": .string(error.message),
            "code": .string(error.code.rawValue),
        ]
        if let field = error.field { members["field"] = .string(field) }
        if let wait = error.retryAfterMilliseconds { members["retryAfterMilliseconds"] = .integer(wait) }
        if let requestID { members["requestId"] = .string(requestID) }
        return .object(members)
    }

    /// The HTTP status of each error code; an unknown (newer) code is a 500.
    static func status(for code: ErrorCode) -> Int {
        switch code {
        case .malformedJSON, .invalidShape, .missingField, .invalidField, .unsupportedVersion, .wrongFrameCount,
            .invalidUsername, .invalidPassword, .scoreOutOfBounds, .confirmationRequired:
            return 400
        case .unauthenticated, .invalidToken, .tokenExpired, .sessionRevoked, .invalidCredentials:
            return 401
        case .forbidden, .playerBanned:
            return 403
        case .inviteExpired, .inviteRevoked, .accountDeleted: return 410
        case .unknownType, .unknownRoute, .unknownPlayer, .unknownGame, .unknownBoard, .unknownAchievement,
            .unknownChallenge, .unknownInvite, .unknownOperator:
            return 404
        case .conflict, .usernameTaken, .idReused, .duplicateRequestID, .logPruned:
            return 409
        case .messageTooLarge:
            return 413
        case .headerTooLarge:
            return 431
        case .requestTimeout:
            return 408
        case .rateLimited:
            return 429
        case .serviceUnavailable, .overloaded, .storageUnavailable, .rebuilding:
            return 503
        case .serviceTimeout:
            return 504
        default:
            return 500
        }
    }
}
