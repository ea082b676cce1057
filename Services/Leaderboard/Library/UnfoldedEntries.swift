/// The entries a store has acknowledged but not yet written to its indexed `entry` table: the
/// durable form of a submission is an append (its history row carries the entry it left, with
/// the receipt and outbox message beside it), and the table is brought up to date later in one
/// large sorted write (a fold), as Redis rewrites its append-only file.
///
/// One fold of many entries dirties each index page once, where a write per submission dirties
/// several random pages per score (docs/BENCHMARKS.md, "Durable writes that append"). Until an
/// entry is folded, reads of it come from here; after a crash the history rows past the last
/// fold are folded again when the store opens, so nothing acknowledged depends on this memory.
public struct UnfoldedEntries: Sendable {
    public typealias Key = SubmissionBatch.EntryKey

    /// Fold once this many submissions were appended since the last fold (the bound of what a
    /// restart re-reads and of this table's size).
    public let foldAfter: Int
    private var latest: [Key: StoredEntry] = [:]
    /// Submissions appended since the last fold (several of one entry count once each).
    public private(set) var scoresSinceFold = 0

    public init(foldAfter: Int) {
        precondition(foldAfter > 0, "a fold needs at least one submission")
        self.foldAfter = foldAfter
    }

    /// How many entries wait for a fold.
    public var count: Int { latest.count }
    public var isEmpty: Bool { latest.isEmpty && scoresSinceFold == 0 }
    /// Whether enough was appended that the next write should fold.
    public var needsFold: Bool { scoresSinceFold >= foldAfter }

    /// The entry as last acknowledged, if it has not been folded yet.
    public func entry(_ key: Key) -> StoredEntry? { latest[key] }

    /// The unfolded entries of some players on one board.
    public func entries(gameId: String, boardId: String, playerIds: [String]) -> [String: StoredEntry] {
        guard !latest.isEmpty else { return [:] }
        var found: [String: StoredEntry] = [:]
        for playerId in playerIds {
            if let entry = latest[Key(gameId: gameId, boardId: boardId, playerId: playerId)] {
                found[playerId] = entry
            }
        }
        return found
    }

    /// Whether any unfolded entry matches (a read of whole boards folds only then: a page of an
    /// ended period must not cost a write while scores go to the current one).
    public func contains(where matches: (Key) -> Bool) -> Bool {
        latest.keys.contains(where: matches)
    }

    /// Records a committed batch: the entries it changed (their last states) and how many
    /// history rows it appended.
    public mutating func record(_ changed: [(key: Key, entry: StoredEntry)], scores: Int) {
        for (key, entry) in changed { latest[key] = entry }
        scoresSinceFold += scores
    }

    /// What a fold writes: every unfolded entry, in key order (so that the write walks each
    /// index from one end to the other).
    public func sortedForFold() -> [(key: Key, entry: StoredEntry)] {
        latest.sorted { a, b in
            (a.key.gameId, a.key.boardId, a.key.playerId) < (b.key.gameId, b.key.boardId, b.key.playerId)
        }.map { ($0.key, $0.value) }
    }

    /// The fold committed: nothing waits any more.
    public mutating func folded() {
        latest.removeAll(keepingCapacity: true)
        scoresSinceFold = 0
    }
}
