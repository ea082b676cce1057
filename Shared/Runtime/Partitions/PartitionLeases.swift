/// One partition's lease, as the lease table holds it.
///
/// Several instances of a service share its state by partitions (boards, players); each
/// partition has at most one owner at a time, the holder of its lease. `epoch` is the fencing
/// token: it grows by one each time the partition changes hands, and every write of the owner
/// carries the epoch it holds, so a write of an instance that lost the lease (it paused, its
/// link was cut, its clock ran slow) no longer matches and cannot commit.
public struct PartitionLease: Sendable, Hashable {
    public var partition: Int
    /// The instance holding it; nil when nobody ever did or it was released.
    public var owner: String?
    public var epoch: UInt64
    /// Milliseconds (the clock of the table); the lease is free from then on.
    public var expiresAt: Int64

    public init(partition: Int, owner: String? = nil, epoch: UInt64 = 0, expiresAt: Int64 = 0) {
        self.partition = partition
        self.owner = owner
        self.epoch = epoch
        self.expiresAt = expiresAt
    }

    /// Whether `instance` holds it at `now`.
    public func isHeld(by instance: String, at now: Int64) -> Bool { owner == instance && now < expiresAt }

    /// Whether anyone may take it at `now`: never held, released, or expired.
    public func isFree(at now: Int64) -> Bool { owner == nil || now >= expiresAt }
}

/// What one instance does with the leases in one round (renewed every third of the lease time).
public struct LeaseRound: Sendable, Equatable {
    /// Held, and kept: extend them.
    public var renew: [Int] = []
    /// Free, and this instance is short of its share: take them.
    public var claim: [Int] = []
    /// Held beyond this instance's share while others are short: let them go.
    public var release: [Int] = []

    public init(renew: [Int] = [], claim: [Int] = [], release: [Int] = []) {
        self.renew = renew
        self.claim = claim
        self.release = release
    }
}

/// The rules of partition ownership, as pure values (the lease store applies them in one
/// transaction per round; the tests need no database).
///
/// * Every live instance's share is the partitions divided evenly; when it does not divide, the
///   instances holding the most take one more (then the first by id), so that nothing moves
///   that need not (one partition stays with its holder when another instance joins).
/// * An instance renews what it holds, claims free partitions up to its share, and releases
///   what it holds beyond its share (the highest numbers first) so that a joining instance gets
///   its share without waiting for leases to expire.
/// * A partition held by an instance that is no longer live is taken only once its lease has
///   expired: until then that instance may still be committing (fencing makes sure it cannot
///   after the lease changed hands, but its in-memory view would be served stale).
public struct PartitionLeases: Sendable {
    public let partitions: Int
    /// How long a claim or renewal holds, ms.
    public let duration: Int64

    public init(partitions: Int, duration: Int64) {
        precondition(partitions > 0 && duration > 0)
        self.partitions = partitions
        self.duration = duration
    }

    /// The partitions `instance` should own when `live` are alive and hold `held` partitions each.
    public func share(of instance: String, among live: Set<String>, held: [String: Int] = [:]) -> Int {
        let ordered = live.union([instance]).sorted { (held[$0] ?? 0, $1) > (held[$1] ?? 0, $0) }
        guard let index = ordered.firstIndex(of: instance) else { return 0 }
        let base = partitions / ordered.count
        return base + (index < partitions % ordered.count ? 1 : 0)
    }

    /// One round for `instance`, given the table as read at `now`. `leases` may lack partitions
    /// never claimed; they count as free.
    public func round(for instance: String, leases: [PartitionLease], live: Set<String>, now: Int64) -> LeaseRound {
        let byPartition = Dictionary(leases.map { ($0.partition, $0) }, uniquingKeysWith: { first, _ in first })
        let table = (0..<partitions).map { byPartition[$0] ?? PartitionLease(partition: $0) }
        var holding: [String: Int] = [:]
        for lease in table where !lease.isFree(at: now) {
            if let owner = lease.owner { holding[owner, default: 0] += 1 }
        }
        let share = share(of: instance, among: live, held: holding)
        let held = table.filter { $0.isHeld(by: instance, at: now) }.map(\.partition)
        var result = LeaseRound()
        if held.count > share {
            // Release only what someone else is waiting for: the excess beyond the share.
            result.release = Array(held.sorted().suffix(held.count - share))
            result.renew = Array(held.sorted().prefix(share))
        } else {
            result.renew = held.sorted()
            let free = table.filter { $0.isFree(at: now) }.map(\.partition).sorted()
            result.claim = Array(free.prefix(share - held.count))
        }
        return result
    }

    /// The lease after `instance` claims or renews it at `now`; nil when it is not free and not
    /// `instance`'s. A change of owner starts a new epoch. An owner that takes its own expired
    /// lease again (nobody took it meanwhile: a pause, a late round, a clock stepped forward)
    /// keeps the epoch: nobody else wrote in between, so its writes in flight may still commit.
    /// Had another instance owned it in between, the owner changed twice and the epoch with it.
    public func taken(_ lease: PartitionLease, by instance: String, now: Int64) -> PartitionLease? {
        guard lease.isFree(at: now) || lease.isHeld(by: instance, at: now) else { return nil }
        var next = lease
        if lease.owner != instance { next.epoch = lease.epoch + 1 }
        next.owner = instance
        next.expiresAt = now + duration
        return next
    }

    /// The lease after its owner lets it go: free at once, the epoch unchanged (the next owner
    /// starts a new one).
    public func released(_ lease: PartitionLease, by instance: String) -> PartitionLease? {
        guard lease.owner == instance else { return nil }
        var next = lease
        next.owner = nil
        next.expiresAt = 0
        return next
    }

    /// Whether a write by `instance` fenced with `epoch` may commit against the lease as it is
    /// now: the same owner, the same epoch, not expired.
    public func admits(_ lease: PartitionLease, instance: String, epoch: UInt64, now: Int64) -> Bool {
        lease.isHeld(by: instance, at: now) && lease.epoch == epoch
    }
}
