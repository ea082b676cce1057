import Foundation
import PodiumMessages

/// The gateway's request handling as every front sees it, whatever its transport: the ZeroMQ
/// front (``ZeroMQFront``), the HTTP front and its WebSockets (``GatewayHTTPFront``), and the
/// console. A front turns what it read into a request body or object and a
/// ``ClientConnection``; the pipeline answers each request exactly once on that connection.
protocol RequestPipeline: Sendable {
    /// Handles one request as its client sent it (JSON bytes); its reply, or error, goes to
    /// `connection.deliver` (or `connection.deliverEncoded`).
    func handle(_ body: Data, from connection: ClientConnection) async

    /// Handles a request a front already holds as a JSON object (HTTP builds one from its route,
    /// a WebSocket adds its credential to one): no second writing and parsing of it.
    func handle(_ object: JSONValue, from connection: ClientConnection) async

    /// Runs one request for a front that waits for each reply (HTTP, a WebSocket's hello, the
    /// console) and returns the reply envelope.
    func call(_ object: JSONValue, from key: ClientConnection.Key, peer: String?) async -> RawEnvelope
}

/// A reply as a front that waits for it gets it: decoded, or the envelope's bytes as the
/// service (or the gateway's read cache) wrote them.
enum CalledReply: Sendable {
    case decoded(RawEnvelope)
    case encoded(Data)
}

extension RequestPipeline {
    /// The pipeline with a connection whose one reply ends the wait.
    func call(_ object: JSONValue, from key: ClientConnection.Key, peer: String?) async -> RawEnvelope {
        let slot = ReplySlot<RawEnvelope>()
        await handle(object, from: ClientConnection(key: key, peer: peer, deliver: slot.fill))
        return await slot.reply()
    }

    /// ``call(_:from:peer:)`` for a front that can take a successful reply's bytes as they are
    /// (HTTP, whose body is the payload's text): a reply the gateway passes on is not decoded.
    func callTakingEncoded(_ object: JSONValue, from key: ClientConnection.Key, peer: String?) async -> CalledReply {
        let slot = ReplySlot<CalledReply>()
        await handle(
            object,
            from: ClientConnection(
                key: key, peer: peer, deliver: { await slot.fill(.decoded($0)) },
                deliverEncoded: { await slot.fill(.encoded($0)) }))
        return await slot.reply()
    }
}
