import Foundation

/// What a WebSocket connection gives the socket's run loop: a text message, or the end with the
/// close code the server sent (nil when the connection dropped without one).
enum SocketIncoming: Sendable, Equatable {
    case text(String)
    case closed(code: Int?, reason: String?)
}

/// One open WebSocket. `receive()` is called by one task at a time (the socket's run loop) until
/// it returns ``SocketIncoming/closed(code:reason:)``.
protocol SocketConnection: Sendable {
    func send(_ text: String) async throws
    func receive() async throws -> SocketIncoming
    /// Starts the closing handshake; `receive()` then ends with the server's answer.
    func close(code: Int, reason: String) async
}

/// Opens connections: URLSessionWebSocketTask on Apple platforms, SwiftNIO's client on Linux.
protocol SocketConnector: Sendable {
    func connect(to url: URL, timeout: Duration) async throws -> any SocketConnection
}

enum SocketConnectors {
    /// The platform's connector.
    static var platform: any SocketConnector {
        #if os(Linux)
            NIOSocketConnector()
        #else
            URLSessionSocketConnector()
        #endif
    }
}
