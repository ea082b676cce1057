import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdWebSocket
import NIOCore

/// What a route handler knows of the request besides the request itself: the client's address.
struct HTTPFrontContext: RequestContext, WebSocketRequestContext {
    var coreContext: CoreRequestContextStorage
    let remoteAddress: SocketAddress?
    let webSocket: WebSocketHandlerReference<HTTPFrontContext>
    /// The client's address as a trusted proxy named it (``ClientAddressMiddleware``); nil when
    /// the request came straight from the client.
    var forwardedClient: String?

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        remoteAddress = source.channel.remoteAddress
        webSocket = .init()
    }

    /// The client's IP address: its rate limits and in-flight share are the address's.
    var connectionKey: ClientConnection.Key {
        ClientConnection.Key(transport: .http, id: Data((peer ?? "unknown").utf8))
    }

    /// The client's IP address, without a port: what login throttling and the audit log see.
    var peer: String? {
        forwardedClient ?? remoteAddress?.ipAddress
    }
}

/// Sets ``HTTPFrontContext/forwardedClient`` from `X-Forwarded-For` when the connection comes
/// from a trusted proxy (``TrustedProxies``); does nothing when none is configured.
struct ClientAddressMiddleware: RouterMiddleware {
    typealias Context = HTTPFrontContext
    let proxies: TrustedProxies
    static let forwardedFor = HTTPField.Name("X-Forwarded-For")!

    func handle(
        _ request: Request, context: HTTPFrontContext, next: (Request, HTTPFrontContext) async throws -> Response
    ) async throws
        -> Response
    {
        guard !proxies.isEmpty, let remote = context.remoteAddress?.ipAddress else {
            return try await next(request, context)
        }
        var context = context
        let client = proxies.clientAddress(remote: remote, forwardedFor: request.headers[values: Self.forwardedFor])
        if client != remote { context.forwardedClient = client }
        return try await next(request, context)
    }
}
