import PodiumMessages
import Testing

@testable import Leaderboard

@Suite("Page cache")
struct PageCacheTests {
    let key = PageCache.Key(gameId: "dash", boardId: "dash.highscore", firstRank: 1)
    let rows = [
        RankIndex.Entry(playerId: "ann", value: 500, submittedAt: 10),
        RankIndex.Entry(playerId: "bob", value: 300, submittedAt: 20),
    ]

    func page(_ label: String) -> [LeaderboardEntry] {
        [
            LeaderboardEntry(
                playerId: "ann", displayName: label, value: 500, rank: 1, context: nil, metadata: nil, submittedAt: 10)
        ]
    }

    @Test("a page is reused only for exactly the same rows, within its freshness")
    func reuse() {
        let cache = PageCache()
        #expect(cache.entries(for: key, rows: rows, now: 1_000) == nil)
        cache.store(page("first"), for: key, rows: rows, now: 1_000)
        #expect(cache.entries(for: key, rows: rows, now: 1_000 + PageCache.freshness - 1) == page("first"))
        // Any change in the rows (a new time, a new value, another player, a row more) misses.
        var later = rows
        later[1].submittedAt = 21
        #expect(cache.entries(for: key, rows: later, now: 1_001) == nil)
        var higher = rows
        higher[0].value = 501
        #expect(cache.entries(for: key, rows: higher, now: 1_001) == nil)
        #expect(cache.entries(for: key, rows: Array(rows.prefix(1)), now: 1_001) == nil)
        #expect(
            cache.entries(
                for: PageCache.Key(gameId: "dash", boardId: "dash.highscore", firstRank: 2), rows: rows, now: 1_001)
                == nil)
        // Stale pages and clocks that went back miss.
        #expect(cache.entries(for: key, rows: rows, now: 1_000 + PageCache.freshness) == nil)
        #expect(cache.entries(for: key, rows: rows, now: 999) == nil)
    }

    @Test("deep pages are not kept, and a full cache starts over")
    func bounds() {
        let cache = PageCache()
        let deep = PageCache.Key(gameId: "dash", boardId: "b", firstRank: PageCache.deepestFirstRank + 1)
        cache.store(page("deep"), for: deep, rows: rows, now: 0)
        #expect(cache.entries(for: deep, rows: rows, now: 1) == nil)
        for rank in 1...PageCache.capacity {
            cache.store(
                page("\(rank)"), for: PageCache.Key(gameId: "g\(rank)", boardId: "b", firstRank: 1), rows: rows, now: 0)
        }
        #expect(
            cache.entries(for: PageCache.Key(gameId: "g1", boardId: "b", firstRank: 1), rows: rows, now: 1) == page("1")
        )
        cache.store(page("new"), for: key, rows: rows, now: 0)
        #expect(cache.entries(for: PageCache.Key(gameId: "g1", boardId: "b", firstRank: 1), rows: rows, now: 1) == nil)
        #expect(cache.entries(for: key, rows: rows, now: 1) == page("new"))
    }
}
