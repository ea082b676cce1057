import Foundation
import PodiumMessages

/// The transport a client's request arrived by. The request pipeline never looks at it except to
/// keep connections of different transports apart and to say in logs where a request came from.
enum ClientTransport: String, Sendable {
    /// The request ROUTER (`PODIUM_GATEWAY_REQUESTS`).
    case zeromq
    /// The HTTP front (`PODIUM_HTTP`).
    case http
    /// A WebSocket on the HTTP front (`/v1/socket`).
    case websocket
}

/// One client connection as the request pipeline sees it, whatever its transport: who it is
/// (for rate limits, in-flight caps and duplicate request ids), where it is (for logs), and how
/// the one reply to each of its requests goes back.
struct ClientConnection: Sendable {
    /// Identifies the connection among all the gateway's connections.
    struct Key: Hashable, Sendable {
        let transport: ClientTransport
        /// Unique within the transport: a ZeroMQ routing id; for HTTP the client's IP address
        /// (HTTP clients open and close connections freely, so their limits follow the address);
        /// for a WebSocket, an id of its own.
        let id: Data
    }

    let key: Key
    /// The client's address, when the transport knows it.
    let peer: String?
    /// Sends one reply envelope (a reply or an error) back to the client, written as its
    /// transport needs it. Called exactly once per request.
    let deliver: @Sendable (RawEnvelope) async -> Void
    /// Sends a successful reply already encoded as the envelope the client gets, for transports
    /// that carry envelopes as they are (a ZeroMQ or WebSocket client): the gateway passes a
    /// service's reply on without decoding and encoding it again. nil: only ``deliver``.
    var deliverEncoded: (@Sendable (Data) async -> Void)? = nil
}
