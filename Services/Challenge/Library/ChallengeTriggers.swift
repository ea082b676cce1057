import PodiumMessages

/// What a score or an achievement may complete or count for one player: the key a batch of
/// stream messages is read by, and what the store holds for it.
public struct ChallengeTrigger: Hashable, Sendable {
    public var gameId: String
    public var playerId: String
    public var kind: ChallengeKind
    /// The board (score) or achievement id.
    public var target: String

    public init(gameId: String, playerId: String, kind: ChallengeKind, target: String) {
        self.gameId = gameId
        self.playerId = playerId
        self.kind = kind
        self.target = target
    }
}

/// The challenges a trigger touches: pending receivers of its kind and target, and (for a
/// score) the windows of running time-boxed challenges on its board that include the player.
public struct TriggerCandidates: Sendable {
    public var pending: [PendingReceiver]
    public var timed: [TimedWindow]

    public init(pending: [PendingReceiver] = [], timed: [TimedWindow] = []) {
        self.pending = pending
        self.timed = timed
    }
}

extension ChallengeStore {
    /// The candidates of every trigger, one read at a time (a store that can read them all at
    /// once implements this itself).
    public func candidates(for triggers: Set<ChallengeTrigger>) async throws -> [ChallengeTrigger: TriggerCandidates] {
        var found: [ChallengeTrigger: TriggerCandidates] = [:]
        for trigger in triggers {
            var candidates = TriggerCandidates(
                pending: try await pending(
                    gameId: trigger.gameId, playerId: trigger.playerId, kind: trigger.kind, target: trigger.target))
            if trigger.kind == .score {
                candidates.timed = try await runningTimed(
                    gameId: trigger.gameId, boardId: trigger.target, playerId: trigger.playerId)
            }
            found[trigger] = candidates
        }
        return found
    }
}
