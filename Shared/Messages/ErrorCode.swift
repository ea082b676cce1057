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

    public init(code: ErrorCode, message: String, field: String? = nil) {
        self.code = code
        self.message = message
        self.field = field
    }
}
