/// Podium's stable, machine-readable error code (docs/PROTOCOL.md section 13): switch on it,
/// never on a message or an HTTP status.
///
/// Codes never change meaning, and new ones may be added: a code this version does not know is
/// kept with its raw value (`PodiumErrorCode(rawValue: "some_new_code")`), so compare with the
/// static constants and treat anything else as a generic failure. ``network``, ``timeout`` and
/// ``invalidReply`` are the client's own: the request got no answer, or one it could not read.
public struct PodiumErrorCode: RawRepresentable, Sendable, Hashable, Codable, CustomStringConvertible,
    ExpressibleByStringLiteral
{
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public init(stringLiteral value: String) { self.rawValue = value }
    public var description: String { rawValue }

    public init(from decoder: any Decoder) throws {
        rawValue = try decoder.singleValueContainer().decode(String.self)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    // MARK: The client's own

    /// The server could not be reached, or the connection dropped before an answer. The request
    /// may or may not have been applied; it is resent with the same idempotency key.
    public static let network: PodiumErrorCode = "network"
    /// No answer within the configured timeout; resent like ``network``.
    public static let timeout: PodiumErrorCode = "timeout"
    /// An answer the client could not read (not JSON, or not the documented shape).
    public static let invalidReply: PodiumErrorCode = "invalid_reply"

    // MARK: The server's (docs/PROTOCOL.md section 13)

    public static let malformedJSON: PodiumErrorCode = "malformed_json"
    public static let invalidShape: PodiumErrorCode = "invalid_shape"
    public static let missingField: PodiumErrorCode = "missing_field"
    public static let invalidField: PodiumErrorCode = "invalid_field"
    public static let unknownType: PodiumErrorCode = "unknown_type"
    public static let unsupportedVersion: PodiumErrorCode = "unsupported_version"
    public static let messageTooLarge: PodiumErrorCode = "message_too_large"
    public static let headerTooLarge: PodiumErrorCode = "header_too_large"
    public static let requestTimeout: PodiumErrorCode = "request_timeout"
    public static let duplicateRequestID: PodiumErrorCode = "duplicate_request_id"
    public static let serviceUnavailable: PodiumErrorCode = "service_unavailable"
    public static let serviceTimeout: PodiumErrorCode = "service_timeout"
    public static let overloaded: PodiumErrorCode = "overloaded"
    public static let unauthenticated: PodiumErrorCode = "unauthenticated"
    public static let invalidToken: PodiumErrorCode = "invalid_token"
    public static let tokenExpired: PodiumErrorCode = "token_expired"
    public static let sessionRevoked: PodiumErrorCode = "session_revoked"
    public static let forbidden: PodiumErrorCode = "forbidden"
    public static let playerBanned: PodiumErrorCode = "player_banned"
    public static let accountDeleted: PodiumErrorCode = "account_deleted"
    public static let invalidCredentials: PodiumErrorCode = "invalid_credentials"
    public static let rateLimited: PodiumErrorCode = "rate_limited"
    public static let invalidUsername: PodiumErrorCode = "invalid_username"
    public static let invalidPassword: PodiumErrorCode = "invalid_password"
    public static let usernameTaken: PodiumErrorCode = "username_taken"
    public static let unknownPlayer: PodiumErrorCode = "unknown_player"
    public static let conflict: PodiumErrorCode = "conflict"
    public static let unknownGame: PodiumErrorCode = "unknown_game"
    public static let unknownBoard: PodiumErrorCode = "unknown_board"
    public static let scoreOutOfBounds: PodiumErrorCode = "score_out_of_bounds"
    public static let unknownAchievement: PodiumErrorCode = "unknown_achievement"
    public static let unknownChallenge: PodiumErrorCode = "unknown_challenge"
    public static let unknownInvite: PodiumErrorCode = "unknown_invite"
    public static let inviteExpired: PodiumErrorCode = "invite_expired"
    public static let inviteRevoked: PodiumErrorCode = "invite_revoked"
    public static let confirmationRequired: PodiumErrorCode = "confirmation_required"
    public static let storageUnavailable: PodiumErrorCode = "storage_unavailable"
    public static let idReused: PodiumErrorCode = "id_reused"
    public static let logPruned: PodiumErrorCode = "log_pruned"
    public static let rebuilding: PodiumErrorCode = "rebuilding"
    public static let unknownRoute: PodiumErrorCode = "unknown_route"
    public static let unknownOperator: PodiumErrorCode = "unknown_operator"
    public static let internalError: PodiumErrorCode = "internal_error"
}
