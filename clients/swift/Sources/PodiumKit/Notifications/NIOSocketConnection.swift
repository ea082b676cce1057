#if os(Linux)
    import Foundation
    import NIOCore
    import NIOHTTP1
    import NIOPosix
    import NIOSSL
    import NIOWebSocket

    /// The WebSocket on Linux, on SwiftNIO's WebSocket client upgrader.
    ///
    /// Why not FoundationNetworking's `URLSessionWebSocketTask`: it needs a libcurl built with
    /// WebSocket support, which Debian's is not. Why not WSClient (swift-websocket): it always sends
    /// `Origin: ws://<host>`, and the gateway refuses a WebSocket whose origin is not in
    /// `PODIUM_HTTP_ALLOWED_ORIGINS` (docs/PROTOCOL.md section 21: a client without an `Origin`, not
    /// a browser, may connect). This one sends none, as a game's native client should.
    struct NIOSocketConnector: SocketConnector {
        /// The largest message read: replies larger than a request may be (an inbox page).
        static let maxMessageBytes = 1 << 22

        private enum Upgrade: Sendable {
            case websocket(NIOAsyncChannel<WebSocketFrame, WebSocketFrame>)
            case refused
        }

        func connect(to url: URL, timeout: Duration) async throws -> any SocketConnection {
            guard let host = url.host, let scheme = url.scheme?.lowercased(), scheme == "ws" || scheme == "wss" else {
                throw PodiumError(code: .invalidField, message: "not a WebSocket URL: \(url)", field: "socketURL")
            }
            let secure = scheme == "wss"
            let port = url.port ?? (secure ? 443 : 80)
            let path = (url.path.isEmpty ? "/" : url.path) + (url.query.map { "?\($0)" } ?? "")
            let hostHeader = url.port == nil ? host : "\(host):\(port)"
            do {
                let tls = secure ? try NIOSSLContext(configuration: .makeClientConfiguration()) : nil
                return try await PodiumClient.withTimeout(timeout, requestId: "socket", summary: "GET \(path)") {
                    let upgrade: EventLoopFuture<Upgrade> = try await ClientBootstrap(
                        group: MultiThreadedEventLoopGroup.singleton
                    )
                    .connectTimeout(.milliseconds(timeout.milliseconds))
                    .connect(host: host, port: port) { channel in
                        channel.eventLoop.makeCompletedFuture {
                            if let tls {
                                try channel.pipeline.syncOperations.addHandler(
                                    NIOSSLClientHandler(context: tls, serverHostname: host))
                            }
                            let upgrader = NIOTypedWebSocketClientUpgrader<Upgrade>(
                                maxFrameSize: Self.maxMessageBytes,
                                upgradePipelineHandler: { channel, _ in
                                    channel.eventLoop.makeCompletedFuture {
                                        try channel.pipeline.syncOperations.addHandler(
                                            NIOWebSocketFrameAggregator(
                                                minNonFinalFragmentSize: 0, maxAccumulatedFrameCount: 1 << 16,
                                                maxAccumulatedFrameSize: Self.maxMessageBytes))
                                        return Upgrade.websocket(
                                            try NIOAsyncChannel<WebSocketFrame, WebSocketFrame>(
                                                wrappingChannelSynchronously: channel))
                                    }
                                })
                            var headers = HTTPHeaders()
                            headers.add(name: "Host", value: hostHeader)
                            headers.add(name: "Content-Length", value: "0")
                            let head = HTTPRequestHead(version: .http1_1, method: .GET, uri: path, headers: headers)
                            let configuration = NIOTypedHTTPClientUpgradeConfiguration(
                                upgradeRequestHead: head, upgraders: [upgrader],
                                notUpgradingCompletionHandler: { channel in
                                    channel.eventLoop.makeCompletedFuture { Upgrade.refused }
                                })
                            return try channel.pipeline.syncOperations.configureUpgradableHTTPClientPipeline(
                                configuration: .init(upgradeConfiguration: configuration))
                        }
                    }
                    switch try await upgrade.get() {
                    case .websocket(let channel):
                        return NIOSocketConnection(channel: channel)
                    case .refused:
                        throw PodiumError(code: .network, message: "\(url) refused the WebSocket upgrade")
                    }
                }
            } catch let error as PodiumError {
                throw error
            } catch {
                throw PodiumError(code: .network, message: "could not open the WebSocket \(url): \(error)")
            }
        }
    }

    /// One open WebSocket: a task reads frames (answering pings, echoing the server's close) and
    /// writes what `send` and `close` queue, masked as a client must (RFC 6455 5.3).
    ///
    /// `@unchecked Sendable`: the streams' continuations are thread-safe, `closing` is behind a
    /// lock, and `iterator` is used only by `receive()`, which one task calls at a time (the
    /// socket's run loop).
    final class NIOSocketConnection: SocketConnection, @unchecked Sendable {
        private let incomingContinuation: AsyncStream<SocketIncoming>.Continuation
        private let outgoingContinuation: AsyncStream<WebSocketFrame>.Continuation
        private var iterator: AsyncStream<SocketIncoming>.AsyncIterator
        private let closing = Locked(false)
        private let runner = Locked<Task<Void, Never>?>(nil)

        init(channel: NIOAsyncChannel<WebSocketFrame, WebSocketFrame>) {
            let (incoming, incomingContinuation) = AsyncStream<SocketIncoming>.makeStream()
            let (outgoing, outgoingContinuation) = AsyncStream<WebSocketFrame>.makeStream()
            self.incomingContinuation = incomingContinuation
            self.outgoingContinuation = outgoingContinuation
            iterator = incoming.makeAsyncIterator()
            let closing = self.closing
            runner.set(
                Task {
                    var end = SocketIncoming.closed(code: nil, reason: "the connection ended")
                    do {
                        try await channel.executeThenClose { inbound, outbound in
                            try await withThrowingTaskGroup(of: Void.self) { group in
                                group.addTask {
                                    for await frame in outgoing { try await outbound.write(frame) }
                                }
                                reading: for try await frame in inbound {
                                    switch frame.opcode {
                                    case .text:
                                        incomingContinuation.yield(.text(String(buffer: frame.unmaskedData)))
                                    case .ping:
                                        outgoingContinuation.yield(Self.frame(.pong, frame.unmaskedData))
                                    case .connectionClose:
                                        var data = frame.unmaskedData
                                        let code = data.readInteger(as: UInt16.self).map(Int.init)
                                        let reason = data.readString(length: data.readableBytes)
                                        end = .closed(code: code, reason: reason)
                                        // The closing handshake: answer the server's close with one.
                                        if !closing.withLock({ was in
                                            defer { was = true }
                                            return was
                                        }) {
                                            outgoingContinuation.yield(Self.closeFrame(code: code ?? 1000, reason: ""))
                                        }
                                        break reading
                                    default:
                                        break
                                    }
                                }
                                outgoingContinuation.finish()
                                try? await group.waitForAll()
                            }
                        }
                    } catch {
                        if case .closed(nil, _) = end { end = .closed(code: nil, reason: "\(error)") }
                    }
                    incomingContinuation.yield(end)
                    incomingContinuation.finish()
                })
        }

        deinit {
            outgoingContinuation.finish()
            runner.get()?.cancel()
        }

        private static func frame(_ opcode: WebSocketOpcode, _ data: ByteBuffer) -> WebSocketFrame {
            WebSocketFrame(fin: true, opcode: opcode, maskKey: .random(), data: data)
        }

        private static func closeFrame(code: Int, reason: String) -> WebSocketFrame {
            var data = ByteBuffer()
            data.writeInteger(UInt16(clamping: code))
            data.writeString(reason)
            return frame(.connectionClose, data)
        }

        func send(_ text: String) async throws {
            guard !closing.get(),
                case .enqueued = outgoingContinuation.yield(Self.frame(.text, ByteBuffer(string: text)))
            else {
                throw PodiumError(code: .network, message: "the socket is closed")
            }
        }

        func receive() async throws -> SocketIncoming {
            await iterator.next() ?? .closed(code: nil, reason: "the connection ended")
        }

        func close(code: Int, reason: String) async {
            guard
                !closing.withLock({ was in
                    defer { was = true }
                    return was
                })
            else { return }
            outgoingContinuation.yield(Self.closeFrame(code: code, reason: reason))
        }
    }
#endif
