import PodiumMessages
import PodiumRuntime
import Testing

/// Partition ownership as pure values: shares, rounds of claims, renewals and releases, expiry,
/// fencing epochs. The lease table is simulated by applying each round to a dictionary, as the
/// lease store does in one transaction.
@Suite("Partition leases")
struct PartitionLeasesTests {
    let rules = PartitionLeases(partitions: 16, duration: 3000)

    /// Applies one instance's round to the table at `now`, as the store would.
    func apply(_ instance: String, live: Set<String>, table: inout [Int: PartitionLease], now: Int64) {
        let round = rules.round(for: instance, leases: Array(table.values), live: live, now: now)
        for partition in round.renew + round.claim {
            let lease = table[partition] ?? PartitionLease(partition: partition)
            if let next = rules.taken(lease, by: instance, now: now) { table[partition] = next }
        }
        for partition in round.release {
            if let lease = table[partition], let next = rules.released(lease, by: instance) { table[partition] = next }
        }
    }

    func owners(_ table: [Int: PartitionLease], now: Int64) -> [String: Set<Int>] {
        var owners: [String: Set<Int>] = [:]
        for lease in table.values where !lease.isFree(at: now) {
            owners[lease.owner!, default: []].insert(lease.partition)
        }
        return owners
    }

    @Test("shares divide the partitions evenly, the first instances by id taking the remainder")
    func shares() {
        let live: Set = ["b", "a", "c"]
        #expect(["a", "b", "c"].map { rules.share(of: $0, among: live) } == [6, 5, 5])
        #expect(rules.share(of: "a", among: ["a"]) == 16)
        #expect(rules.share(of: "z", among: ["a"]) == 8, "an instance counts itself")
    }

    @Test(
        "one instance takes everything; a second joins and gets half without waiting for expiry; no partition has two owners"
    )
    func joining() {
        var table: [Int: PartitionLease] = [:]
        apply("a", live: ["a"], table: &table, now: 0)
        #expect(owners(table, now: 0)["a"]?.count == 16)
        // b joins: a releases its excess first, b claims what is free.
        apply("a", live: ["a", "b"], table: &table, now: 1000)
        apply("b", live: ["a", "b"], table: &table, now: 1000)
        let split = owners(table, now: 1000)
        #expect(split["a"]?.count == 8 && split["b"]?.count == 8)
        #expect(split["a"]!.isDisjoint(with: split["b"]!))
        #expect(split["a"]!.union(split["b"]!) == Set(0..<16))
        // A renewal keeps the epoch; the partitions that moved got a new one.
        let moved = split["b"]!.first!
        #expect(table[moved]?.epoch == 2)
        let stayed = split["a"]!.first!
        #expect(table[stayed]?.epoch == 1)
    }

    @Test(
        "a dead instance's partitions are taken only once its leases expired, with a new epoch; its old epoch no longer commits"
    )
    func takeover() throws {
        var table: [Int: PartitionLease] = [:]
        apply("a", live: ["a", "b"], table: &table, now: 0)
        apply("b", live: ["a", "b"], table: &table, now: 0)
        let ofA = owners(table, now: 0)["a"]!
        let partition = ofA.min()!
        let epochOfA = table[partition]!.epoch
        #expect(rules.admits(table[partition]!, instance: "a", epoch: epochOfA, now: 100))
        // a stops renewing (dead, or cut off). Before its leases expire, b may not take them.
        apply("b", live: ["b"], table: &table, now: 2000)
        #expect(owners(table, now: 2000)["a"] == ofA)
        // After expiry b takes everything, each moved partition on a new epoch.
        apply("b", live: ["b"], table: &table, now: 3000)
        #expect(owners(table, now: 3000)["b"] == Set(0..<16))
        #expect(table[partition]!.epoch == epochOfA + 1)
        // a comes back believing it still owns the partition: its writes are fenced off.
        #expect(!rules.admits(table[partition]!, instance: "a", epoch: epochOfA, now: 3001))
        #expect(rules.admits(table[partition]!, instance: "b", epoch: epochOfA + 1, now: 3001))
        #expect(!rules.admits(table[partition]!, instance: "b", epoch: epochOfA + 1, now: 3000 + 3000), "expired")
        #expect(rules.taken(table[partition]!, by: "a", now: 3001) == nil, "held by b")
    }

    @Test(
        "an instance whose lease expired and that takes it again, nobody else having taken it, keeps its epoch; after another owner, a new one"
    )
    func retakenAfterExpiry() throws {
        let first = try #require(rules.taken(PartitionLease(partition: 3), by: "a", now: 0))
        let renewed = try #require(rules.taken(first, by: "a", now: 1000))
        #expect(renewed.epoch == first.epoch, "a renewal keeps the epoch")
        // a paused past its lease (or its clock stepped forward); nobody else took the partition:
        // nobody else wrote, so a's writes in flight may commit.
        let retaken = try #require(rules.taken(renewed, by: "a", now: 4500))
        #expect(retaken.epoch == first.epoch)
        #expect(rules.admits(retaken, instance: "a", epoch: first.epoch, now: 4600))
        // b took it meanwhile, then let it lapse: a's writes from before are refused.
        let byB = try #require(rules.taken(renewed, by: "b", now: 4500))
        let backToA = try #require(rules.taken(byB, by: "a", now: 9000))
        #expect(backToA.epoch == first.epoch + 2)
        #expect(
            !rules.admits(backToA, instance: "a", epoch: first.epoch, now: 9100), "a write prepared before b owned it")
        #expect(rules.admits(backToA, instance: "a", epoch: backToA.epoch, now: 9100))
        let released = try #require(rules.released(retaken, by: "a"))
        #expect(released.isFree(at: 4600) && released.epoch == retaken.epoch)
        #expect(rules.released(retaken, by: "b") == nil, "only the owner releases")
    }

    @Test("three instances over rounds: every partition owned exactly once, shares 6/5/5")
    func threeInstances() {
        var table: [Int: PartitionLease] = [:]
        let live: Set = ["a", "b", "c"]
        for step in 0..<4 {
            for instance in ["c", "a", "b"] { apply(instance, live: live, table: &table, now: Int64(step) * 1000) }
        }
        let final = owners(table, now: 3000)
        #expect(final.mapValues(\.count) == ["a": 6, "b": 5, "c": 5])
        #expect(final.values.reduce(0) { $0 + $1.count } == 16)
    }

    @Test("partition of a key is stable and spreads keys over all partitions")
    func map() {
        let map = PartitionMap(partitions: 16)
        #expect(map.partition(of: "dash/dash.highscore") == map.partition(of: "dash/dash.highscore"))
        #expect(PartitionMap(partitions: 1).partition(of: "anything") == 0)
        let used = Set((0..<1000).map { map.partition(of: "player-\($0)") })
        #expect(used == Set(0..<16))
        // FNV-1a of the empty key is its offset basis: pinned, so that it never changes between releases.
        #expect(map.partition(of: "") == Int(UInt64(0xcbf2_9ce4_8422_2325) % 16))
    }

    @Test(
        "the remainder of an uneven split stays with the holders: one partition does not move when another instance joins"
    )
    func sticky() {
        let rules = PartitionLeases(partitions: 1, duration: 1000)
        let heldByB = [PartitionLease(partition: 0, owner: "b", epoch: 3, expiresAt: 5000)]
        #expect(rules.share(of: "a", among: ["a", "b"], held: ["b": 1]) == 0)
        #expect(rules.share(of: "b", among: ["a", "b"], held: ["b": 1]) == 1)
        #expect(
            rules.round(for: "b", leases: heldByB, live: ["a", "b"], now: 1000) == LeaseRound(renew: [0]), "b keeps it")
        #expect(rules.round(for: "a", leases: heldByB, live: ["a", "b"], now: 1000) == LeaseRound(), "a stands by")
        // Once b's lease has expired, a (alone holding nothing, b gone) takes it.
        #expect(rules.round(for: "a", leases: heldByB, live: ["a"], now: 5000) == LeaseRound(claim: [0]))
        // Three partitions, two holders and a newcomer: everyone's share is one; the newcomer waits for the release.
        let three = PartitionLeases(partitions: 3, duration: 1000)
        let leases = [
            PartitionLease(partition: 0, owner: "a", epoch: 1, expiresAt: 5000),
            PartitionLease(partition: 1, owner: "a", epoch: 1, expiresAt: 5000),
            PartitionLease(partition: 2, owner: "b", epoch: 1, expiresAt: 5000),
        ]
        #expect(
            three.round(for: "a", leases: leases, live: ["a", "b", "c"], now: 1000)
                == LeaseRound(renew: [0], release: [1]))
        #expect(three.round(for: "c", leases: leases, live: ["a", "b", "c"], now: 1000) == LeaseRound())
    }
}
