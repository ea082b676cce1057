/// Exponential backoff with "equal jitter": the n-th wait is between half and all of
/// `min(maximum, initial × 2^(n-1))`, so that clients that failed together do not come back together.
///
/// A pure value: the jitter is passed in (a number in 0...1), so the delays are tested without sleeping.
public struct Backoff: Sendable, Equatable {
    /// The wait after the first failure (before jitter).
    public var initial: Duration
    /// No wait is longer than this.
    public var maximum: Duration

    public init(initial: Duration, maximum: Duration) {
        self.initial = initial
        self.maximum = maximum
    }

    /// The wait after `failures` failures in a row (1 or more), with `jitter` in 0...1.
    public func delay(afterFailures failures: Int, jitter: Double) -> Duration {
        let ceiling = self.ceiling(afterFailures: failures)
        let jitter = min(max(jitter, 0), 1)
        return ceiling / 2 + (ceiling / 2) * jitter
    }

    /// The longest wait after `failures` failures.
    public func ceiling(afterFailures failures: Int) -> Duration {
        var wait = initial
        for _ in 1..<max(failures, 1) {
            wait = wait * 2
            if wait >= maximum { return maximum }
        }
        return min(wait, maximum)
    }
}
