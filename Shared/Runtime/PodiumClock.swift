/// The time source of everything time-based in Podium (timestamps, timeouts, heartbeats),
/// injected so that tests can move time instead of sleeping.
public protocol PodiumClock: Sendable {
    /// Now, in milliseconds since the Unix epoch (UTC): for timestamps, expiries and periods.
    var nowMilliseconds: Int64 { get }
    /// Milliseconds on a clock that only moves forward at a steady rate (not wall time): for
    /// timeouts and heartbeats, which must not fire because the wall clock jumped.
    var monotonicMilliseconds: Int64 { get }
    /// Suspends the calling task for a duration of this clock's time.
    func sleep(for duration: Duration) async throws
}

/// The real clock: wall time for timestamps, the continuous clock for sleeping.
public struct SystemClock: PodiumClock {
    public init() {}

    public var nowMilliseconds: Int64 {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return Int64(spec.tv_sec) * 1000 + Int64(spec.tv_nsec) / 1_000_000
    }

    public var monotonicMilliseconds: Int64 {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return Int64(spec.tv_sec) * 1000 + Int64(spec.tv_nsec) / 1_000_000
    }

    public func sleep(for duration: Duration) async throws {
        try await ContinuousClock().sleep(for: duration)
    }
}

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension Duration {
    /// The duration in whole milliseconds (rounded down).
    public var milliseconds: Int64 {
        components.seconds * 1000 + components.attoseconds / 1_000_000_000_000_000
    }
}
