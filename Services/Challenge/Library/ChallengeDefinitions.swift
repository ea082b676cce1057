import PodiumMessages
import PodiumRuntime

/// The challenges the studio defines (Game Center's challenge definitions): the game files'
/// definitions with the operators' changes on top, listed, looked up for a start, and changed by
/// operators (kept in the store, one change at a time, so the store and the catalog change together).
final class ChallengeDefinitions: Sendable {
    let store: any ChallengeStore
    /// The definitions now (``ChallengeCatalog``).
    private let current: Locked<ChallengeCatalog>
    /// Operators' changes, one at a time.
    private let changes = AsyncLock()

    init(store: any ChallengeStore, catalog: ChallengeCatalog = ChallengeCatalog.empty) {
        self.store = store
        current = Locked(catalog)
    }

    /// The definitions now.
    var catalog: ChallengeCatalog { current.value }

    /// `challenge.definitions`: the game's definitions; a player sees the released ones only.
    func list(_ request: RawEnvelope) throws -> [ChallengeDefinition] {
        guard let gameId = request.gameId else {
            throw ErrorReply(code: .missingField, message: "give the gameId", field: "gameId")
        }
        let all = catalog.definitions(of: gameId)
        return request.actor?.kind == .player ? all.filter { $0.releaseState == .released } : all
    }

    /// The definition a `challenge.start` names, checked for the player and the duration asked.
    func definition(_ id: String, gameId: String, duration: Int64, actor: Actor?) throws -> ChallengeDefinition {
        guard let definition = catalog.definition(id, gameId: gameId),
            definition.releaseState == .released || actor?.kind != .player
        else {
            throw ErrorReply(
                code: .invalidField, message: "the game has no challenge '\(id)'", field: "payload.definitionId")
        }
        guard definition.durations.contains(duration) else {
            throw ErrorReply(
                code: .invalidField,
                message: "'\(id)' is played for \(definition.durations.map(String.init).joined(separator: ", ")) ms",
                field: "payload.durationMilliseconds")
        }
        return definition
    }

    /// The game files' definitions with the operators' changes as the store has them now (for
    /// an instance that takes over from another owner, which may have changed them).
    func reload(over files: ChallengeCatalog) async throws {
        try await changes.withLock {
            var fresh = files
            fresh.apply(try await store.operatorDefinitions())
            current.withLock { $0 = fresh }
        }
    }

    /// `challenge.admin.define`: checked by the game files' rules against the game's boards as
    /// the leaderboard service has them now; kept, then offered.
    func define(_ change: ChallengeDefinitionChange, gameId: String, context: ServiceContext) async throws
        -> ChallengeDefinitionChange
    {
        guard Identifiers.isValidID(gameId) else {
            throw ErrorReply(code: .invalidField, message: "bad game id", field: "gameId")
        }
        let definition = change.definition
        let boards = Set(
            try await context.call(LeaderboardRequests.boards, EmptyPayload(), gameId: gameId).leaderboards.map(\.id))
        guard boards.contains(definition.leaderboardId) else {
            throw ErrorReply(
                code: .invalidField, message: "game '\(gameId)' has no leaderboard '\(definition.leaderboardId)'",
                field: "payload.definition.leaderboardId")
        }
        do {
            try catalog.check(definition, gameId: gameId, boards: boards)
        } catch let problem as ConfigurationProblem {
            throw ErrorReply(code: .invalidField, message: problem.description, field: "payload.definition")
        }
        try await changes.withLock {
            try await store.saveDefinition(definition, gameId: gameId)
            current.withLock { $0.define(definition, gameId: gameId) }
        }
        context.logger.notice(
            "challenge definition changed", metadata: ["game": "\(gameId)", "definition": "\(definition.id)"])
        return ChallengeDefinitionChange(definition: definition)
    }

    /// `challenge.admin.remove`: no longer offered or startable; running challenges of it run on.
    /// Removing one removed already changes nothing and says so (`removed: false`), so that a
    /// resend after a lost reply is answered like the first.
    func remove(_ target: ChallengeDefinitionTarget, gameId: String, context: ServiceContext) async throws
        -> ChallengeDefinitionRemoval
    {
        let removedBefore = try await changes.withLock { () async throws -> Bool in
            guard catalog.definition(target.definitionId, gameId: gameId) != nil else {
                let changes = try await store.operatorDefinitions()
                if changes.contains(where: {
                    $0.gameId == gameId && $0.definitionId == target.definitionId && $0.definition == nil
                }) {
                    return true
                }
                throw ErrorReply(
                    code: .unknownChallenge,
                    message: "game '\(gameId)' has no challenge definition '\(target.definitionId)'",
                    field: "payload.definitionId")
            }
            try await store.removeDefinition(target.definitionId, gameId: gameId)
            current.withLock { $0.remove(target.definitionId, gameId: gameId) }
            return false
        }
        if removedBefore { return ChallengeDefinitionRemoval(definitionId: target.definitionId, removed: false) }
        context.logger.notice(
            "challenge definition removed", metadata: ["game": "\(gameId)", "definition": "\(target.definitionId)"])
        return ChallengeDefinitionRemoval(definitionId: target.definitionId, removed: true)
    }
}
