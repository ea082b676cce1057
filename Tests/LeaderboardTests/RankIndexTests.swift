import Testing

@testable import Leaderboard

@Suite("Rank index")
struct RankIndexTests {
    typealias Entry = RankIndex.Entry

    /// The reference: sort everything and look.
    func reference(_ entries: [String: Entry], descending: Bool) -> [Entry] {
        let index = RankIndex(descending: descending)
        return entries.values.sorted { index.precedes($0, $1) }
    }

    @Test("ranks, pages and cursors match a full sort through thousands of random updates", arguments: [true, false])
    func matchesReference(descending: Bool) {
        var index = RankIndex(descending: descending)
        var truth: [String: Entry] = [:]
        var generator = SystemRandomNumberGenerator()
        for step in 0..<6000 {
            let player = "p\(Int.random(in: 0..<1500, using: &generator))"
            if step % 17 == 0 {
                index.remove(player)
                truth[player] = nil
            } else {
                let entry = Entry(playerId: player, value: Int64.random(in: -50...50, using: &generator), submittedAt: Int64(step % 40))
                index.upsert(entry)
                truth[player] = entry
            }
        }
        let sorted = reference(truth, descending: descending)
        #expect(index.count == sorted.count)
        #expect(index.entries(offset: 0, limit: sorted.count + 10) == sorted)
        for (position, entry) in sorted.enumerated() where position % 7 == 0 {
            #expect(index.rank(of: entry.playerId) == position + 1)
        }
        #expect(index.entries(offset: 100, limit: 25) == Array(sorted[100..<125]))
        let after = index.entries(after: sorted[200], limit: 10)
        #expect(after.position == 201)
        #expect(after.entries == Array(sorted[201..<211]))
        #expect(index.rank(of: "nobody") == nil)
        #expect(index.entries(offset: sorted.count, limit: 5).isEmpty)
    }

    @Test("ties go to the earlier submission, then the smaller player id")
    func ties() {
        var index = RankIndex(descending: true)
        index.upsert(Entry(playerId: "b", value: 10, submittedAt: 5))
        index.upsert(Entry(playerId: "a", value: 10, submittedAt: 5))
        index.upsert(Entry(playerId: "c", value: 10, submittedAt: 1))
        index.upsert(Entry(playerId: "d", value: 11, submittedAt: 9))
        #expect(index.entries(offset: 0, limit: 4).map(\.playerId) == ["d", "c", "a", "b"])
        index.upsert(Entry(playerId: "d", value: 1, submittedAt: 10))
        #expect(index.rank(of: "d") == 4)
        #expect(index.rank(of: "c") == 1)
    }
}
