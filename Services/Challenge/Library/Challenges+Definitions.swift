import PodiumMessages
import PodiumRuntime

/// Challenges the studio defines (Game Center's challenge definitions): listing them, and the
/// rules of starting one.
extension Challenges {
    /// `challenge.definitions`: the game's definitions; a player sees the released ones only.
    func definitions(_ request: RawEnvelope) throws -> [ChallengeDefinition] {
        guard let gameId = request.gameId else { throw ErrorReply(code: .missingField, message: "give the gameId", field: "gameId") }
        let all = catalog.definitions(of: gameId)
        return request.actor?.kind == .player ? all.filter { $0.releaseState == .released } : all
    }

    /// `challenge.standings`: the live order of a time-boxed challenge the player takes part in.
    func standings(_ request: RawEnvelope, challengeId: String, context: ServiceContext) async throws -> ChallengeStandingsReply {
        let (gameId, playerId) = try Self.player(request)
        guard let challenge = try await store.challenge(challengeId), challenge.gameId == gameId, challenge.kind == .timed,
            request.actor?.kind != .player || challenge.receivers.contains(where: { $0.playerId == playerId })
        else {
            throw ErrorReply(code: .unknownChallenge, message: "no time-boxed challenge of yours with that id", field: "payload.challengeId")
        }
        let board = try await Self.board(challenge.boardId ?? "", gameId: gameId, context: context)
        return ChallengeStandingsReply(
            challengeId: challengeId, state: challenge.state ?? .running, endsAt: challenge.endsAt,
            standings: ChallengeStandings.ranked(challenge.receivers, higherIsBetter: board.sortOrder != .lowerIsBetter))
    }

    /// A definition that is not repeatable is taken on once: nobody may start one with a player
    /// who took part in a challenge of it already (running or ended).
    func checkFirstTime(_ definition: ChallengeDefinition, players: [String], issuer: String, gameId: String) async throws {
        for player in players {
            let taken = try await store.challenges(gameId: gameId, playerId: player, issued: false, state: nil)
                .contains { $0.definitionId == definition.id }
            guard !taken else {
                throw ErrorReply(
                    code: .conflict,
                    message: player == issuer
                        ? "you took on '\(definition.id)' already, and it is not repeatable"
                        : "\(player) took on '\(definition.id)' already, and it is not repeatable",
                    field: player == issuer ? "payload.definitionId" : "payload.receivers")
            }
        }
    }

    /// The definition a `challenge.start` names, checked for the player and the duration asked.
    func definition(_ id: String, gameId: String, duration: Int64, actor: Actor?) throws -> ChallengeDefinition {
        guard let definition = catalog.definition(id, gameId: gameId),
            definition.releaseState == .released || actor?.kind != .player
        else {
            throw ErrorReply(code: .invalidField, message: "the game has no challenge '\(id)'", field: "payload.definitionId")
        }
        guard definition.durations.contains(duration) else {
            throw ErrorReply(
                code: .invalidField,
                message: "'\(id)' is played for \(definition.durations.map(String.init).joined(separator: ", ")) ms",
                field: "payload.durationMilliseconds")
        }
        return definition
    }

    // MARK: Operators

    /// The game files' definitions with the operators' changes as the store has them now (for
    /// an instance that takes over from another owner, which may have changed them).
    func reloadDefinitions(over files: ChallengeCatalog) async throws {
        try await definitionChanges.withLock {
            var fresh = files
            fresh.apply(try await store.operatorDefinitions())
            definitionsNow.withLock { $0 = fresh }
        }
    }

    /// `challenge.admin.define`: checked by the game files' rules against the game's boards as
    /// the leaderboard service has them now; kept, then offered.
    func define(_ change: ChallengeDefinitionChange, gameId: String, context: ServiceContext) async throws -> ChallengeDefinitionChange {
        guard Identifiers.isValidID(gameId) else { throw ErrorReply(code: .invalidField, message: "bad game id", field: "gameId") }
        let definition = change.definition
        let boards = Set(try await context.call(LeaderboardRequests.boards, EmptyPayload(), gameId: gameId).leaderboards.map(\.id))
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
        try await definitionChanges.withLock {
            try await store.saveDefinition(definition, gameId: gameId)
            definitionsNow.withLock { $0.define(definition, gameId: gameId) }
        }
        context.logger.notice("challenge definition changed", metadata: ["game": "\(gameId)", "definition": "\(definition.id)"])
        return ChallengeDefinitionChange(definition: definition)
    }

    /// `challenge.admin.remove`: no longer offered or startable; running challenges of it run on.
    /// Removing one removed already changes nothing and says so (`removed: false`), so that a
    /// resend after a lost reply is answered like the first.
    func removeDefinition(_ target: ChallengeDefinitionTarget, gameId: String, context: ServiceContext) async throws -> ChallengeDefinitionRemoval {
        let removedBefore = try await definitionChanges.withLock { () async throws -> Bool in
            guard catalog.definition(target.definitionId, gameId: gameId) != nil else {
                let changes = try await store.operatorDefinitions()
                if changes.contains(where: { $0.gameId == gameId && $0.definitionId == target.definitionId && $0.definition == nil }) {
                    return true
                }
                throw ErrorReply(
                    code: .unknownChallenge, message: "game '\(gameId)' has no challenge definition '\(target.definitionId)'",
                    field: "payload.definitionId")
            }
            try await store.removeDefinition(target.definitionId, gameId: gameId)
            definitionsNow.withLock { $0.remove(target.definitionId, gameId: gameId) }
            return false
        }
        if removedBefore { return ChallengeDefinitionRemoval(definitionId: target.definitionId, removed: false) }
        context.logger.notice("challenge definition removed", metadata: ["game": "\(gameId)", "definition": "\(target.definitionId)"])
        return ChallengeDefinitionRemoval(definitionId: target.definitionId, removed: true)
    }
}
