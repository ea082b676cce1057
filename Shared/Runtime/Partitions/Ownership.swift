import PodiumMessages

/// Where a service keeps the leases of its partitions (PostgreSQL; a service on SQLite files has
/// none: one instance, which owns everything).
public protocol LeaseStore: Sendable {
    /// The service whose data is leased.
    var service: String { get }
    /// One round for `instance` in one transaction: records it as live, reads the leases and the
    /// live instances, applies ``PartitionLeases/round(for:leases:live:now:)`` and writes the
    /// renewals, claims and releases. Returns the leases `instance` holds afterwards, and from
    /// then on fences the store's writes with them (a write whose lease changed hands fails).
    func round(instance: String, rules: PartitionLeases, now: Int64) async throws -> [PartitionLease]
    /// Lets every lease of `instance` go at once (a clean shutdown: the next owner need not
    /// wait for expiry) and stops its writes.
    func leave(instance: String) async throws
}

/// A write refused because this instance no longer holds the lease it was made under: another
/// instance owns the data now. Nothing was written; the client resends to the new owner.
public struct LeaseLost: Error, CustomStringConvertible {
    public let service: String
    public init(service: String) { self.service = service }
    public var description: String { "this \(service) instance no longer owns its data" }
    public var reply: ErrorReply {
        var reply = ErrorReply(
            code: .serviceUnavailable,
            message: "another \(service) instance has taken over; send the request again with the same id")
        reply.retryAfterMilliseconds = 500
        return reply
    }
}

/// What this instance owns right now: partition → fencing epoch, as its last lease round left it.
/// A service without leases (``isLeased`` false) owns everything, always.
///
/// Holding a lease and serving are two steps: a round that gains a partition marks that
/// partition's state in memory stale (``update(_:)``), and the instance serves it only once it
/// has loaded what the last owner left (``finishLoading(_:)``). Serving in between would answer
/// from the old state, and the load would then overwrite what was written meanwhile (an
/// acknowledged score missing from the standings until the next restart). The partitions it
/// already had go on serving while a gained one loads.
public final class Ownership: Sendable {
    public let isLeased: Bool
    private struct State {
        /// Partition → fencing epoch.
        var owned: [Int: UInt64] = [:]
        /// Gained partitions whose state in memory is not loaded yet.
        var loading: Set<Int> = []
    }
    private let state = Locked(State())

    public init(isLeased: Bool) { self.isLeased = isLeased }

    /// Whether this instance serves `partition`: it holds its lease (or needs none) and has loaded
    /// its state. Read on every request: no lock when not leased.
    public func serves(_ partition: Int) -> Bool {
        !isLeased || state.withLock { $0.owned[partition] != nil && !$0.loading.contains(partition) }
    }

    /// Whether this instance does the service's work that is not split by partition: it serves
    /// partition 0. Following the streams, relaying the outbox, retention and the periodic work of
    /// an unpartitioned service run there, once per deployment. With one partition (every service
    /// but the partitioned ones) this is "it owns the data".
    public var isOwner: Bool { serves(0) }

    /// Whether this instance holds a lease (or needs none), loaded or not.
    public var holdsLeases: Bool { !isLeased || !state.value.owned.isEmpty }

    /// The state in memory is loaded for `partitions`: it serves them from now on.
    public func finishLoading(_ partitions: [Int]) {
        state.withLock { $0.loading.subtract(partitions) }
    }

    /// The partitions held, for announcements and health (nil when not leased).
    public var partitions: [Int]? { isLeased ? state.value.owned.keys.sorted() : nil }

    /// The partitions held and served (loaded), each with the epoch its writes are fenced with.
    /// A service without leases serves its one partition, 0.
    public var served: [Int: UInt64] {
        guard isLeased else { return [0: 0] }
        return state.withLock { state in state.owned.filter { !state.loading.contains($0.key) } }
    }

    /// Takes the leases a round returned; says which partitions came and went. A partition held
    /// at epoch e and now at e + 1 is neither: this instance took it again after its own lease
    /// ran out (a late renewal), and nobody held it in between (their take would have counted
    /// the epoch up too), so what it keeps in memory is still the truth; only the fence changes.
    public func update(_ leases: [PartitionLease]) -> (gained: [Int], lost: [Int]) {
        state.withLock { state in
            let owned = state.owned
            let next = Dictionary(leases.map { ($0.partition, $0.epoch) }, uniquingKeysWith: { first, _ in first })
            let continued = Set(next.keys.filter { owned[$0].map { $0 + 1 } == next[$0] })
            let gained = next.filter { owned[$0.key] != $0.value && !continued.contains($0.key) }.keys.sorted()
            let lost = owned.keys.filter { next[$0] != owned[$0] && !continued.contains($0) }.sorted()
            state.owned = next
            state.loading.subtract(lost)
            state.loading.formUnion(gained)
            return (gained, lost)
        }
    }
}
