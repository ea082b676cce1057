import PodiumMessages
import PodiumRuntime

/// Game events as runs of defined challenges (a definition's `runEvent`), read from the
/// gateway's event log like scores from the leaderboard's outbox.
extension Challenges {
    /// One run of each running challenge of a definition that names the event, that the player
    /// takes part in and whose window holds the event's time; only the one the event's
    /// `challengeId` attribute names, when it carries one. Its value is the event's `value` (or
    /// the attribute the definition measures); an event without one is not a run.
    func fillRuns(_ plan: inout ChallengeTriggerPlan, event: GameEvent, envelope: RawEnvelope, context: ServiceContext)
        async throws
    {
        guard let gameId = envelope.gameId, let playerId = envelope.playerId else { return }
        let definitions = self.definitions.catalog.definitions(runEvent: event.name, gameId: gameId)
        guard !definitions.isEmpty else { return }
        let named: String? = if case .string(let id)? = event.attributes?["challengeId"] { id } else { nil }
        for boardId in Set(definitions.map(\.leaderboardId)).sorted() {
            let onBoard = definitions.filter { $0.leaderboardId == boardId }
            let windows = try await store.runningTimed(gameId: gameId, boardId: boardId, playerId: playerId).filter {
                window in
                onBoard.contains { $0.id == window.definitionId }
                    && ChallengeLifecycle.inWindow(window, at: envelope.timestamp)
                    && (named == nil || named == window.challengeId)
            }
            guard !windows.isEmpty else { continue }
            let higherIsBetter =
                try await ServiceQuestions.board(boardId, gameId: gameId, context: context).sortOrder != .lowerIsBetter
            for window in windows {
                guard let definition = onBoard.first(where: { $0.id == window.definitionId }),
                    let run = definition.runEvent
                else { continue }
                guard let value = run.value(of: event) else {
                    context.logger.info(
                        "event without a value is not a run",
                        metadata: [
                            "game": "\(gameId)", "event": "\(event.name)", "challenge": "\(window.challengeId)",
                            "measure": "\(run.measureAttribute ?? "value")",
                        ])
                    continue
                }
                plan.timedScores.append((window.challengeId, value, higherIsBetter, true))
            }
        }
    }
}
