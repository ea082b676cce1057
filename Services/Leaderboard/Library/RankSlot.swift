/// What an entry is ranked by: its value, then its submission time (earlier first).
///
/// Both 64-bit numbers are kept as 32-bit halves so that the key aligns to 4 bytes and a
/// ``RankSlot`` packs into 20 bytes rather than 24 (a million entries save 4 MB per index).
package struct RankKey: Sendable, Equatable {
    private var valueLow: UInt32
    private var valueHigh: UInt32
    private var timeLow: UInt32
    private var timeHigh: UInt32

    package init(value: Int64, submittedAt: Int64) {
        let value = UInt64(bitPattern: value)
        let time = UInt64(bitPattern: submittedAt)
        valueLow = UInt32(truncatingIfNeeded: value)
        valueHigh = UInt32(truncatingIfNeeded: value >> 32)
        timeLow = UInt32(truncatingIfNeeded: time)
        timeHigh = UInt32(truncatingIfNeeded: time >> 32)
    }

    package var value: Int64 { Int64(bitPattern: UInt64(valueHigh) << 32 | UInt64(valueLow)) }
    package var submittedAt: Int64 { Int64(bitPattern: UInt64(timeHigh) << 32 | UInt64(timeLow)) }
}

/// One entry as a ``RankIndex`` stores it: the key and the interned player (20 bytes).
package struct RankSlot: Sendable, Equatable {
    package var key: RankKey
    package var player: PlayerID

    package init(player: PlayerID, key: RankKey) {
        self.key = key
        self.player = player
    }

    package init(player: PlayerID, value: Int64, submittedAt: Int64) {
        self.init(player: player, key: RankKey(value: value, submittedAt: submittedAt))
    }

    package var value: Int64 { key.value }
    package var submittedAt: Int64 { key.submittedAt }
}
