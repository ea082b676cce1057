import Testing

@testable import Leaderboard

@Suite("Rank index")
struct RankIndexTests {
    typealias Entry = RankIndex.Entry

    /// An index with its own player table, driven by player ids as text (as the standings do).
    struct Subject {
        var index: RankIndex
        var players = PlayerTable()

        init(descending: Bool) {
            index = RankIndex(descending: descending)
        }

        /// An index loaded in one go, its player table interned in the given order.
        init(descending: Bool, loading entries: [Entry]) {
            var table = PlayerTable()
            let slots = entries.map {
                RankSlot(player: table.intern($0.playerId), value: $0.value, submittedAt: $0.submittedAt)
            }
            index = RankIndex(descending: descending, loading: slots, players: table)
            players = table
        }

        mutating func upsert(_ entry: Entry) {
            let player = players.intern(entry.playerId)
            index.upsert(RankSlot(player: player, value: entry.value, submittedAt: entry.submittedAt), players: players)
        }

        mutating func remove(_ playerId: String) {
            guard let player = players.id(of: playerId) else { return }
            index.remove(player, players: players)
        }

        var ranking: Ranking { Ranking(index: index, players: players) }
    }

    /// The documented order, written out independently of the index.
    static func precedes(_ a: Entry, _ b: Entry, descending: Bool) -> Bool {
        if a.value != b.value { return descending ? a.value > b.value : a.value < b.value }
        if a.submittedAt != b.submittedAt { return a.submittedAt < b.submittedAt }
        return a.playerId < b.playerId
    }

    /// The reference: sort everything and look.
    static func reference(_ entries: [String: Entry], descending: Bool) -> [Entry] {
        entries.values.sorted { precedes($0, $1, descending: descending) }
    }

    /// Checks every read against the reference.
    static func check(_ ranking: Ranking, against truth: [String: Entry], descending: Bool) {
        let sorted = reference(truth, descending: descending)
        #expect(ranking.count == sorted.count)
        #expect(ranking.entries(offset: 0, limit: sorted.count + 10) == sorted)
        for (position, entry) in sorted.enumerated() {
            #expect(ranking.rank(of: entry.playerId) == position + 1)
            #expect(ranking.entry(of: entry.playerId) == entry)
        }
        if sorted.count >= 125 { #expect(ranking.entries(offset: 100, limit: 25) == Array(sorted[100..<125])) }
        for anchorPosition in stride(from: 0, to: sorted.count, by: 37) {
            let after = ranking.entries(after: sorted[anchorPosition], limit: 10)
            #expect(after.position == anchorPosition + 1)
            #expect(after.entries == Array(sorted[(anchorPosition + 1)..<min(anchorPosition + 11, sorted.count)]))
        }
        // Anchors that are not in the index (a moved, removed or never-seen player) fall where
        // the order puts them.
        for anchor in [
            Entry(playerId: "p5", value: 0, submittedAt: 2), Entry(playerId: "zz-unknown", value: 1, submittedAt: 1),
            Entry(playerId: "", value: -3, submittedAt: 0), Entry(playerId: "p1000", value: 2, submittedAt: 3),
        ]
        where truth[anchor.playerId] != anchor {
            let above = sorted.filter { precedes($0, anchor, descending: descending) }.count
            #expect(ranking.entries(after: anchor, limit: 3).position == above)
            #expect(
                ranking.entries(after: anchor, limit: 3).entries == Array(sorted[above..<min(above + 3, sorted.count)]))
        }
        #expect(ranking.rank(of: "nobody") == nil)
        #expect(ranking.entry(of: "nobody") == nil)
        #expect(ranking.entries(offset: sorted.count, limit: 5).isEmpty)
    }

    @Test(
        "ranks, pages and cursors match a full sort through thousands of random updates, with many exact ties",
        arguments: [true, false])
    func matchesReference(descending: Bool) {
        var subject = Subject(descending: descending)
        var truth: [String: Entry] = [:]
        var generator = SystemRandomNumberGenerator()
        // Interned in random order, so the players' numbers do not follow their ids' order
        // ("p10" < "p9" as text); narrow values and times make exact value-and-time ties common.
        Self.randomUpdates(&subject, &truth, steps: 8000, players: 1500, removeEvery: 17, using: &generator)
        Self.check(subject.ranking, against: truth, descending: descending)
    }

    /// Random upserts of narrow values and times (exact ties are common), every `removeEvery`th
    /// step a removal, applied to the subject and the reference alike.
    static func randomUpdates(
        _ subject: inout Subject, _ truth: inout [String: Entry], steps: Int, players: Int, removeEvery: Int,
        using generator: inout SystemRandomNumberGenerator
    ) {
        for step in 0..<steps {
            let player = "p\(Int.random(in: 0..<players, using: &generator))"
            if step % removeEvery == 0 {
                subject.remove(player)
                truth[player] = nil
            } else {
                let entry = Entry(
                    playerId: player, value: Int64.random(in: -5...5, using: &generator),
                    submittedAt: Int64.random(in: 0..<4, using: &generator))
                subject.upsert(entry)
                truth[player] = entry
            }
        }
    }

    @Test(
        "an index loaded in one go matches the reference, and keeps matching through updates", arguments: [true, false])
    func loaded(descending: Bool) {
        var generator = SystemRandomNumberGenerator()
        var truth: [String: Entry] = [:]
        for number in (0..<3000).shuffled(using: &generator) {
            let player = "p\(number)"
            truth[player] = Entry(
                playerId: player, value: Int64.random(in: -5...5, using: &generator),
                submittedAt: Int64.random(in: 0..<4, using: &generator))
        }
        var subject = Subject(descending: descending, loading: Array(truth.values))
        Self.check(subject.ranking, against: truth, descending: descending)
        Self.randomUpdates(&subject, &truth, steps: 3000, players: 3500, removeEvery: 11, using: &generator)
        Self.check(subject.ranking, against: truth, descending: descending)
    }

    @Test("ties go to the earlier submission, then the smaller player id (as text, not in interning order)")
    func ties() {
        var subject = Subject(descending: true)
        subject.upsert(Entry(playerId: "b", value: 10, submittedAt: 5))
        subject.upsert(Entry(playerId: "a", value: 10, submittedAt: 5))
        subject.upsert(Entry(playerId: "c", value: 10, submittedAt: 1))
        subject.upsert(Entry(playerId: "d", value: 11, submittedAt: 9))
        subject.upsert(Entry(playerId: "a10", value: 10, submittedAt: 5))
        subject.upsert(Entry(playerId: "a9", value: 10, submittedAt: 5))
        #expect(subject.ranking.entries(offset: 0, limit: 6).map(\.playerId) == ["d", "c", "a", "a10", "a9", "b"])
        subject.upsert(Entry(playerId: "d", value: 1, submittedAt: 10))
        #expect(subject.ranking.rank(of: "d") == 6)
        #expect(subject.ranking.rank(of: "c") == 1)
        #expect(subject.ranking.rank(of: "a9") == 4)
    }

    @Test("extreme values and times survive the packing")
    func extremes() {
        var subject = Subject(descending: false)
        let entries = [
            Entry(playerId: "min", value: .min, submittedAt: .max),
            Entry(playerId: "max", value: .max, submittedAt: .min),
            Entry(playerId: "zero", value: 0, submittedAt: -1),
            Entry(playerId: "now", value: -1, submittedAt: 1_760_000_000_000),
        ]
        for entry in entries { subject.upsert(entry) }
        #expect(subject.ranking.entries(offset: 0, limit: 10) == [entries[0], entries[3], entries[2], entries[1]])
        #expect(MemoryLayout<RankSlot>.stride == 20)
    }

    @Test("blocks split and empty correctly past the block size")
    func manyEntries() {
        var subject = Subject(descending: true)
        var truth: [String: Entry] = [:]
        for number in 0..<(RankIndex.maximumBlock * 5) {
            let entry = Entry(playerId: "p\(number)", value: Int64(number % 7), submittedAt: Int64(number % 3))
            subject.upsert(entry)
            truth[entry.playerId] = entry
        }
        for number in stride(from: 0, to: RankIndex.maximumBlock * 5, by: 2) {
            subject.remove("p\(number)")
            truth["p\(number)"] = nil
        }
        Self.check(subject.ranking, against: truth, descending: true)
    }
}
