import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdWebSocket
import Logging
import NIOCore
import PodiumMessages
import ServiceLifecycle

/// The HTTP/JSON front of the gateway (`PODIUM_HTTP`, Hummingbird): every route of
/// ``HTTPRoute/all`` builds a protocol request (``HTTPRequestBuilder``) and runs it through the
/// gateway's request pipeline, exactly as a ZeroMQ request; the reply's payload is the response
/// body, an error is an RFC 9457 problem (``HTTPProblem``).
///
/// A `Service` of the gateway's service group: if the listener fails (its port is taken), the
/// group and so the process stop.
public struct GatewayHTTPFront: Service {
    let gateway: Gateway
    let address: HTTPListenAddress
    let logger: Logger
    let onListening: @Sendable (Int) async -> Void

    /// How often a WebSocket is pinged; one that does not answer is closed.
    static let pingInterval = Duration.seconds(30)
    /// Idle keep-alive connections are closed after this long.
    static let idleTimeout = TimeAmount.seconds(60)
    /// Largest request head (request line and headers together), and most header fields.
    static let maxHeaderBytes = 16 * 1024
    static let maxHeaderFields = 100

    /// - Parameter onListening: called with the port once the listener is bound (tests use port 0).
    public init(gateway: Gateway, address: HTTPListenAddress, onListening: @escaping @Sendable (Int) async -> Void = { _ in }) {
        self.gateway = gateway
        self.address = address
        var logger = gateway.logger
        logger[metadataKey: "front"] = "http"
        self.logger = logger
        self.onListening = onListening
    }

    public func run() async throws {
        let router = Router(context: HTTPFrontContext.self)
        router.add(middleware: CORSMiddleware(policy: gateway.settings.corsPolicy))
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
        let policy = gateway.settings.corsPolicy
        let gateway = self.gateway
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
                    gateway: gateway,
                    key: .init(transport: .websocket, id: Data(UUID().uuidString.utf8)),
                    peer: context.requestContext.peer, logger: logger)
                try await session.run(inbound: inbound, outbound: outbound)
            })
        let onListening = self.onListening
        let host = address.host
        let app = Application(
            router: router,
            server: .http1WebSocketUpgrade(
                webSocketRouter: router,
                configuration: .init(
                    http1: .init(
                        idleTimeout: Self.idleTimeout,
                        httpDecoderConfiguration: .init(
                            maxHeaderFieldSize: Self.maxHeaderBytes, maxHeaderListSize: Self.maxHeaderBytes,
                            maxHeaderFieldCount: Self.maxHeaderFields)),
                    ws: .init(
                        maxFrameSize: gateway.settings.maxMessageBytes, autoPing: .enabled(timePeriod: Self.pingInterval),
                        validateUTF8: true))),
            configuration: .init(address: .hostname(host, port: address.port), serverName: "podium"),
            onServerRunning: { channel in
                let port = channel.localAddress?.port ?? 0
                logger.info("HTTP front listening", metadata: ["endpoint.http": "http://\(host):\(port)"])
                await onListening(port)
            },
            logger: logger)
        try await app.run()
    }

    private func respond(route: HTTPRoute, request: Request, context: HTTPFrontContext) async throws -> Response {
        var request = request
        // Every response names its request id: the client's Idempotency-Key, or one made now.
        let requestID = request.headers[Self.idempotencyKeyField] ?? UUID().uuidString.lowercased()
        let maxBytes = gateway.settings.maxMessageBytes
        let body: ByteBuffer
        do {
            body = try await request.body.collect(upTo: maxBytes)
        } catch {
            return Self.problem(
                HTTPProblem(
                    ErrorReply(code: .messageTooLarge, message: "the body is larger than \(maxBytes) bytes (PODIUM_MAX_MESSAGE_BYTES)"),
                    requestID: requestID))
        }
        var pathParameters: [String: String] = [:]
        for name in Self.parameterNames(route.path) {
            if let value = context.parameters.get(name) { pathParameters[name] = value.removingPercentEncoding ?? value }
        }
        let query = request.uri.queryParameters.map { (String($0.key), String($0.value)) }
        let headers = HTTPRequestBuilder.Headers(
            authorization: request.headers[.authorization],
            serverKey: request.headers[Self.serverKeyField],
            adminKey: request.headers[Self.adminKeyField],
            idempotencyKey: request.headers[Self.idempotencyKeyField])
        let built = HTTPRequestBuilder.request(
            route: route,
            typeParameter: route.type == nil ? context.parameters.get("type").map { $0.removingPercentEncoding ?? $0 } : nil,
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
                metadata: ["error.code": "\(error.code)", "error.message": "\(error.message)", "peer": "\(context.peer ?? "-")"])
            return Self.problem(HTTPProblem(error, requestID: requestID, credentialSent: credentialSent))
        }
        let reply = await gateway.call(
            try JSONWriter.data(requestObject), from: context.connectionKey, peer: context.peer,
            extraBytes: HTTPRequestBuilder.envelopeAllowance)
        return Self.response(reply, requestID: requestID, credentialSent: credentialSent)
    }

    /// The reply envelope as a response: its payload with 200, or its error as a problem.
    static func response(_ reply: Data, requestID: String?, credentialSent: Bool) -> Response {
        guard let envelope = try? WireCodec.decode(RawEnvelope.self, from: reply) else {
            return problem(
                HTTPProblem(ErrorReply(code: .internalError, message: "the gateway sent an unreadable reply"), requestID: requestID))
        }
        let id = envelope.correlationId ?? requestID
        if envelope.type == .error {
            let error = (try? envelope.decodePayload(as: ErrorReply.self))
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

    /// `:name` segments of a route's path.
    static func parameterNames(_ path: String) -> [String] {
        path.split(separator: "/").filter { $0.hasPrefix(":") }.map { String($0.dropFirst()) }
    }

    static let serverKeyField = HTTPField.Name(HTTPRequestBuilder.serverKeyHeader)!
    static let adminKeyField = HTTPField.Name(HTTPRequestBuilder.adminKeyHeader)!
    static let idempotencyKeyField = HTTPField.Name("Idempotency-Key")!
    static let requestIDField = HTTPField.Name(HTTPRequestBuilder.requestIDHeader)!
}

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

/// Answers what no route handles (and any other error the router raises) as a problem, so that
/// every response of the HTTP front that is not a success is `application/problem+json`.
struct ProblemMiddleware: RouterMiddleware {
    typealias Context = HTTPFrontContext

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as HTTPResponseError {
            let status = error.status.code
            let reply: ErrorReply
            switch status {
            case 404, 405:
                reply = ErrorReply(
                    code: .unknownRoute,
                    message: "no route for \(request.method.rawValue) \(request.uri.path); docs/PROTOCOL.md section 20 lists the routes, and POST /v1/call/<type> sends any request type")
            case 413:
                reply = ErrorReply(code: .messageTooLarge, message: "the request is too large")
            case 400..<500:
                reply = ErrorReply(code: .malformedJSON, message: "the HTTP request could not be read")
            default:
                reply = ErrorReply(code: .internalError, message: "the gateway could not complete the request")
            }
            let requestID = request.headers[GatewayHTTPFront.idempotencyKeyField] ?? UUID().uuidString.lowercased()
            return GatewayHTTPFront.problem(HTTPProblem(reply, requestID: requestID))
        }
    }
}

/// Answers CORS preflights and adds CORS headers for the allowed origins (``CORSPolicy``).
struct CORSMiddleware: RouterMiddleware {
    typealias Context = HTTPFrontContext
    let policy: CORSPolicy

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let origin = request.headers[.origin]
        if request.method == .options, let origin, request.headers[.accessControlRequestMethod] != nil {
            guard let headers = policy.preflight(origin: origin) else {
                return GatewayHTTPFront.problem(
                    HTTPProblem(
                        ErrorReply(
                            code: .forbidden, message: "the origin \(origin) may not call this server (PODIUM_HTTP_ALLOWED_ORIGINS)"),
                        requestID: nil))
            }
            var fields = HTTPFields()
            for (name, value) in headers { fields[HTTPField.Name(name)!] = value }
            return Response(status: .noContent, headers: fields)
        }
        var response = try await next(request, context)
        for (name, value) in policy.headers(origin: origin) { response.headers[HTTPField.Name(name)!] = value }
        return response
    }
}
