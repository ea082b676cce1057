import Foundation
import PodiumMessages
import Testing

@testable import Gateway

/// The HTTP front's pure parts: routes, how a request is built from HTTP, problems, the address.
@Suite("HTTP front (pure)")
struct HTTPFrontUnitTests {
    func route(_ method: HTTPRoute.Method, _ path: String) throws -> HTTPRoute {
        try #require(HTTPRoute.all.first { $0.method == method && $0.path == path })
    }

    func build(
        _ route: HTTPRoute, type: String? = nil, path: [String: String] = [:], query: [(String, String)] = [],
        body: String = "", headers: HTTPRequestBuilder.Headers = .init()
    ) -> Result<JSONValue, ErrorReply> {
        HTTPRequestBuilder.request(
            route: route, typeParameter: type, pathParameters: path, query: query, body: Data(body.utf8),
            headers: headers,
            newID: { "generated-id" })
    }

    @Test("a reply passed on as bytes gives the body the decoded reply would: its payload's text; errors are decoded")
    func passedOnReplies() throws {
        let payloads: [JSONValue] = [
            .object([
                "entries": .array([
                    .object([
                        "playerId": "a \"quoted\"\nname/ü", "value": -42, "rank": 1,
                        "metadata": .object(["x": .array([1.5, true, .null])]),
                    ])
                ]),
                "boardId": "dash.highscore", "total": 3,
            ]),
            .object([:]), .array([1, 2]), "text", 7,
        ]
        for payload in payloads {
            let envelope = RawEnvelope(
                type: .reply, correlationId: "http-1", gameId: "dash", timestamp: 5, payload: payload)
            let body = try WireCodec.encode(envelope)
            let passed = try #require(GatewayHTTPFront.passedOn(body))
            #expect(passed.payload == (try JSONWriter.data(envelope.payload)))
            #expect(passed.correlationId == "http-1")
            // The same bytes in the middle of a larger buffer (a frame) read the same.
            let framed = (Data("xx".utf8) + body).dropFirst(2)
            #expect(GatewayHTTPFront.passedOn(framed)?.payload == passed.payload)
        }
        let error = RawEnvelope(
            type: .error, correlationId: "http-2", timestamp: 5,
            payload: try WireCodec.jsonValue(ErrorReply(code: .unknownBoard, message: "no such board")))
        #expect(GatewayHTTPFront.passedOn(try WireCodec.encode(error)) == nil)
        #expect(GatewayHTTPFront.passedOn(Data("not json".utf8)) == nil)
    }

    @Test("every route is unique, under /v1, and names a request type (but /v1/call)")
    func routes() {
        let keys = HTTPRoute.all.map { "\($0.method.rawValue) \($0.path)" }
        #expect(Set(keys).count == keys.count)
        #expect(HTTPRoute.all.allSatisfy { $0.path.hasPrefix("/v1/") })
        #expect(HTTPRoute.all.filter { $0.type == nil }.map(\.path) == ["/v1/call/:type"])
        #expect(HTTPRoute.all.filter { $0.method == .get }.allSatisfy { $0.body == .none })
    }

    @Test("a score submission: game from the path, board into the payload, body as payload, token and id from headers")
    func submission() throws {
        let submit = try route(.post, "/v1/games/:gameId/leaderboards/:boardId/scores")
        let built = try build(
            submit, path: ["gameId": "dash", "boardId": "b1"], body: #"{"value": 12, "context": 3}"#,
            headers: .init(authorization: "Bearer abc.def", idempotencyKey: "k-1")
        ).get()
        #expect(
            built
                == .object([
                    "type": "leaderboard.submit", "id": "k-1", "gameId": "dash", "token": "abc.def",
                    "payload": .object(["boardId": "b1", "value": 12, "context": 3]),
                ]))
    }

    @Test("query parameters are typed; playerId is the request's; unknown ones are ignored")
    func query() throws {
        let top = try route(.get, "/v1/games/:gameId/leaderboards/:boardId/top")
        let built = try build(
            top, path: ["gameId": "dash", "boardId": "b1"],
            query: [("limit", "5"), ("friendsOnly", "true"), ("scope", "week"), ("playerId", "p-1"), ("other", "x")],
            headers: .init(serverKey: "k")
        ).get()
        #expect(built["playerId"] == "p-1")
        #expect(built["serverKey"] == "k")
        #expect(built["id"] == "generated-id")
        #expect(built["payload"] == .object(["boardId": "b1", "limit": 5, "friendsOnly": true, "scope": "week"]))
        for (name, value) in [("limit", "five"), ("limit", "1.5"), ("friendsOnly", "yes")] {
            guard
                case .failure(let error) = build(
                    top, path: ["gameId": "dash", "boardId": "b1"], query: [(name, value)])
            else {
                Issue.record("\(name)=\(value) was accepted")
                continue
            }
            #expect(error.code == .invalidShape)
            #expect(error.field == "payload.\(name)")
        }
    }

    @Test("bodies: empty is {}, bad JSON, non-objects and deep nesting are refused")
    func bodies() throws {
        let events = try route(.post, "/v1/games/:gameId/events")
        #expect(try build(events, path: ["gameId": "g"], body: " \n").get()["payload"] == .object([:]))
        let cases: [(String, ErrorCode)] = [
            ("{", .malformedJSON), ("[1]", .invalidShape), ("42", .invalidShape), ("\u{FF}", .malformedJSON),
            (String(repeating: "[", count: 40) + String(repeating: "]", count: 40), .invalidShape),
        ]
        for (body, code) in cases {
            guard case .failure(let error) = build(events, path: ["gameId": "g"], body: body) else {
                Issue.record("body \(body.prefix(20)) was accepted")
                continue
            }
            #expect(error.code == code)
        }
    }

    @Test("/v1/call: the type from the path, request members from the body, credentials and ids refused in it")
    func call() throws {
        let call = try route(.post, "/v1/call/:type")
        let built = try build(
            call, type: "leaderboard.top", body: #"{"gameId":"dash","playerId":"p","payload":{"boardId":"b"}}"#
        ).get()
        #expect(built["type"] == "leaderboard.top")
        #expect(built["gameId"] == "dash")
        #expect(built["playerId"] == "p")
        #expect(built["payload"] == .object(["boardId": "b"]))
        for member in ["token", "id", "type", "serverKey", "adminKey"] {
            guard case .failure(let error) = build(call, type: "health", body: #"{"\#(member)":"x"}"#) else {
                Issue.record("\(member) in the body was accepted")
                continue
            }
            #expect(error.code == .invalidField)
            #expect(error.field == member)
        }
        guard case .failure(let error) = build(call, type: "health", body: #"{"payload":[1]}"#) else {
            Issue.record("a payload that is not an object was accepted")
            return
        }
        #expect(error.code == .invalidShape)
    }

    @Test("an Authorization header that is not a bearer token is an invalid token")
    func authorization() throws {
        let me = try route(.get, "/v1/me")
        for header in ["Basic abc", "Bearer", "token"] {
            guard case .failure(let error) = build(me, headers: .init(authorization: header)) else {
                Issue.record("\(header) was accepted")
                continue
            }
            #expect(error.code == .invalidToken)
        }
        #expect(try build(me, headers: .init(authorization: "bearer  t1 ")).get()["token"] == "t1")
    }

    @Test("problems: the status of each code, the members, Retry-After")
    func problems() {
        let expected: [(ErrorCode, Int)] = [
            (.malformedJSON, 400), (.invalidField, 400), (.scoreOutOfBounds, 400), (.unauthenticated, 401),
            (.tokenExpired, 401), (.invalidCredentials, 401), (.forbidden, 403), (.unknownBoard, 404),
            (.unknownRoute, 404), (.conflict, 409), (.idReused, 409), (.usernameTaken, 409), (.messageTooLarge, 413),
            (.rateLimited, 429), (.serviceUnavailable, 503), (.storageUnavailable, 503), (.serviceTimeout, 504),
            (.internalError, 500), (ErrorCode(rawValue: "from_the_future"), 500),
        ]
        for (code, status) in expected {
            #expect(HTTPProblem.status(for: code) == status, "\(code)")
        }
        let limited = HTTPProblem(
            ErrorReply(code: .rateLimited, message: "slow down", field: nil, retryAfterMilliseconds: 1200),
            requestID: "r1")
        #expect(limited.retryAfterSeconds == 2)
        #expect(
            limited.body
                == .object([
                    "type": "urn:podium:error:rate_limited", "title": "rate_limited", "status": 429,
                    "detail": "slow down",
                    "code": "rate_limited", "retryAfterMilliseconds": 1200, "requestId": "r1",
                ]))
        #expect(HTTPProblem(ErrorReply(code: .overloaded, message: "m"), requestID: nil).retryAfterSeconds == 1)
        // WWW-Authenticate: the scheme on every 401; the error only when a token or key was refused.
        #expect(
            HTTPProblem(ErrorReply(code: .unauthenticated, message: "m"), requestID: nil).wwwAuthenticate
                == #"Bearer realm="podium""#)
        #expect(
            HTTPProblem(ErrorReply(code: .tokenExpired, message: "m"), requestID: nil).wwwAuthenticate
                == #"Bearer realm="podium", error="invalid_token""#)
        #expect(
            HTTPProblem(ErrorReply(code: .invalidCredentials, message: "m"), requestID: nil, credentialSent: false)
                .wwwAuthenticate
                == #"Bearer realm="podium""#)
        #expect(
            HTTPProblem(ErrorReply(code: .invalidCredentials, message: "m"), requestID: nil, credentialSent: true)
                .wwwAuthenticate
                == #"Bearer realm="podium", error="invalid_token""#)
        #expect(HTTPProblem(ErrorReply(code: .forbidden, message: "m"), requestID: nil).wwwAuthenticate == nil)
        #expect(
            HTTPProblem(ErrorReply(code: .forbidden, message: "m", field: "playerId"), requestID: nil).retryAfterSeconds
                == nil)
    }

    @Test("PODIUM_HTTP: host:port, IPv6 in brackets, port 0, off; anything else is refused")
    func address() throws {
        #expect(try HTTPListenAddress.parse("127.0.0.1:8080") == HTTPListenAddress(host: "127.0.0.1", port: 8080))
        #expect(try HTTPListenAddress.parse("[::1]:0") == HTTPListenAddress(host: "::1", port: 0))
        #expect(try HTTPListenAddress.parse("off") == nil)
        for bad in ["8080", "localhost:", "host:70000", ":80", "host:x"] {
            #expect(throws: (any Error).self, "\(bad)") { try HTTPListenAddress.parse(bad) }
        }
    }

    @Test(
        "CORS: none by default; listed origins (any case) get headers and preflights; * allows all; bad lists are refused"
    )
    func cors() throws {
        #expect(CORSPolicy.none.headers(origin: "https://game.example.com").isEmpty)
        #expect(CORSPolicy.none.preflight(origin: "https://game.example.com") == nil)
        let policy = try CORSPolicy.parse(" https://Game.example.com , http://localhost:5173/ ")
        #expect(policy.allowedOrigins == ["https://game.example.com", "http://localhost:5173"])
        let headers = Dictionary(uniqueKeysWithValues: policy.headers(origin: "https://game.example.com"))
        #expect(headers["Access-Control-Allow-Origin"] == "https://game.example.com")
        #expect(headers["Vary"] == "Origin")
        #expect(headers["Access-Control-Expose-Headers"]?.contains("Podium-Request-Id") == true)
        #expect(policy.headers(origin: "https://evil.example.com").isEmpty)
        #expect(policy.headers(origin: nil).isEmpty)
        let preflight = Dictionary(
            uniqueKeysWithValues: try #require(policy.preflight(origin: "http://localhost:5173")))
        #expect(preflight["Access-Control-Allow-Headers"]?.contains("Idempotency-Key") == true)
        #expect(preflight["Access-Control-Allow-Methods"] == "GET, POST, DELETE")
        #expect(policy.preflight(origin: "http://localhost:5174") == nil)
        #expect(try CORSPolicy.parse("*").allows("https://anything.example"))
        #expect(try CORSPolicy.parse("") == .none)
        for bad in ["game.example.com", "ftp://x.example", "https://x.example/path", "https://x.example?q=1"] {
            #expect(throws: (any Error).self, "\(bad)") { try CORSPolicy.parse(bad) }
        }
    }
}
