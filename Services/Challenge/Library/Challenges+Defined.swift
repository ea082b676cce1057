import PodiumMessages
import PodiumRuntime

/// The rules defined and time-boxed challenges add: the live standings, and a definition that is
/// taken on once.
extension Challenges {
    /// `challenge.standings`: the live order of a time-boxed challenge the player takes part in.
    func standings(_ request: RawEnvelope, challengeId: String, context: ServiceContext) async throws
        -> ChallengeStandingsReply
    {
        let (gameId, playerId) = try Self.player(request)
        guard let challenge = try await store.challenge(challengeId), challenge.gameId == gameId,
            challenge.kind == .timed,
            request.actor?.kind != .player || challenge.receivers.contains(where: { $0.playerId == playerId })
        else {
            throw ErrorReply(
                code: .unknownChallenge, message: "no time-boxed challenge of yours with that id",
                field: "payload.challengeId")
        }
        let board = try await ServiceQuestions.board(challenge.boardId ?? "", gameId: gameId, context: context)
        return ChallengeStandingsReply(
            challengeId: challengeId, state: challenge.state ?? .running, endsAt: challenge.endsAt,
            standings: ChallengeStandings.ranked(challenge.receivers, higherIsBetter: board.sortOrder != .lowerIsBetter)
        )
    }

    /// A definition that is not repeatable is taken on once: nobody may start one with a player
    /// who took part in a challenge of it already (running or ended).
    func checkFirstTime(_ definition: ChallengeDefinition, players: [String], issuer: String, gameId: String)
        async throws
    {
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
}
