import PodiumMessages
import PodiumRuntime

/// `account.export` (docs/PROTOCOL.md 8.15): everything Podium holds about a player as one
/// document. Each service answers its part (`<service>.export`); the gateway adds the player's
/// events from its log. An export is complete or refused: a service that does not answer fails
/// the whole request with its error.
extension GatewayPipeline {
    func export(_ request: ClientRequest, actor: Actor, playerId: String?) async throws -> PlayerExport {
        let asked = try RequestDecoder.payload(request.payload, as: ExportRequest.self)
        let subject: String
        switch actor.kind {
        case .player:
            guard let own = playerId else {
                throw ErrorReply(code: .unauthenticated, message: "log in to export your data")
            }
            if let other = asked.playerId, other != own {
                throw ErrorReply(
                    code: .forbidden, message: "a player exports only their own data", field: "payload.playerId")
            }
            subject = own
        case .admin:
            guard let named = asked.playerId ?? request.playerId else {
                throw ErrorReply(code: .missingField, message: "name the player to export", field: "payload.playerId")
            }
            subject = named
        default:
            throw ErrorReply(code: .forbidden, message: "exports are for the player or the operator")
        }
        let target = ExportTarget(playerId: subject)
        // The account first: an unknown player is refused before the others are asked.
        let account = try await part(AuthRequests.export, target)
        async let leaderboards = part(LeaderboardRequests.export, target)
        async let achievements = part(AchievementRequests.export, target)
        async let challenges = part(ChallengeRequests.export, target)
        let logged = try await eventLog.store.events(ofPlayer: subject, limit: ExportedEvent.maximum)
        let events = logged.compactMap { message -> ExportedEvent? in
            guard let event = try? message.envelope.decodePayload(as: GameEvent.self) else { return nil }
            return ExportedEvent(
                sequence: message.envelope.sequence ?? 0, gameId: message.envelope.gameId ?? "",
                acceptedAt: message.envelope.timestamp, event: event)
        }
        return PlayerExport(
            playerId: subject, exportedAt: clock.nowMilliseconds, account: account,
            leaderboards: try await leaderboards, achievements: try await achievements,
            challenges: try await challenges, events: events)
    }

    /// One service's part, or its error.
    private func part<Reply>(_ definition: RequestDefinition<ExportTarget, Reply>, _ target: ExportTarget)
        async throws -> Reply
    {
        let answer = await router.ask(
            definition.type, payload: try WireCodec.jsonValue(target), timeout: settings.requestTimeout)
        if answer.type == .reply { return try answer.decodePayload(as: Reply.self) }
        throw (try? answer.decodePayload(as: ErrorReply.self))
            ?? ErrorReply(code: .internalError, message: "the \(definition.info.owner) service's part was unreadable")
    }
}
