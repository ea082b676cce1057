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
/// read from the shared store, operators' definitions, the built-in types).
///
/// * The leaderboard is split by board (`<gameId>/<boardId>`): every view of a board (its top, a
///   player's rank, the friends-only view, its history and archives) and every write to it lives
///   in one partition, and the boards of one popular game still spread over the instances.
/// * Achievements are split by player (`<gameId>/<playerId>`): a player's progress, reports,
///   resets and the events they cause (a consumer group on the event log: each instance applies
///   the events of its players). Rarity percentages are read from the shared store.
/// * Challenges are split by challenge (its id): a challenge's detail, standings,
///   decline, rematch, invite codes and the joining of it; every instance applies the streams'
///   facts to the challenges of its partitions. A new challenge's id is drawn in a partition of
///   the instance that creates it; lists of a player's challenges and the inbox are read from the
///   shared database.
/// * Auth is split too, but no request is keyed: every instance serves every request.
public enum PartitionKey {
    /// The services whose requests carry partition keys.
    public static let partitionedServices: Set<String> = ["leaderboard", "achievement", "challenge"]

    /// The routing key of a request, or nil when any owning instance answers it.
    public static func of(_ envelope: RawEnvelope) -> String? {
        guard let gameId = envelope.gameId else { return nil }
        let payload = envelope.payload
        switch envelope.type {
        case LeaderboardRequests.define.type:
            return payload["definition"]?["id"]?.stringValue.map { board(gameId: gameId, boardId: $0) }
        case LeaderboardRequests.submit.type, LeaderboardRequests.entry.type, LeaderboardRequests.top.type,
            LeaderboardRequests.around.type, LeaderboardRequests.history.type, LeaderboardRequests.archives.type,
            LeaderboardRequests.remove.type, LeaderboardRequests.removeScore.type, LeaderboardRequests.reset.type:
            return payload["boardId"]?.stringValue.map { board(gameId: gameId, boardId: $0) }
        case AchievementRequests.report.type, AchievementRequests.list.type, AchievementRequests.reset.type:
            let subject = envelope.actor?.kind == .player ? envelope.actor?.playerId : envelope.playerId
            return subject.map { player(gameId: gameId, playerId: $0) }
        case ChallengeRequests.detail.type, ChallengeRequests.decline.type, ChallengeRequests.rematch.type,
            ChallengeRequests.standings.type, ChallengeRequests.end.type, ChallengeRequests.invite.type,
            ChallengeRequests.joinChallenge.type:
            return payload["challengeId"]?.stringValue.map { challenge($0) }
        case AchievementRequests.eventEffects.type:
            guard let lookupGame = payload["gameId"]?.stringValue, let playerId = payload["playerId"]?.stringValue
            else { return nil }
            return player(gameId: lookupGame, playerId: playerId)
        default:
            return nil
        }
    }

    /// The key of a leaderboard board.
    public static func board(gameId: String, boardId: String) -> String { "\(gameId)/\(boardId)" }

    /// The key of a challenge: its id (unique across games).
    public static func challenge(_ challengeId: String) -> String { challengeId }

    /// The key of a player's data in a game (achievements).
    public static func player(gameId: String, playerId: String) -> String { "\(gameId)/\(playerId)" }
}
