/// One board's standings in memory, ordered best first, with rank lookups in about O(log n).
///
/// Entries live in sorted blocks of at most ``maximumBlock`` packed ``RankSlot``s (20 bytes
/// each); a rank is the entries in the blocks before plus the position inside the block. Players
/// are interned numbers (``PlayerID``); the index finds a player's entry by its key
/// (``PlayerKeys``). Ties: the earlier submission ranks higher, then the smaller player id (by
/// `String` order, looked up in the ``PlayerTable`` only on an exact value and time tie), so the
/// order is total and deterministic.
///
/// Methods that compare entries take the service's ``PlayerTable``: every player in the index
/// must be interned there. ``Ranking`` wraps both for readers, who use player ids as text.
package struct RankIndex: Sendable {
    /// An entry as readers see it, with the player's id as text.
    package struct Entry: Sendable, Equatable {
        package var playerId: String
        package var value: Int64
        package var submittedAt: Int64

        package init(playerId: String, value: Int64, submittedAt: Int64) {
            self.playerId = playerId
            self.value = value
            self.submittedAt = submittedAt
        }
    }

    /// Higher values first (true) or lower values first.
    package let descending: Bool
    private var blocks: [[RankSlot]] = []
    /// Each block's entry count and last entry, side by side: a rank sums the counts and the
    /// search for a block reads the lasts, both contiguous (a few cache lines) rather than one
    /// block's storage each.
    private var counts: [Int32] = []
    private var lasts: [RankSlot] = []
    private var keys = PlayerKeys()
    static let maximumBlock = 512

    package init(descending: Bool) {
        self.descending = descending
    }

    /// An index holding `slots` (one per player, in any order): sorted once and cut into full
    /// blocks, much faster than inserting them one by one, and without spare capacity.
    package init(descending: Bool, loading slots: consuming [RankSlot], players: PlayerTable) {
        self.descending = descending
        slots.sort { precedes($0, $1, players: players) }
        if slots.count * 2 >= players.count { keys.reserveDense(players: players.count) }
        var block: [RankSlot] = []
        block.reserveCapacity(Swift.min(Self.maximumBlock, slots.count))
        for slot in slots where keys[slot.player] == nil {
            keys[slot.player] = slot.key
            block.append(slot)
            if block.count == Self.maximumBlock {
                appendBlock(block)
                block = []
                block.reserveCapacity(Self.maximumBlock)
            }
        }
        if !block.isEmpty { appendBlock(Array(block[...])) }
    }

    package var count: Int { keys.count }

    /// The player's entry, if any.
    package func slot(of player: PlayerID) -> RankSlot? {
        keys[player].map { RankSlot(player: player, key: $0) }
    }

    /// Whether key `a` ranks above key `b`; nil when they tie exactly.
    @inline(__always)
    private func ranksAbove(_ a: RankKey, _ b: RankKey) -> Bool? {
        let (left, right) = (a.value, b.value)
        if left != right { return descending ? left > right : left < right }
        let (earlier, later) = (a.submittedAt, b.submittedAt)
        if earlier != later { return earlier < later }
        return nil
    }

    /// Whether `a` ranks above `b`.
    @inline(__always)
    package func precedes(_ a: RankSlot, _ b: RankSlot, players: PlayerTable) -> Bool {
        if let above = ranksAbove(a.key, b.key) { return above }
        return players.precedes(a.player, b.player)
    }

    /// Sets a player's entry (replacing any previous one).
    package mutating func upsert(_ slot: RankSlot, players: PlayerTable) {
        if keys[slot.player] != nil { remove(slot.player, players: players) }
        keys[slot.player] = slot.key
        guard !blocks.isEmpty else {
            appendBlock([slot])
            return
        }
        func isAbove(_ other: RankSlot) -> Bool { precedes(other, slot, players: players) }
        var blockIndex = firstBlock(where: isAbove)
        if blockIndex == blocks.count { blockIndex -= 1 }
        if blocks[blockIndex].count >= Self.maximumBlock {
            // Split before inserting, into two blocks of exactly their size (a block that grew
            // past its capacity would keep twice the room it needs).
            let full = blocks[blockIndex]
            blocks[blockIndex] = Array(full[..<(full.count / 2)])
            blocks.insert(Array(full[(full.count / 2)...]), at: blockIndex + 1)
            counts.insert(0, at: blockIndex + 1)
            lasts.insert(slot, at: blockIndex + 1)
            refresh(blockIndex)
            refresh(blockIndex + 1)
            if isAbove(lasts[blockIndex]) { blockIndex += 1 }
        }
        let position = Self.insertionPoint(in: blocks[blockIndex], where: isAbove)
        blocks[blockIndex].insert(slot, at: position)
        refresh(blockIndex)
    }

    /// Removes a player's entry, if any.
    package mutating func remove(_ player: PlayerID, players: PlayerTable) {
        guard let key = keys[player] else { return }
        keys[player] = nil
        let slot = RankSlot(player: player, key: key)
        func isAbove(_ other: RankSlot) -> Bool { precedes(other, slot, players: players) }
        let blockIndex = firstBlock(where: isAbove)
        guard blockIndex < blocks.count else { return }
        let position = Self.insertionPoint(in: blocks[blockIndex], where: isAbove)
        guard position < blocks[blockIndex].count, blocks[blockIndex][position] == slot else { return }
        blocks[blockIndex].remove(at: position)
        if blocks[blockIndex].isEmpty {
            blocks.remove(at: blockIndex)
            counts.remove(at: blockIndex)
            lasts.remove(at: blockIndex)
        } else {
            refresh(blockIndex)
        }
    }

    /// The player's 1-based rank.
    package func rank(of player: PlayerID, players: PlayerTable) -> Int? {
        guard let key = keys[player] else { return nil }
        let slot = RankSlot(player: player, key: key)
        return position { precedes($0, slot, players: players) } + 1
    }

    /// Up to `limit` entries starting at 0-based position `offset`.
    package func slots(offset: Int, limit: Int) -> [RankSlot] {
        slots(offset: offset, limit: limit) { $0 }
    }

    /// Up to `limit` entries starting at 0-based position `offset`, each transformed.
    package func slots<Element>(offset: Int, limit: Int, _ transform: (RankSlot) -> Element) -> [Element] {
        guard offset >= 0, limit > 0, offset < count else { return [] }
        var result: [Element] = []
        result.reserveCapacity(Swift.min(limit, count - offset))
        var blockIndex = 0
        var skipped = 0
        while blockIndex < counts.count && skipped + Int(counts[blockIndex]) <= offset {
            skipped += Int(counts[blockIndex])
            blockIndex += 1
        }
        var start = offset - skipped
        while blockIndex < blocks.count {
            for slot in blocks[blockIndex][start...] {
                result.append(transform(slot))
                if result.count == limit { return result }
            }
            blockIndex += 1
            start = 0
        }
        return result
    }

    /// The 0-based position just after `anchor` (for cursors): the entries ranked above it, plus
    /// one if the anchor itself is still in the index. The anchor's player need not be interned.
    package func position(after anchor: Entry, players: PlayerTable) -> Int {
        let key = RankKey(value: anchor.value, submittedAt: anchor.submittedAt)
        if let player = players.id(of: anchor.playerId) {
            let slot = RankSlot(player: player, key: key)
            return position { precedes($0, slot, players: players) } + (keys[player] == key ? 1 : 0)
        }
        return position { other in ranksAbove(other.key, key) ?? players.precedes(other.player, anchor.playerId) }
    }

    /// How many entries rank above the point that `isAbove` describes (true for every entry
    /// before it, false from it on).
    private func position(where isAbove: (RankSlot) -> Bool) -> Int {
        let blockIndex = firstBlock(where: isAbove)
        guard blockIndex < blocks.count else { return count }
        let before = counts.withUnsafeBufferPointer { counts in
            // Wrapping adds (the total is far below Int's range), so the loop vectorizes.
            var sum = 0
            for count in counts[..<blockIndex] { sum &+= Int(count) }
            return sum
        }
        return before + Self.insertionPoint(in: blocks[blockIndex], where: isAbove)
    }

    /// The first block whose last entry is not above the point.
    private func firstBlock(where isAbove: (RankSlot) -> Bool) -> Int {
        var low = 0
        var high = lasts.count
        while low < high {
            let middle = (low + high) / 2
            if isAbove(lasts[middle]) { low = middle + 1 } else { high = middle }
        }
        return low
    }

    private mutating func appendBlock(_ block: [RankSlot]) {
        blocks.append(block)
        counts.append(Int32(block.count))
        lasts.append(block[block.count - 1])
    }

    /// Updates a changed (non-empty) block's count and last entry.
    private mutating func refresh(_ blockIndex: Int) {
        let block = blocks[blockIndex]
        counts[blockIndex] = Int32(block.count)
        lasts[blockIndex] = block[block.count - 1]
    }

    /// The position of the first entry in `block` that is not above the point.
    private static func insertionPoint(in block: [RankSlot], where isAbove: (RankSlot) -> Bool) -> Int {
        var low = 0
        var high = block.count
        while low < high {
            let middle = (low + high) / 2
            if isAbove(block[middle]) { low = middle + 1 } else { high = middle }
        }
        return low
    }
}
