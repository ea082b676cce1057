import Metrics
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
            code: .storageUnavailable,
            message: "the database is unavailable; nothing was stored, retry with the same id",
            retryAfterMilliseconds: 1000)
    }
}

/// A store in a database server rather than in files: it can tell how much space its tables
/// take, for `podium_database_size_bytes` (SQLite stores are measured by their files instead).
public protocol StorageSize: Sendable {
    /// The name the metric gives the store (its schema).
    var storageName: String { get }
    /// Bytes its tables and indexes take.
    func storageBytes() async throws -> Int
}

extension StorageSize {
    /// Records the store's size in `podium_database_size_bytes`; an unreachable database records nothing.
    public func recordSize() async {
        guard let bytes = try? await storageBytes() else { return }
        Gauge(label: MetricNames.databaseSize, dimensions: [("database", storageName)]).record(bytes)
    }
}
