import Foundation
import PodiumMessages

/// The typed half of every client, whatever carries the bytes: a ``RequestDefinition`` and its
/// payload become a ``ClientRequest``; the reply becomes the definition's reply type or a
/// ``PodiumClientError``. ``PodiumClient``, ``BlockingPodiumClient`` and the console's in-process
/// path all go through it, so that no request is built as a dictionary by hand.
public enum RequestCodec {
    /// The request for a typed call. An ``EmptyPayload`` is left out (the protocol reads an
    /// absent payload as `{}`), as clients always sent it.
    public static func request<Payload, Reply>(
        _ definition: RequestDefinition<Payload, Reply>, _ payload: Payload, id: String, gameId: String? = nil,
        playerId: String? = nil, credential: ClientCredential = .none
    ) throws -> ClientRequest {
        let value: JSONValue?
        do {
            value = Payload.self == EmptyPayload.self ? nil : try WireCodec.jsonValue(payload)
        } catch {
            throw PodiumClientError(
                kind: .sendFailed, type: definition.type, requestId: id, detail: "the payload does not encode: \(error)"
            )
        }
        var request = ClientRequest(type: definition.type, id: id, gameId: gameId, playerId: playerId, payload: value)
        credential.apply(to: &request)
        return request
    }

    /// The typed reply to `request`, or its error; nil (no reply in time) is ``PodiumClientError/Kind/noReply``.
    public static func reply<Reply: Codable & Sendable>(
        _ received: ReceivedReply?, to request: ClientRequest, as type: Reply.Type, timeout: Duration
    ) throws -> PodiumReply<Reply> {
        guard let received else {
            throw PodiumClientError(
                kind: .noReply, type: request.type, requestId: request.id, detail: "within \(timeout)")
        }
        return PodiumReply(request: request, received: received)
    }
}

/// Request ids unique to one client instance: a random prefix and a counter. Ids of
/// state-changing requests are idempotency keys, so a new client (a new run of the CLI, a
/// restarted test) must never repeat an earlier one's ids.
public struct RequestIDs: Sendable {
    public let prefix: String

    /// `prefix` is put before the random part (`cli-`, `t-`, `console-`).
    public init(prefix: String, randomCharacters: Int = 13) {
        self.prefix = prefix + UUID().uuidString.prefix(randomCharacters).lowercased() + "-"
    }

    /// The id numbered `number`.
    public func id(_ number: Int) -> String { prefix + String(number) }
}
