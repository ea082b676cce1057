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
}
