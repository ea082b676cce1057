#if !os(Linux)
    import Foundation

    #if canImport(FoundationNetworking)
        import FoundationNetworking
    #endif

    /// The WebSocket on Apple platforms: `URLSessionWebSocketTask`, Foundation only.
    struct URLSessionSocketConnector: SocketConnector {
        func connect(to url: URL, timeout: Duration) async throws -> any SocketConnection {
            let task = URLSession.shared.webSocketTask(with: url)
            task.maximumMessageSize = 1 << 22
            task.resume()
            let connection = URLSessionSocketConnection(task: task)
            // The handshake completes before the first pong: wait for one, so that a refused or
            // unreachable socket fails here.
            try await PodiumClient.withTimeout(timeout, requestId: "socket", summary: "GET /v1/socket") {
                try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                    task.sendPing { error in
                        if let error { continuation.resume(throwing: error) } else { continuation.resume() }
                    }
                }
            }
            return connection
        }
    }

    /// `@unchecked Sendable`: `URLSessionWebSocketTask` may be used from any thread, and this
    /// type holds nothing else.
    final class URLSessionSocketConnection: SocketConnection, @unchecked Sendable {
        let task: URLSessionWebSocketTask

        init(task: URLSessionWebSocketTask) { self.task = task }

        func send(_ text: String) async throws { try await task.send(.string(text)) }

        func receive() async throws -> SocketIncoming {
            while true {
                do {
                    switch try await task.receive() {
                    case .string(let text): return .text(text)
                    case .data: continue  // The server sends text only.
                    @unknown default: continue
                    }
                } catch {
                    let code = task.closeCode.rawValue
                    let reason = task.closeReason.map { String(decoding: $0, as: UTF8.self) }
                    return .closed(code: code == 0 ? nil : code, reason: reason ?? "\(error)")
                }
            }
        }

        func close(code: Int, reason: String) async {
            task.cancel(
                with: URLSessionWebSocketTask.CloseCode(rawValue: code) ?? .normalClosure, reason: Data(reason.utf8))
        }
    }
#endif
