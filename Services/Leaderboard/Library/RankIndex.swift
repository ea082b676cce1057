/// One board's standings in memory, ordered best first, with rank lookups in about O(log n).
///
/// Entries live in sorted blocks of at most ``maximumBlock`` entries; a rank is the entries in
/// the blocks before plus the position inside the block. Ties: the earlier submission ranks
/// higher, then the smaller player id, so the order is total and deterministic.
package struct RankIndex: Sendable {
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
    private var blocks: [[Entry]] = []
    private var byPlayer: [String: Entry] = [:]
    static let maximumBlock = 512

    package init(descending: Bool) {
        self.descending = descending
    }

    package var count: Int { byPlayer.count }

    package func entry(of playerId: String) -> Entry? { byPlayer[playerId] }

    /// Whether `a` ranks above `b`.
    package func precedes(_ a: Entry, _ b: Entry) -> Bool {
        if a.value != b.value { return descending ? a.value > b.value : a.value < b.value }
        if a.submittedAt != b.submittedAt { return a.submittedAt < b.submittedAt }
        return a.playerId < b.playerId
    }

    /// Sets a player's entry (replacing any previous one).
    package mutating func upsert(_ entry: Entry) {
        if byPlayer[entry.playerId] != nil { remove(entry.playerId) }
        byPlayer[entry.playerId] = entry
        guard !blocks.isEmpty else {
            blocks = [[entry]]
            return
        }
        var blockIndex = firstBlock(notBefore: entry)
        if blockIndex == blocks.count { blockIndex -= 1 }
        let position = insertionPoint(of: entry, in: blocks[blockIndex])
        blocks[blockIndex].insert(entry, at: position)
        if blocks[blockIndex].count > Self.maximumBlock {
            let upper = Array(blocks[blockIndex][(Self.maximumBlock / 2)...])
            blocks[blockIndex].removeSubrange((Self.maximumBlock / 2)...)
            blocks.insert(upper, at: blockIndex + 1)
        }
    }

    /// Removes a player's entry, if any.
    package mutating func remove(_ playerId: String) {
        guard let entry = byPlayer.removeValue(forKey: playerId) else { return }
        let blockIndex = firstBlock(notBefore: entry)
        guard blockIndex < blocks.count else { return }
        let position = insertionPoint(of: entry, in: blocks[blockIndex])
        guard position < blocks[blockIndex].count, blocks[blockIndex][position] == entry else { return }
        blocks[blockIndex].remove(at: position)
        if blocks[blockIndex].isEmpty { blocks.remove(at: blockIndex) }
    }

    /// The player's 1-based rank.
    package func rank(of playerId: String) -> Int? {
        guard let entry = byPlayer[playerId] else { return nil }
        let blockIndex = firstBlock(notBefore: entry)
        guard blockIndex < blocks.count else { return nil }
        let before = blocks[..<blockIndex].reduce(0) { $0 + $1.count }
        return before + insertionPoint(of: entry, in: blocks[blockIndex]) + 1
    }

    /// Up to `limit` entries starting at 0-based position `offset`.
    package func entries(offset: Int, limit: Int) -> [Entry] {
        guard offset >= 0, limit > 0 else { return [] }
        var skipped = 0
        var result: [Entry] = []
        for block in blocks {
            if skipped + block.count <= offset {
                skipped += block.count
                continue
            }
            let start = max(0, offset - skipped)
            for entry in block[start...] {
                result.append(entry)
                if result.count == limit { return result }
            }
            skipped += block.count
        }
        return result
    }

    /// Up to `limit` entries ranked strictly below `anchor` (for cursors), with the 0-based
    /// position of the first one.
    package func entries(after anchor: Entry, limit: Int) -> (position: Int, entries: [Entry]) {
        let blockIndex = firstBlock(notBefore: anchor)
        guard blockIndex < blocks.count else { return (count, []) }
        var position = blocks[..<blockIndex].reduce(0) { $0 + $1.count }
        var inBlock = insertionPoint(of: anchor, in: blocks[blockIndex])
        if inBlock < blocks[blockIndex].count, blocks[blockIndex][inBlock] == anchor { inBlock += 1 }
        position += inBlock
        return (position, entries(offset: position, limit: limit))
    }

    /// The first block whose last entry does not rank above `entry`.
    private func firstBlock(notBefore entry: Entry) -> Int {
        var low = 0
        var high = blocks.count
        while low < high {
            let middle = (low + high) / 2
            if let last = blocks[middle].last, precedes(last, entry) { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// The position of the first entry in `block` that does not rank above `entry`.
    private func insertionPoint(of entry: Entry, in block: [Entry]) -> Int {
        var low = 0
        var high = block.count
        while low < high {
            let middle = (low + high) / 2
            if precedes(block[middle], entry) { low = middle + 1 } else { high = middle }
        }
        return low
    }
}
