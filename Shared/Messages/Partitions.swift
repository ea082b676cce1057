/// Which partition a key (a board, a player) belongs to: FNV-1a over its UTF-8 bytes, modulo
/// the partition count. Stable across processes and releases (never Swift's seeded `hashValue`),
/// so the gateway that routes a request and the instance that serves it agree (docs/SCALING.md).
public struct PartitionMap: Sendable, Equatable {
    public let partitions: Int

    public init(partitions: Int) {
        precondition(partitions > 0)
        self.partitions = partitions
    }

    public func partition(of key: String) -> Int {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in key.utf8 {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01b3
        }
        return Int(hash % UInt64(partitions))
    }
}

/// The key a request of a partitioned service is routed by (docs/PROTOCOL.md 15.5): the gateway
/// sends it to the instance that owns the key's partition, and that instance serves only the keys
/// of its partitions. Nil: any instance that owns a partition of the service answers it (lists
/// read from the shared store, the built-in types).
///
/// The leaderboard is split by board (`<gameId>/<boardId>`): every view of a board (its top, a
/// player's rank, the friends-only view, its history and archives) and every write to it lives
/// in one partition, and the boards of one popular game still spread over the instances.
public enum PartitionKey {
    /// The services whose data is split into partitions by this key.
    public static let partitionedServices: Set<String> = [LeaderboardRequests.submit.type.serviceName]

    /// The routing key of a request, or nil when any owning instance answers it.
    public static func of(_ type: MessageType, gameId: String?, payload: JSONValue) -> String? {
        guard let gameId else { return nil }
        switch type {
        case LeaderboardRequests.define.type:
            return payload["definition"]?["id"]?.stringValue.map { board(gameId: gameId, boardId: $0) }
        case LeaderboardRequests.submit.type, LeaderboardRequests.entry.type, LeaderboardRequests.top.type,
            LeaderboardRequests.around.type, LeaderboardRequests.history.type, LeaderboardRequests.archives.type,
            LeaderboardRequests.remove.type, LeaderboardRequests.removeScore.type, LeaderboardRequests.reset.type:
            return payload["boardId"]?.stringValue.map { board(gameId: gameId, boardId: $0) }
        default:
            return nil
        }
    }

    /// The key of a leaderboard board.
    public static func board(gameId: String, boardId: String) -> String { "\(gameId)/\(boardId)" }
}
