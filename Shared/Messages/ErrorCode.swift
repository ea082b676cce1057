/// A stable, machine-readable error code, sent as a lower_snake_case string.
///
/// Codes never change meaning; new ones may be added. docs/PROTOCOL.md lists them all.
public struct ErrorCode: RawRepresentable, Codable, Sendable, Hashable, CustomStringConvertible {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public var description: String { rawValue }

    /// The request is not UTF-8 JSON.
    public static let malformedJSON = ErrorCode(rawValue: "malformed_json")
    /// The JSON is not an object, or a field has the wrong JSON type.
    public static let invalidShape = ErrorCode(rawValue: "invalid_shape")
    /// A required field is absent or null.
    public static let missingField = ErrorCode(rawValue: "missing_field")
    /// A field is present with the right type but an unacceptable value.
    public static let invalidField = ErrorCode(rawValue: "invalid_field")
    /// No service handles this message type.
    public static let unknownType = ErrorCode(rawValue: "unknown_type")
    /// The envelope's schema version is newer than this server understands.
    public static let unsupportedVersion = ErrorCode(rawValue: "unsupported_version")
    /// The message is larger than the configured maximum.
    public static let messageTooLarge = ErrorCode(rawValue: "message_too_large")
    /// HTTP only: the request head is too large or has too many fields (431; the connection closes).
    public static let headerTooLarge = ErrorCode(rawValue: "header_too_large")
    /// HTTP only: the request head did not complete in time (408; the connection closes).
    public static let requestTimeout = ErrorCode(rawValue: "request_timeout")
    /// The ZeroMQ message has a number of frames the endpoint does not accept.
    public static let wrongFrameCount = ErrorCode(rawValue: "wrong_frame_count")
    /// A request with the same id from the same connection is still in flight.
    public static let duplicateRequestID = ErrorCode(rawValue: "duplicate_request_id")
    /// The service that handles this type is not connected right now.
    public static let serviceUnavailable = ErrorCode(rawValue: "service_unavailable")
    /// The service did not answer in time; the request may or may not have taken effect.
    public static let serviceTimeout = ErrorCode(rawValue: "service_timeout")
    /// Too many requests are in flight; retry later.
    public static let overloaded = ErrorCode(rawValue: "overloaded")
    /// The request needs a credential (a session token, server key or admin key) and has none.
    public static let unauthenticated = ErrorCode(rawValue: "unauthenticated")
    /// The token is malformed, signed with another key or algorithm, tampered with, or of the wrong kind.
    public static let invalidToken = ErrorCode(rawValue: "invalid_token")
    /// The token's expiry has passed; refresh the session or log in again.
    public static let tokenExpired = ErrorCode(rawValue: "token_expired")
    /// The session was logged out or revoked.
    public static let sessionRevoked = ErrorCode(rawValue: "session_revoked")
    /// The credential is valid but does not allow this request (another player's data, a
    /// server-only action, an admin request).
    public static let forbidden = ErrorCode(rawValue: "forbidden")
    /// Wrong username or password (deliberately not saying which).
    public static let invalidCredentials = ErrorCode(rawValue: "invalid_credentials")
    /// Too many attempts; the error's `retryAfterMilliseconds` says when to try again.
    public static let rateLimited = ErrorCode(rawValue: "rate_limited")
    /// The username breaks the username rules.
    public static let invalidUsername = ErrorCode(rawValue: "invalid_username")
    /// The password breaks the password rules.
    public static let invalidPassword = ErrorCode(rawValue: "invalid_password")
    /// Another account already has this username (compared case-insensitively after normalization).
    public static let usernameTaken = ErrorCode(rawValue: "username_taken")
    /// No player has this id.
    public static let unknownPlayer = ErrorCode(rawValue: "unknown_player")
    /// The request conflicts with the current state (already friends, already linked, blocked…).
    public static let conflict = ErrorCode(rawValue: "conflict")
    /// The game has no configuration on this server.
    public static let unknownGame = ErrorCode(rawValue: "unknown_game")
    /// The game has no leaderboard with this id.
    public static let unknownBoard = ErrorCode(rawValue: "unknown_board")
    /// The score is outside the board's bounds (or would overflow).
    public static let scoreOutOfBounds = ErrorCode(rawValue: "score_out_of_bounds")
    /// The game has no achievement with this id.
    public static let unknownAchievement = ErrorCode(rawValue: "unknown_achievement")
    /// The player has no challenge with this id (or it is not theirs).
    public static let unknownChallenge = ErrorCode(rawValue: "unknown_challenge")
    /// No invite code like the one entered works (never made, or mistyped).
    public static let unknownInvite = ErrorCode(rawValue: "unknown_invite")
    /// The invite code's time is over.
    public static let inviteExpired = ErrorCode(rawValue: "invite_expired")
    /// The invite code's owner revoked it.
    public static let inviteRevoked = ErrorCode(rawValue: "invite_revoked")
    /// The player is banned by an operator (docs/PROTOCOL.md 22.1).
    public static let playerBanned = ErrorCode(rawValue: "player_banned")
    /// No operator account has this name.
    public static let unknownOperator = ErrorCode(rawValue: "unknown_operator")
    /// The player's account was deleted: nothing more is stored for them (docs/PROTOCOL.md 8.14).
    public static let accountDeleted = ErrorCode(rawValue: "account_deleted")
    /// A destructive request was not confirmed in the request.
    public static let confirmationRequired = ErrorCode(rawValue: "confirmation_required")
    /// The data could not be written to disk (full, read-only, failing): nothing was acknowledged
    /// or changed; retry later with the same request id.
    public static let storageUnavailable = ErrorCode(rawValue: "storage_unavailable")
    /// The request id was already used for a different request by the same player in the same
    /// game; ids of state-changing requests are idempotency keys (see docs/RELIABILITY.md).
    public static let idReused = ErrorCode(rawValue: "id_reused")
    /// The service is rebuilding its state from the log; retry after `retryAfterMilliseconds`.
    public static let rebuilding = ErrorCode(rawValue: "rebuilding")
    /// The request needs stream messages that retention has pruned (an achievement rebuild over
    /// a log whose oldest events are gone); nothing was changed.
    public static let logPruned = ErrorCode(rawValue: "log_pruned")
    /// HTTP only: no route has this method and path (docs/PROTOCOL.md section 20).
    public static let unknownRoute = ErrorCode(rawValue: "unknown_route")
    /// An unexpected failure on the server; the request had no effect.
    public static let internalError = ErrorCode(rawValue: "internal_error")
}

/// The payload of an `error` reply.
public struct ErrorReply: Codable, Sendable, Equatable, Error {
    /// The stable code.
    public var code: ErrorCode
    /// A sentence for humans; may change between versions.
    public var message: String
    /// The offending field, as a dotted path (`payload.name`), when one is to blame.
    public var field: String?
    /// For `rate_limited`: how long to wait before trying again.
    public var retryAfterMilliseconds: Int64?

    public init(code: ErrorCode, message: String, field: String? = nil, retryAfterMilliseconds: Int64? = nil) {
        self.code = code
        self.message = message
        self.field = field
        self.retryAfterMilliseconds = retryAfterMilliseconds
    }
}
