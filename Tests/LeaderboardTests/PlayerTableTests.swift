import Testing

@testable import Leaderboard

@Suite("Player table")
struct PlayerTableTests {
    @Test("interning gives each id one number, found again by text, through many rehashes")
    func interning() {
        var table = PlayerTable()
        let ids =
            (0..<20_000).map { "player-\($0 * 7919 % 20_000)" } + [
                "", "é", "e\u{301}", String(repeating: "x", count: 64),
            ]
        // Keyed by bytes: "é" and "e\u{301}" are equal as Strings but, as in the store's primary
        // key, two players.
        var numbers: [[UInt8]: PlayerID] = [:]
        for id in ids { numbers[Array(id.utf8)] = table.intern(id) }
        #expect(table.count == ids.count)
        #expect(Set(numbers.values).count == ids.count)
        for id in ids {
            #expect(table.intern(id) == numbers[Array(id.utf8)])
            #expect(table.id(of: id) == numbers[Array(id.utf8)])
            #expect(Array(table.name(of: numbers[Array(id.utf8)]!).utf8) == Array(id.utf8))
        }
        #expect(table.count == ids.count)
        #expect(table.id(of: "player-20000") == nil)
    }

    @Test("reserving room keeps every id findable")
    func reserving() {
        var table = PlayerTable()
        let early = table.intern("early")
        table.reserve(players: 10_000, bytes: 100_000)
        #expect(table.id(of: "early") == early)
        for number in 0..<10_000 { _ = table.intern("p\(number)") }
        #expect(table.id(of: "early") == early)
        #expect(table.id(of: "p9999").map(table.name(of:)) == "p9999")
    }

    @Test("ids compare exactly as String's < orders them, whatever order they were interned in")
    func order() {
        var table = PlayerTable()
        let ids = [
            "b", "a", "a10", "a9", "A", "", "zz", "z", "é", "e\u{301}", "f", "ü", "u\u{308}x", "日本", "player-10",
            "player-9",
        ]
        let numbers = ids.map { table.intern($0) }
        for (a, first) in zip(ids, numbers) {
            for (b, second) in zip(ids, numbers) where a != b || Array(a.utf8) == Array(b.utf8) {
                #expect(table.precedes(first, second) == (a < b), "\(a) < \(b)")
                #expect(table.precedes(first, b) == (a < b), "\(a) < \(b) (text)")
            }
        }
    }

    @Test("two encodings of the same text are two players, in a fixed order")
    func encodings() {
        var table = PlayerTable()
        let composed = table.intern("\u{e9}")
        let decomposed = table.intern("e\u{301}")
        #expect(composed != decomposed)
        #expect(table.precedes(composed, decomposed) != table.precedes(decomposed, composed))
    }
}
