import Foundation
import PodiumClient
import PodiumMessages

extension GatewayConnection {
    /// Sends a typed request with `credential` and returns its reply as received, error or not;
    /// no reply in time is a ``CommandFailure``.
    func exchange<Payload, Value>(
        _ definition: RequestDefinition<Payload, Value>, _ payload: Payload, gameId: String? = nil,
        playerId: String? = nil, credential: Credential
    ) throws -> PodiumReply<Value> {
        do {
            return try client.exchange(
                definition, payload, gameId: gameId, playerId: playerId, credential: credential.client)
        } catch let error as PodiumClientError where error.kind == .noReply {
            throw CommandFailure.noReply(from: gateway.endpoint, within: gateway.timeout)
        }
    }

    /// Sends a typed request and decodes its successful reply; an error reply is a ``ReplyFailure``.
    func expectSuccess<Payload, Value>(
        _ definition: RequestDefinition<Payload, Value>, _ payload: Payload, gameId: String? = nil,
        playerId: String? = nil, credential: Credential
    ) throws -> (Value, PodiumReply<Value>) {
        let reply = try exchange(definition, payload, gameId: gameId, playerId: playerId, credential: credential)
        return (try reply.decoded(), reply)
    }

    /// ``expectSuccess(_:_:gameId:playerId:credential:)`` for a request without payload.
    func expectSuccess<Value>(
        _ definition: RequestDefinition<EmptyPayload, Value>, gameId: String? = nil, playerId: String? = nil,
        credential: Credential
    ) throws -> (Value, PodiumReply<Value>) {
        try expectSuccess(definition, EmptyPayload(), gameId: gameId, playerId: playerId, credential: credential)
    }
}
