import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdCore
import HummingbirdWebSocket
import Logging
import NIOCore
import NIOPosix
import PodiumMessages
import PodiumRuntime
import ServiceLifecycle

/// The HTTP/JSON front of the gateway (`PODIUM_HTTP`, Hummingbird): every route of
/// ``HTTPRoute/all`` builds a protocol request (``HTTPRequestBuilder``) and runs it through the
/// gateway's request pipeline, exactly as a ZeroMQ request; the reply's payload is the response
/// body, an error is an RFC 9457 problem (``HTTPProblem``).
///
/// It depends on the pipeline (``RequestPipeline``), the WebSocket hub its sockets register with
/// (``WebSocketHub``) and the settings it reads; the console registers its routes on it.
///
/// A `Service` of the gateway's service group: if the listener fails (its port is taken), the
/// group and so the process stop.
public struct GatewayHTTPFront: Service {
    private let pipeline: any RequestPipeline
    private let sockets: WebSocketHub
    private let settings: GatewaySettings
    /// Writes the envelopes the front answers itself (a WebSocket's hello, its refusals).
    private let envelopes: Envelopes
    /// Adds the operators' console (``GatewayConsole``) to the router.
    private let registerConsole: @Sendable (Router<HTTPFrontContext>, Logger) throws -> Void
    let address: HTTPListenAddress
    let logger: Logger
    let onListening: @Sendable (Int) async -> Void

    /// One event loop thread for every HTTP connection: the front only parses and writes, the
    /// work happens on the pipeline's tasks, and a second thread measured slower (more context
    /// switches between the loop threads, the task pool and the ZeroMQ threads; BENCHMARKS.md).
    static let eventLoops = MultiThreadedEventLoopGroup(numberOfThreads: 1)

    /// How often a WebSocket is pinged; one that does not answer is closed.
    static let pingInterval = Duration.seconds(30)
    /// Idle keep-alive connections are closed after this long.
    static let idleTimeout = TimeAmount.seconds(60)
    /// The limits on request heads: size, fields, time (``RequestHeadGuard``).
    static let headRules = RequestHeadRules()

    /// - Parameter onListening: called with the port once the listener is bound (tests use port 0).
    public init(
        gateway: Gateway, address: HTTPListenAddress, onListening: @escaping @Sendable (Int) async -> Void = { _ in }
    ) {
        self.init(
            pipeline: gateway.pipeline, sockets: gateway.relay.sockets, settings: gateway.settings,
            envelopes: Envelopes(clock: gateway.clock), logger: gateway.logger, address: address,
            registerConsole: { [parts = gateway.consoleParts] router, logger in
                try GatewayConsole(parts: parts, logger: logger).register(on: router)
            },
            onListening: onListening)
    }

    /// The front with its parts given one by one (``init(gateway:address:onListening:)`` takes
    /// them from a gateway).
    init(
        pipeline: any RequestPipeline, sockets: WebSocketHub, settings: GatewaySettings, envelopes: Envelopes,
        logger: Logger,
        address: HTTPListenAddress,
        registerConsole: @escaping @Sendable (Router<HTTPFrontContext>, Logger) throws -> Void = { _, _ in },
        onListening: @escaping @Sendable (Int) async -> Void = { _ in }
    ) {
        self.pipeline = pipeline
        self.sockets = sockets
        self.settings = settings
        self.envelopes = envelopes
        self.registerConsole = registerConsole
        self.address = address
        var logger = logger
        logger[metadataKey: "front"] = "http"
        self.logger = logger
        self.onListening = onListening
    }

    public func run() async throws {
        let router = Router(context: HTTPFrontContext.self)
        router.add(middleware: ClientAddressMiddleware(proxies: settings.trustedProxies))
        router.add(middleware: CORSMiddleware(policy: settings.corsPolicy))
        router.add(middleware: ProblemMiddleware())
        for route in HTTPRoute.all {
            let method: HTTPRequest.Method
            switch route.method {
            case .get: method = .get
            case .post: method = .post
            case .delete: method = .delete
            }
            router.on(RouterPath(route.path), method: method) { request, context in
                try await respond(route: route, request: request, context: context)
            }
        }
        try registerConsole(router, logger)
        let policy = settings.corsPolicy
        let (pipeline, sockets, envelopes, maxMessageBytes) = (
            self.pipeline, self.sockets, self.envelopes, settings.maxMessageBytes
        )
        let logger = self.logger
        router.ws(
            "/v1/socket",
            shouldUpgrade: { request, _ in
                // Browsers always send their page's origin; only the allowed ones may connect. A
                // refused upgrade is answered 400 by the WebSocket upgrader itself.
                if let origin = request.headers[.origin], !policy.allows(origin) {
                    logger.warning("websocket refused: origin not allowed", metadata: ["origin": "\(origin)"])
                    return .dontUpgrade
                }
                return .upgrade([:])
            },
            onUpgrade: { inbound, outbound, context in
                let session = WebSocketSession(
                    pipeline: pipeline, sockets: sockets, envelopes: envelopes, maxMessageBytes: maxMessageBytes,
                    key: .init(transport: .websocket, id: Data(UUID().uuidString.utf8)),
                    peer: context.requestContext.peer, logger: logger)
                try await session.run(inbound: inbound, outbound: outbound)
            })
        let onListening = self.onListening
        let host = address.host
        let app = Application(
            router: router,
            server: Self.server(webSocketRouter: router, maxFrameSize: settings.maxMessageBytes),
            configuration: .init(address: .hostname(host, port: address.port), serverName: "podium"),
            onServerRunning: { channel in
                let port = channel.localAddress?.port ?? 0
                logger.info("HTTP front listening", metadata: ["endpoint.http": "http://\(host):\(port)"])
                await onListening(port)
            },
            eventLoopGroupProvider: .shared(Self.eventLoops),
            logger: logger)
        try await app.run()
    }

    /// HTTP/1.1 with the WebSocket upgrade, every connection behind a ``RequestHeadGuard``.
    static func server(webSocketRouter: Router<HTTPFrontContext>, maxFrameSize: Int) -> HTTPServerBuilder {
        let configuration = HTTP1WebSocketUpgradeChannel.Configuration(
            http1: .init(
                idleTimeout: idleTimeout,
                httpDecoderConfiguration: .init(
                    maxHeaderFieldSize: headRules.maxHeadBytes, maxHeaderListSize: headRules.maxHeadBytes,
                    maxHeaderFieldCount: headRules.maxFields)),
            ws: .init(maxFrameSize: maxFrameSize, autoPing: .enabled(timePeriod: pingInterval), validateUTF8: true))
        let webSocketResponder = webSocketRouter.buildResponder()
        return HTTPServerBuilder { responder in
            GuardedChannel(
                inner: HTTP1WebSocketUpgradeChannel(
                    responder: responder, webSocketResponder: webSocketResponder, configuration: configuration),
                rules: headRules)
        }
    }

    private func respond(route: HTTPRoute, request: Request, context: HTTPFrontContext) async throws -> Response {
        var request = request
        // Every response names its request id: the client's Idempotency-Key, or one made now.
        let requestID = request.headers[Self.idempotencyKeyField] ?? MessageID.make()
        let maxBytes = settings.maxMessageBytes
        let body: ByteBuffer
        do {
            body = try await request.body.collect(upTo: maxBytes)
        } catch {
            RequestLimits.countRefusal(.messageTooLarge)
            return Self.problem(
                HTTPProblem(
                    ErrorReply(
                        code: .messageTooLarge,
                        message: "the body is larger than \(maxBytes) bytes (PODIUM_MAX_MESSAGE_BYTES)"),
                    requestID: requestID))
        }
        var pathParameters: [String: String] = [:]
        for name in Self.parameterNames(route.path) {
            if let value = context.parameters.get(name) { pathParameters[name] = Self.decoded(value) }
        }
        let query = request.uri.queryParameters.map { (String($0.key), String($0.value)) }
        let headers = HTTPRequestBuilder.Headers(
            authorization: request.headers[.authorization],
            serverKey: request.headers[Self.serverKeyField],
            adminKey: request.headers[Self.adminKeyField],
            idempotencyKey: request.headers[Self.idempotencyKeyField])
        let built = HTTPRequestBuilder.request(
            route: route,
            typeParameter: route.type == nil ? context.parameters.get("type").map(Self.decoded) : nil,
            pathParameters: pathParameters, query: query, body: Data(buffer: body), headers: headers,
            newID: { requestID })
        let credentialSent = headers.authorization != nil || headers.serverKey != nil || headers.adminKey != nil
        let requestObject: JSONValue
        switch built {
        case .success(let object):
            requestObject = object
        case .failure(let error):
            logger.warning(
                "request rejected",
                metadata: [
                    "error.code": "\(error.code)", "error.message": "\(error.message)",
                    "peer": "\(context.peer ?? "-")",
                ])
            return Self.problem(HTTPProblem(error, requestID: requestID, credentialSent: credentialSent))
        }
        switch await pipeline.callTakingEncoded(requestObject, from: context.connectionKey, peer: context.peer) {
        case .decoded(let reply):
            return Self.response(reply, requestID: requestID, credentialSent: credentialSent)
        case .encoded(let body):
            return Self.response(encoded: body, requestID: requestID, credentialSent: credentialSent)
        }
    }

    /// A reply passed on as bytes: a successful one's payload text is the body as it is (no
    /// parsing and writing it again); anything else is decoded and answered as above.
    static func response(encoded body: Data, requestID: String?, credentialSent: Bool) -> Response {
        guard let passed = passedOn(body) else {
            guard let envelope = try? WireCodec.decode(RawEnvelope.self, from: body) else {
                return problem(
                    HTTPProblem(
                        ErrorReply(code: .internalError, message: "the gateway sent an unreadable reply"),
                        requestID: requestID, credentialSent: credentialSent))
            }
            return response(envelope, requestID: requestID, credentialSent: credentialSent)
        }
        var headers = HTTPFields()
        headers[.contentType] = "application/json"
        if let id = passed.correlationId ?? requestID { headers[requestIDField] = id }
        return Response(
            status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: passed.payload)))
    }

    /// The payload text and correlation id of a successful reply's bytes, read by the header scan
    /// alone; nil for anything else (an error, or text the scan cannot read).
    static func passedOn(_ body: Data) -> (payload: Data, correlationId: String?)? {
        guard let header = EnvelopeHeader.scan(body), header.type == MessageType.reply.rawValue,
            let range = header.payloadRange
        else { return nil }
        let start = body.startIndex
        return (body[(start + range.lowerBound)..<(start + range.upperBound)], header.correlationId)
    }

    /// The reply envelope as a response: its payload with 200, or its error as a problem.
    static func response(_ envelope: RawEnvelope, requestID: String?, credentialSent: Bool) -> Response {
        let id = envelope.correlationId ?? requestID
        if envelope.type == .error {
            let error =
                (try? envelope.decodePayload(as: ErrorReply.self))
                ?? ErrorReply(code: .internalError, message: "the gateway sent an unreadable error")
            return problem(HTTPProblem(error, requestID: id, credentialSent: credentialSent))
        }
        var headers = HTTPFields()
        headers[.contentType] = "application/json"
        if let id { headers[requestIDField] = id }
        let body = (try? JSONWriter.data(envelope.payload)) ?? Data("{}".utf8)
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: body)))
    }

    static func problem(_ problem: HTTPProblem) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "application/problem+json"
        if let seconds = problem.retryAfterSeconds { headers[.retryAfter] = String(seconds) }
        if let challenge = problem.wwwAuthenticate { headers[.wwwAuthenticate] = challenge }
        if let id = problem.requestID { headers[requestIDField] = id }
        let body = (try? JSONWriter.data(problem.body)) ?? Data("{}".utf8)
        return Response(
            status: HTTPResponse.Status(code: problem.status), headers: headers,
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: body)))
    }

    /// A path segment with its percent-escapes decoded (as it came when it has none or a broken
    /// one). Foundation's decoding is costly, and almost no segment has an escape.
    static func decoded(_ segment: String) -> String {
        segment.utf8.contains(UInt8(ascii: "%")) ? (segment.removingPercentEncoding ?? segment) : segment
    }

    /// `:name` segments of a route's path.
    static func parameterNames(_ path: String) -> [String] {
        path.split(separator: "/").filter { $0.hasPrefix(":") }.map { String($0.dropFirst()) }
    }

    static let serverKeyField = HTTPField.Name(HTTPRequestBuilder.serverKeyHeader)!
    static let adminKeyField = HTTPField.Name(HTTPRequestBuilder.adminKeyHeader)!
    static let idempotencyKeyField = HTTPField.Name("Idempotency-Key")!
    static let requestIDField = HTTPField.Name(HTTPRequestBuilder.requestIDHeader)!
}
