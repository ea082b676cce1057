import PodiumRuntime
import Synchronization

/// A clock for tests that can jump forward: wall time plus an offset the test controls.
/// Sleeping stays real, so heartbeats and timeouts keep working while expiries can be reached at once.
public final class OffsetClock: PodiumClock {
    private let offset = Mutex<Int64>(0)
    private let base = SystemClock()

    public init() {}

    public var nowMilliseconds: Int64 { base.nowMilliseconds + offset.withLock { $0 } }

    /// Real monotonic time: jumping the wall clock must not time out heartbeats.
    public var monotonicMilliseconds: Int64 { base.monotonicMilliseconds }

    public func sleep(for duration: Duration) async throws {
        try await base.sleep(for: duration)
    }

    /// Moves time forward.
    public func advance(by duration: Duration) {
        let milliseconds = duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000
        offset.withLock { $0 += milliseconds }
    }
}
