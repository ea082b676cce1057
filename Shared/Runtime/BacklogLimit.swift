import PodiumMessages

/// How far a write queue (group commit) may fall behind its database before new writes are
/// refused with `overloaded` and a retry hint, instead of waiting without bound: a slow database
/// is then neither an outage (writes that fit go on) nor a pile-up (the queue, its memory and
/// its wait stay bounded).
///
/// The wait a new write would have is estimated from the queue: the full batches ahead of it
/// times the last batch's duration. A write is refused when that estimate is over
/// ``maximumWaitMilliseconds`` or when ``maximumWaiting`` writes are already queued; with less
/// than one batch queued it is never refused.
public struct BacklogLimit: Sendable, Equatable {
    /// The most writes queued.
    public var maximumWaiting: Int
    /// The longest estimated wait, in milliseconds.
    public var maximumWaitMilliseconds: Int64

    public init(maximumWaiting: Int, maximumWaitMilliseconds: Int64) {
        self.maximumWaiting = maximumWaiting
        self.maximumWaitMilliseconds = maximumWaitMilliseconds
    }

    /// The refusal for a new write, or nil when it may queue: `waiting` writes are queued,
    /// batches take up to `batchSize`, and the last one took `lastBatchMilliseconds`.
    public func refusal(waiting: Int, batchSize: Int, lastBatchMilliseconds: Int64) -> ErrorReply? {
        // Only full batches count as "ahead": with less than a batch queued (an idle queue
        // included) a write always queues, so a long last batch (an outage) cannot refuse every
        // write for good: nothing would be written, and the last duration never renewed.
        let batchesAhead = Int64(waiting / max(1, batchSize))
        let estimate = batchesAhead * max(0, lastBatchMilliseconds)
        guard waiting >= maximumWaiting || estimate > maximumWaitMilliseconds else { return nil }
        let retryAfter = min(5_000, max(50, estimate))
        return ErrorReply(
            code: .overloaded,
            message:
                "the database is behind: \(waiting) writes are waiting (about \(estimate) ms); nothing was written, retry after \(retryAfter) ms with the same id",
            retryAfterMilliseconds: retryAfter)
    }
}
