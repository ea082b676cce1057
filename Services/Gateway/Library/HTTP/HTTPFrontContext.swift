import Foundation
import Hummingbird
import HummingbirdWebSocket
import NIOCore

/// What a route handler knows of the request besides the request itself: the client's address.
struct HTTPFrontContext: RequestContext, WebSocketRequestContext {
    var coreContext: CoreRequestContextStorage
    let remoteAddress: SocketAddress?
    let webSocket: WebSocketHandlerReference<HTTPFrontContext>

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        remoteAddress = source.channel.remoteAddress
        webSocket = .init()
    }

    /// The client's IP address: its rate limits and in-flight share are the address's.
    var connectionKey: ClientConnection.Key {
        ClientConnection.Key(transport: .http, id: Data((remoteAddress?.ipAddress ?? "unknown").utf8))
    }

    var peer: String? {
        guard let remoteAddress, let ip = remoteAddress.ipAddress else { return nil }
        return "\(ip):\(remoteAddress.port ?? 0)"
    }
}
