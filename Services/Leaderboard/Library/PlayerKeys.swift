/// Each player's key in one ``RankIndex`` (how to find the player's entry among the sorted ones).
///
/// Sparse while few of the service's players are in the index (a day's standings): a dictionary.
/// Once they are at least half of the numbers up to the largest one held (all-time standings), an
/// array indexed by ``PlayerID`` with a bit per player saying who is present: 16 bytes and a bit
/// per player instead of a dictionary's 30 to 50 bytes per entry.
package struct PlayerKeys: Sendable {
    private var sparse: [PlayerID: RankKey] = [:]
    /// Dense: the key of each player number (meaningless where ``present`` is clear).
    private var dense: [RankKey] = []
    private var present: [UInt64] = []
    private var isDense = false
    /// Sparse: the largest player number ever held.
    private var largest = -1
    package private(set) var count = 0

    package init() {}

    package subscript(player: PlayerID) -> RankKey? {
        get {
            guard isDense else { return sparse[player] }
            let index = Int(player.raw)
            guard index < dense.count, present[index >> 6] & (1 << UInt64(index & 63)) != 0 else { return nil }
            return dense[index]
        }
        set {
            if isDense {
                setDense(player, newValue)
            } else {
                let old =
                    newValue == nil ? sparse.removeValue(forKey: player) : sparse.updateValue(newValue!, forKey: player)
                count += (old == nil ? 0 : -1) + (newValue == nil ? 0 : 1)
                if newValue != nil { largest = Swift.max(largest, Int(player.raw)) }
                if count >= 64 && count * 2 > largest { becomeDense() }
            }
        }
    }

    /// Sizes the dense form for players numbered below `players` (loading a board).
    package mutating func reserveDense(players: Int) {
        if !isDense { becomeDense() }
        grow(to: players)
    }

    private mutating func setDense(_ player: PlayerID, _ key: RankKey?) {
        let index = Int(player.raw)
        if index >= dense.count {
            guard key != nil else { return }
            grow(to: Swift.max(index + 1, dense.count + dense.count / 8))
        }
        let bit: UInt64 = 1 << UInt64(index & 63)
        let wasPresent = present[index >> 6] & bit != 0
        if let key {
            dense[index] = key
            present[index >> 6] |= bit
            if !wasPresent { count += 1 }
        } else if wasPresent {
            present[index >> 6] &= ~bit
            count -= 1
        }
    }

    private mutating func grow(to players: Int) {
        guard players > dense.count else { return }
        dense.reserveCapacity(players)
        dense.append(contentsOf: repeatElement(RankKey(value: 0, submittedAt: 0), count: players - dense.count))
        present.append(contentsOf: repeatElement(0, count: (players + 63) / 64 - present.count))
    }

    private mutating func becomeDense() {
        let entries = sparse
        sparse = [:]
        isDense = true
        count = 0
        grow(to: largest + 1)
        for (player, key) in entries { setDense(player, key) }
    }
}
