import PodiumMessages

/// A request as a typed handler gets it: its decoded payload and the envelope it came in, from a
/// caller its ``RequestDefinition``'s access admits.
public struct ServiceRequest<Payload: Sendable>: Sendable {
    /// The payload, decoded and shape-checked.
    public let payload: Payload
    /// The envelope (ids, game, player, actor) as the gateway forwarded it.
    public let envelope: RawEnvelope

    /// Who the request acts for, as the gateway established it.
    public var caller: Actor { envelope.actor ?? Actor(kind: .anonymous) }

    /// The game the request names, if any.
    public var gameId: String? { envelope.gameId }

    /// The game the request is for, or `missing_field` (field `gameId`).
    public func game() throws(ErrorReply) -> String {
        guard let gameId = envelope.gameId else {
            throw ErrorReply(code: .missingField, message: "give the gameId", field: "gameId")
        }
        return gameId
    }

    /// The player the request is about (``Envelope/subjectPlayer()``).
    public func subjectPlayer() throws(ErrorReply) -> String { try envelope.subjectPlayer() }

    /// The player whose session token sent the request, and the session (types with
    /// ``RequestAccess/player`` access).
    public func session() throws(ErrorReply) -> (playerId: String, sessionId: String) {
        guard caller.kind == .player, let playerId = caller.playerId, let sessionId = caller.sessionId
        else {
            throw ErrorReply(
                code: .forbidden, message: "'\(envelope.type)' needs a player's session token")
        }
        return (playerId, sessionId)
    }

    /// The player whose session token sent the request.
    public func player() throws(ErrorReply) -> String { try session().playerId }
}

/// A typed handler, ready for the runtime: the type it answers and the untyped handler that
/// checks access, decodes the payload, runs it and encodes its reply.
public struct TypedRequestHandler: Sendable {
    public let type: MessageType
    public let handler: RequestHandler
}

extension RequestDefinition {
    /// The handler of this type: `body` runs only for a caller the access admits (else
    /// `unauthenticated` or `forbidden`) and with a payload of the right shape (else
    /// `missing_field` or `invalid_shape` with the field's path).
    public func handler(
        _ body: @escaping @Sendable (ServiceRequest<Payload>, ServiceContext) async throws -> Reply
    ) -> TypedRequestHandler {
        let info = self.info
        return TypedRequestHandler(type: info.type) { envelope, context in
            let kind = envelope.actor?.kind
            guard info.access.admits(kind) else { throw info.access.refusal(of: info.type, kind: kind) }
            let payload = try envelope.requestPayload(as: Payload.self)
            return try WireCodec.jsonValue(
                try await body(ServiceRequest(payload: payload, envelope: envelope), context))
        }
    }
}
