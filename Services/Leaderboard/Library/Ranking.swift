/// One scope's standings as readers see them: the ``RankIndex`` with the ``PlayerTable`` that
/// names its players, so that lookups and pages speak in player ids as text.
///
/// A view for the length of one read (under the standings' lock): holding it longer would make
/// the next write copy the index and the table.
package struct Ranking: Sendable {
    package let index: RankIndex
    package let players: PlayerTable

    package init(index: RankIndex, players: PlayerTable) {
        self.index = index
        self.players = players
    }

    package typealias Entry = RankIndex.Entry

    package var count: Int { index.count }

    package func entry(of playerId: String) -> Entry? {
        guard let player = players.id(of: playerId), let slot = index.slot(of: player) else { return nil }
        return Entry(playerId: playerId, value: slot.value, submittedAt: slot.submittedAt)
    }

    /// Whether `a` ranks above `b` (higher or lower value first, then the earlier submission,
    /// then the smaller player id).
    package func precedes(_ a: Entry, _ b: Entry) -> Bool {
        if a.value != b.value { return index.descending ? a.value > b.value : a.value < b.value }
        if a.submittedAt != b.submittedAt { return a.submittedAt < b.submittedAt }
        return a.playerId < b.playerId
    }

    /// The player's 1-based rank.
    package func rank(of playerId: String) -> Int? {
        guard let player = players.id(of: playerId) else { return nil }
        return index.rank(of: player, players: players)
    }

    /// Up to `limit` entries starting at 0-based position `offset`.
    package func entries(offset: Int, limit: Int) -> [Entry] {
        // A closure rather than the method `entry`: a partially applied method would copy (and
        // retain every buffer of) this view on each call.
        index.slots(offset: offset, limit: limit) { slot in
            Entry(playerId: players.name(of: slot.player), value: slot.value, submittedAt: slot.submittedAt)
        }
    }

    /// Up to `limit` entries ranked strictly below `anchor` (for cursors), with the 0-based
    /// position of the first one.
    package func entries(after anchor: Entry, limit: Int) -> (position: Int, entries: [Entry]) {
        let position = index.position(after: anchor, players: players)
        return (position, entries(offset: position, limit: limit))
    }
}
