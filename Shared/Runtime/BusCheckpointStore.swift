/// What a service remembers about the bus: per publisher, the last sequence it applied.
///
/// Kept behind a protocol so that PostgreSQL can back it later; SQLite is the default.
public protocol BusCheckpointStore: Sendable {
    /// A human-readable location, such as `sqlite:/data/leaderboard.sqlite`.
    var location: String { get }
    /// The last sequence applied from a publisher, or nil if none.
    func lastApplied(publisher: String) async throws -> UInt64?
    /// Records that a publisher's message was applied.
    func recordApplied(publisher: String, sequence: UInt64, messageID: String, appliedAt: Int64) async throws
    /// How many messages have been applied in total, across restarts.
    func appliedCount() async throws -> UInt64
}
