import PodiumMessages

/// The database cannot be reached (or stopped answering in time): nothing was stored, and the
/// client is told `storage_unavailable` with a time to retry after, never `internal_error`.
public struct StorageUnavailable: Error, CustomStringConvertible {
    public var cause: String

    public init(cause: String) { self.cause = cause }

    public var description: String { "storage unavailable: \(cause)" }

    /// What the client is told.
    public var reply: ErrorReply {
        ErrorReply(
            code: .storageUnavailable, message: "the database is unavailable; nothing was stored, retry with the same id",
            retryAfterMilliseconds: 1000)
    }
}
