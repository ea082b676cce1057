import Testing

@testable import Leaderboard

@Suite("Player keys")
struct PlayerKeysTests {
    @Test("matches a dictionary through random updates, sparse and then dense", arguments: [50, 5000])
    func matchesDictionary(players: Int) {
        var keys = PlayerKeys()
        var truth: [PlayerID: RankKey] = [:]
        var generator = SystemRandomNumberGenerator()
        for step in 0..<20_000 {
            // Few players early (sparse), then most of them (dense).
            let range = step < 2000 ? 0..<(players * 10) : 0..<players
            let player = PlayerID(raw: UInt32(Int.random(in: range, using: &generator)))
            if step % 5 == 0 {
                keys[player] = nil
                truth[player] = nil
            } else {
                let key = RankKey(
                    value: .random(in: .min ... .max, using: &generator),
                    submittedAt: .random(in: 0...9, using: &generator))
                keys[player] = key
                truth[player] = key
            }
            #expect(keys.count == truth.count)
        }
        for raw in 0..<UInt32(players * 10 + 5) {
            #expect(keys[PlayerID(raw: raw)] == truth[PlayerID(raw: raw)])
        }
    }

    @Test("reserving the dense form keeps what was there")
    func reserving() {
        var keys = PlayerKeys()
        keys[PlayerID(raw: 3)] = RankKey(value: 1, submittedAt: 2)
        keys.reserveDense(players: 100)
        keys[PlayerID(raw: 150)] = RankKey(value: 5, submittedAt: 6)
        #expect(keys.count == 2)
        #expect(keys[PlayerID(raw: 3)] == RankKey(value: 1, submittedAt: 2))
        #expect(keys[PlayerID(raw: 150)] == RankKey(value: 5, submittedAt: 6))
        #expect(keys[PlayerID(raw: 4)] == nil)
        #expect(keys[PlayerID(raw: 1000)] == nil)
        keys[PlayerID(raw: 1000)] = nil
        #expect(keys.count == 2)
    }
}
