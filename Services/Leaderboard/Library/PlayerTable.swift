/// A player interned in a ``PlayerTable``: a 32-bit number in place of the id string.
///
/// Numbers follow interning order, not the ids' order: rank ties compare the ids themselves
/// (``PlayerTable/precedes(_:_:)``).
package struct PlayerID: Hashable, Sendable {
    package let raw: UInt32

    package init(raw: UInt32) {
        self.raw = raw
    }
}

/// Every player id the leaderboard service holds in memory, each stored once: the ids' UTF-8
/// bytes back to back, where each one ends, and an open-addressing hash table from id to number.
///
/// About 30 bytes per player for ids like `player-123456` (a `String` in a dictionary per index
/// cost several times that, and once per index). Players are never removed (an id that left
/// every board costs its bytes until the next start). Ids are compared by their UTF-8 bytes, as
/// the store's primary key compares them.
package struct PlayerTable: Sendable {
    /// Every id's UTF-8 bytes, in interning order.
    private var bytes: [UInt8] = []
    /// Where each id's bytes end in ``bytes`` (it starts where the previous one ends).
    private var ends: [UInt32] = []
    /// Open addressing with linear probing: 0 is empty, otherwise a player's number + 1 in the
    /// low 32 bits and the high 32 bits of the id's hash above (so that a probe rarely has to
    /// read another id's bytes). The capacity is a power of two, at most three quarters full.
    private var buckets: [UInt64] = []
    /// Per-table random seed (``Hasher`` is seeded per process), so colliding ids cannot be
    /// precomputed.
    private let seed = Int.random(in: .min ... .max)

    package init() {}

    /// How many players are interned.
    package var count: Int { ends.count }

    /// Makes room for `players` more ids of `bytes` UTF-8 bytes in all (loading a board), so the
    /// storage is not grown by doubling past what it needs.
    package mutating func reserve(players: Int, bytes byteCount: Int) {
        bytes.reserveCapacity(bytes.count + byteCount)
        ends.reserveCapacity(ends.count + players)
        let needed = Self.bucketCount(for: ends.count + players)
        if needed > buckets.count { rehash(to: needed) }
    }

    /// The number of an id, if interned.
    package func id(of name: String) -> PlayerID? {
        var name = name
        return name.withUTF8 { find($0).found }
    }

    /// The number of an id, interning it first if needed.
    package mutating func intern(_ name: String) -> PlayerID {
        var name = name
        return name.withUTF8 { utf8 in
            if buckets.isEmpty { rehash(to: 16) }
            let (found, bucket, tag) = find(utf8)
            if let found { return found }
            precondition(
                ends.count < Int(UInt32.max) - 1 && bytes.count + utf8.count <= Int(UInt32.max), "too many player ids")
            let id = PlayerID(raw: UInt32(ends.count))
            bytes.append(contentsOf: utf8)
            ends.append(UInt32(bytes.count))
            buckets[bucket] = tag << 32 | UInt64(id.raw + 1)
            if ends.count > buckets.count / 4 * 3 { rehash(to: buckets.count * 2) }
            return id
        }
    }

    /// The id of an interned player.
    package func name(of id: PlayerID) -> String {
        bytes.withUnsafeBufferPointer {
            String(decoding: UnsafeBufferPointer(rebasing: $0[range(of: id)]), as: UTF8.self)
        }
    }

    /// Whether `a`'s id sorts before `b`'s, as `String`'s `<` orders them.
    package func precedes(_ a: PlayerID, _ b: PlayerID) -> Bool {
        if a == b { return false }
        return bytes.withUnsafeBufferPointer { all in
            Self.precedes(
                UnsafeBufferPointer(rebasing: all[range(of: a)]), UnsafeBufferPointer(rebasing: all[range(of: b)]))
        }
    }

    /// Whether the interned `a`'s id sorts before `name`, as `String`'s `<` orders them.
    package func precedes(_ a: PlayerID, _ name: String) -> Bool {
        var name = name
        return name.withUTF8 { utf8 in
            bytes.withUnsafeBufferPointer { all in Self.precedes(UnsafeBufferPointer(rebasing: all[range(of: a)]), utf8)
            }
        }
    }

    /// String order on UTF-8: byte order for ASCII ids (all valid ids are ASCII); otherwise
    /// `String`'s own comparison (Unicode canonical ordering), which byte order need not match,
    /// and byte order between two encodings of the same text (two players here and in the store,
    /// so the order stays total).
    private static func precedes(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Bool {
        if a.allSatisfy({ $0 < 0x80 }) && b.allSatisfy({ $0 < 0x80 }) { return a.lexicographicallyPrecedes(b) }
        let (left, right) = (String(decoding: a, as: UTF8.self), String(decoding: b, as: UTF8.self))
        return left == right ? a.lexicographicallyPrecedes(b) : left < right
    }

    private func range(of id: PlayerID) -> Range<Int> {
        let index = Int(id.raw)
        return (index == 0 ? 0 : Int(ends[index - 1]))..<Int(ends[index])
    }

    /// The player with these bytes (if any), the bucket where the search ended and the hash's
    /// tag (its high 32 bits).
    private func find(_ utf8: UnsafeBufferPointer<UInt8>) -> (found: PlayerID?, bucket: Int, tag: UInt64) {
        guard !buckets.isEmpty else { return (nil, 0, 0) }
        let mask = buckets.count - 1
        let hash = hash(utf8)
        let tag = UInt64(UInt(bitPattern: hash)) >> 32
        var bucket = hash & mask
        return bytes.withUnsafeBufferPointer { all in
            while true {
                let entry = buckets[bucket]
                if entry == 0 { return (nil, bucket, tag) }
                if entry >> 32 == tag {
                    let id = PlayerID(raw: UInt32(truncatingIfNeeded: entry) - 1)
                    if UnsafeBufferPointer(rebasing: all[range(of: id)]).elementsEqual(utf8) {
                        return (id, bucket, tag)
                    }
                }
                bucket = (bucket + 1) & mask
            }
        }
    }

    private func hash(_ utf8: UnsafeBufferPointer<UInt8>) -> Int {
        var hasher = Hasher()
        hasher.combine(seed)
        hasher.combine(bytes: UnsafeRawBufferPointer(utf8))
        return hasher.finalize()
    }

    /// The smallest power-of-two bucket count that keeps `players` at most three quarters full.
    private static func bucketCount(for players: Int) -> Int {
        var count = 16
        while players > count / 4 * 3 { count *= 2 }
        return count
    }

    private mutating func rehash(to count: Int) {
        var fresh = [UInt64](repeating: 0, count: count)
        let mask = count - 1
        bytes.withUnsafeBufferPointer { all in
            for index in 0..<ends.count {
                let id = PlayerID(raw: UInt32(index))
                let hash = hash(UnsafeBufferPointer(rebasing: all[range(of: id)]))
                var bucket = hash & mask
                while fresh[bucket] != 0 { bucket = (bucket + 1) & mask }
                fresh[bucket] = UInt64(UInt(bitPattern: hash)) & 0xFFFF_FFFF_0000_0000 | UInt64(id.raw + 1)
            }
        }
        buckets = fresh
    }
}
