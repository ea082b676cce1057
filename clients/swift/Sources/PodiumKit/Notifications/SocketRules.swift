import Foundation

/// The socket's decisions, as pure functions tested without a socket: what a message from the
/// server is, and what to do when a connection ends (docs/PROTOCOL.md section 21).
enum SocketRules {
    /// A message from the server.
    enum Message: Sendable, Equatable {
        /// The answer to the request whose id is `correlationId`.
        case reply(correlationId: String, payload: PodiumJSON)
        /// An error answer; without a correlation id when the server could not read the request's.
        case error(correlationId: String?, PodiumError)
        case notification(PodiumNotification)
        /// Anything else (not JSON, another type): ignored.
        case other
    }

    /// Reads one text message. Only a `reply` or an `error` answers a request: a notification that
    /// the same request caused carries the same `correlationId`, and may come first.
    static func classify(_ text: String) -> Message {
        guard let json = try? JSONDecoder().decode(PodiumJSON.self, from: Data(text.utf8)) else { return .other }
        let correlationId = json["correlationId"]?.stringValue
        switch json["type"]?.stringValue {
        case "notification":
            return PodiumNotification(envelope: json).map(Message.notification) ?? .other
        case "reply":
            guard let correlationId else { return .other }
            return .reply(correlationId: correlationId, payload: json["payload"] ?? [:])
        case "error":
            return .error(
                correlationId: correlationId, PodiumError.errorPayload(json["payload"], requestId: correlationId))
        default:
            return .other
        }
    }

    /// What to do once a connection has ended.
    enum Action: Sendable, Equatable {
        /// The session token expired: refresh the session, then connect again at once.
        case refreshThenReconnect
        /// Connect again after a backoff.
        case reconnect
        /// Stop for good: a new socket would be refused too. The error says why.
        case stop(PodiumError)
    }

    /// After the server closed the socket with `closeCode` (nil: the connection dropped).
    static func action(closeCode: Int?, reason: String?) -> Action {
        switch closeCode {
        case 4001?:
            return .refreshThenReconnect
        case 4003?:
            return .stop(
                PodiumError(
                    code: .sessionRevoked, message: reason ?? "session revoked: log in again", closeCode: 4003))
        case 4004?:
            return .stop(
                PodiumError(code: .playerBanned, message: reason ?? "player banned", closeCode: 4004))
        case 4005?:
            return .stop(PodiumError(code: .accountDeleted, message: reason ?? "account deleted", closeCode: 4005))
        default:
            return .reconnect
        }
    }

    /// After the server refused the hello.
    static func action(helloError error: PodiumError) -> Action {
        if error.code == .tokenExpired { return .refreshThenReconnect }
        let transient: Set<PodiumErrorCode> = [
            .network, .timeout, .serviceUnavailable, .serviceTimeout, .overloaded, .rateLimited, .storageUnavailable,
        ]
        return transient.contains(error.code) ? .reconnect : .stop(error)
    }
}
