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
        ownership.finishLoading()
        #expect(ownership.isOwner)
        // A renewal of the same lease (same epoch) gains nothing: serving goes on.
        #expect(ownership.update([lease]).gained == [])
        #expect(ownership.isOwner)
    }

    @Test("the next epoch is this instance's own late renewal; a later one is a gain again; losing it stops serving")
    func newEpochAndLoss() {
        let ownership = Ownership(isLeased: true)
        _ = ownership.update([lease])
        ownership.finishLoading()
        var next = lease
        next.epoch = 3
        let renewed = ownership.update([next])
        #expect(renewed.gained == [] && renewed.lost == [], "nobody held epoch 2 → 3 in between")
        #expect(ownership.isOwner, "serving goes on")
        next.epoch = 5
        let retaken = ownership.update([next])
        #expect(retaken.gained == [0] && retaken.lost == [0])
        #expect(!ownership.isOwner, "another owner held epoch 4 and may have written: load again first")
        ownership.finishLoading()
        #expect(ownership.update([]).lost == [0])
        #expect(!ownership.holdsLeases && !ownership.isOwner)
    }

    @Test("a service without leases owns and serves everything, always")
    func unleased() {
        let ownership = Ownership(isLeased: false)
        #expect(ownership.holdsLeases && ownership.isOwner)
        #expect(ownership.partitions == nil)
    }
}
