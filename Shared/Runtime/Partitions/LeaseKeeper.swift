import Logging
import Metrics

/// Keeps one service instance's leases (``LeaseStore``): a round at start, then every third of
/// the lease time. A round that fails leaves ownership as it was until the lease would have
/// expired; then the instance stops serving (whoever takes over is fenced from its writes anyway).
final class LeaseKeeper: Sendable {
    let store: any LeaseStore
    let rules: PartitionLeases
    let instance: String
    let ownership: Ownership
    private let clock: any PodiumClock
    private let logger: Logger
    private let lastRound = Locked<Int64?>(nil)
    private let owned: Gauge

    init(
        store: any LeaseStore, rules: PartitionLeases, instance: String, ownership: Ownership, clock: any PodiumClock,
        logger: Logger
    ) {
        self.store = store
        self.rules = rules
        self.instance = instance
        self.ownership = ownership
        self.clock = clock
        self.logger = logger
        owned = Gauge(label: MetricNames.partitionsOwned, dimensions: [("service", store.service)])
    }

    /// One round: what this instance gained and lost.
    func round() async -> (gained: [Int], lost: [Int]) {
        do {
            let leases = try await store.round(instance: instance, rules: rules, now: clock.nowMilliseconds)
            lastRound.withLock { $0 = clock.monotonicMilliseconds }
            defer { owned.record(ownership.partitions?.count ?? 0) }
            return ownership.update(leases)
        } catch {
            let since = lastRound.value.map { clock.monotonicMilliseconds - $0 }
            logger.warning(
                "lease round failed", metadata: ["error": "\(error)", "since.ms": "\(since.map(String.init) ?? "-")"])
            if let since, since >= rules.duration, ownership.holdsLeases {
                defer { owned.record(0) }
                return ownership.update([])
            }
            return ([], [])
        }
    }

    /// Rounds until cancelled; `changed` hears every gain or loss.
    func run(changed: @Sendable (_ gained: [Int], _ lost: [Int]) async -> Void) async {
        while !Task.isCancelled {
            do {
                try await clock.sleep(for: .milliseconds(max(100, rules.duration / 3)))
            } catch { return }
            let (gained, lost) = await round()
            if !gained.isEmpty || !lost.isEmpty { await changed(gained, lost) }
        }
    }

    /// Lets the leases go (clean shutdown).
    func leave() async {
        _ = ownership.update([])
        owned.record(0)
        do {
            try await store.leave(instance: instance)
            logger.info("leases released")
        } catch {
            logger.warning("leases not released; they expire by themselves", metadata: ["error": "\(error)"])
        }
    }
}
