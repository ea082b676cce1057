import PodiumRuntime
import Testing

/// Holding a lease and serving are two steps: a gained partition is served only once the state
/// that came with it is loaded (a failover found the new owner answering, and its load then
/// overwriting, a score submitted in between).
@Suite("Ownership")
struct OwnershipTests {
    let lease = PartitionLease(partition: 0, owner: "b", epoch: 2, expiresAt: 10_000)

    @Test("a gained lease is held at once but served only after the load")
    func gainedThenLoaded() {
        let ownership = Ownership(isLeased: true)
        #expect(!ownership.holdsLeases && !ownership.isOwner)
        let change = ownership.update([lease])
        #expect(change.gained == [0] && change.lost == [])
        #expect(ownership.holdsLeases, "the lease is held")
        #expect(!ownership.isOwner, "nothing is served before the state is loaded")
        ownership.finishLoading([0])
        #expect(ownership.isOwner)
        // A renewal of the same lease (same epoch) gains nothing: serving goes on.
        #expect(ownership.update([lease]).gained == [])
        #expect(ownership.isOwner)
    }

    @Test("the next epoch is this instance's own late renewal; a later one is a gain again; losing it stops serving")
    func newEpochAndLoss() {
        let ownership = Ownership(isLeased: true)
        _ = ownership.update([lease])
        ownership.finishLoading([0])
        var next = lease
        next.epoch = 3
        let renewed = ownership.update([next])
        #expect(renewed.gained == [] && renewed.lost == [], "nobody held epoch 2 → 3 in between")
        #expect(ownership.isOwner, "serving goes on")
        next.epoch = 5
        let retaken = ownership.update([next])
        #expect(retaken.gained == [0] && retaken.lost == [0])
        #expect(!ownership.isOwner, "another owner held epoch 4 and may have written: load again first")
        ownership.finishLoading([0])
        #expect(ownership.update([]).lost == [0])
        #expect(!ownership.holdsLeases && !ownership.isOwner)
    }

    @Test("with several partitions, a gained one loads while the others go on serving; a lost one stops at once")
    func severalPartitions() {
        let ownership = Ownership(isLeased: true)
        let held = [1, 2].map { PartitionLease(partition: $0, owner: "b", epoch: 1, expiresAt: 10_000) }
        #expect(ownership.update(held).gained == [1, 2])
        ownership.finishLoading([1, 2])
        #expect(ownership.serves(1) && ownership.serves(2) && !ownership.serves(3))
        #expect(!ownership.isOwner, "partition 0 (the service-wide work) is another instance's")
        let more = held + [PartitionLease(partition: 3, owner: "b", epoch: 4, expiresAt: 10_000)]
        #expect(ownership.update(more).gained == [3])
        #expect(ownership.serves(1) && ownership.serves(2), "the partitions it had go on serving")
        #expect(!ownership.serves(3), "the gained one waits for its load")
        #expect(ownership.served == [1: 1, 2: 1])
        ownership.finishLoading([3])
        #expect(ownership.serves(3))
        let change = ownership.update([held[0], more[2]])
        #expect(change.lost == [2] && change.gained == [])
        #expect(!ownership.serves(2) && ownership.serves(1) && ownership.serves(3))
        #expect(ownership.partitions == [1, 3])
        // Lost while loading: nothing is left waiting for a load that no longer matters.
        #expect(ownership.update([held[0], PartitionLease(partition: 5, owner: "b", epoch: 1)]).gained == [5])
        #expect(ownership.update([held[0]]).lost == [5])
        #expect(ownership.served == [1: 1])
    }

    @Test("a service without leases owns and serves everything, always")
    func unleased() {
        let ownership = Ownership(isLeased: false)
        #expect(ownership.holdsLeases && ownership.isOwner)
        #expect(ownership.partitions == nil)
    }
}
