import Foundation
import PodiumMessages

/// Turns an HTTP request on a route into the protocol's request object (docs/PROTOCOL.md
/// section 4), which then goes through the same pipeline as a ZeroMQ request.
///
/// Pure: tested without a server. Where the parts come from:
/// - `type`: the route (or the path of `/v1/call/:type`);
/// - `id`: the `Idempotency-Key` header, else a new UUID (the response's `Podium-Request-Id`
///   header says which);
/// - the credential: `Authorization: Bearer <session token>`, `X-Podium-Server-Key` or
///   `X-Podium-Admin-Key`;
/// - `gameId`: the path; `playerId`: the query; `payload`: the body, path and query (`HTTPRoute`).
struct HTTPRequestBuilder: Sendable {
    /// The header values the builder reads, by lowercased name.
    struct Headers: Sendable {
        var authorization: String?
        var serverKey: String?
        var adminKey: String?
        var idempotencyKey: String?
    }

    static let serverKeyHeader = "X-Podium-Server-Key"
    static let adminKeyHeader = "X-Podium-Admin-Key"
    static let requestIDHeader = "Podium-Request-Id"

    /// Body members `/v1/call/:type` takes; the others have their own place in HTTP.
    private static let callMembers: Set<String> = ["gameId", "playerId", "version", "payload"]
    private static let callElsewhere: [String: String] = [
        "type": "the type is the path: POST /v1/call/<type>",
        "id": "the request id is the Idempotency-Key header",
        "token": "a session token goes in the Authorization header: Bearer <token>",
        "serverKey": "a game server key goes in the X-Podium-Server-Key header",
        "adminKey": "the admin key goes in the X-Podium-Admin-Key header",
    ]

    /// The request object, or the error to answer with (the request id, when known, for the problem).
    static func request(
        route: HTTPRoute, typeParameter: String?, pathParameters: [String: String], query: [(String, String)],
        body: Data, headers: Headers, newID: () -> String
    ) -> Result<JSONValue, ErrorReply> {
        var request: [String: JSONValue] = [:]
        // The request id.
        request["id"] = .string(headers.idempotencyKey ?? newID())
        // The type.
        if let type = route.type {
            request["type"] = .string(type.rawValue)
        } else if let typeParameter {
            request["type"] = .string(typeParameter)
        }
        // The credential: at most one, as over ZeroMQ (the pipeline refuses two).
        if let authorization = headers.authorization {
            let parts = authorization.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
            guard parts.count == 2, parts[0].lowercased() == "bearer" else {
                return .failure(
                    ErrorReply(
                        code: .invalidToken, message: "the Authorization header must be 'Bearer <session token>'",
                        field: "token"))
            }
            request["token"] = .string(String(parts[1]).trimmingCharacters(in: .whitespaces))
        }
        if let key = headers.serverKey { request["serverKey"] = .string(key) }
        if let key = headers.adminKey { request["adminKey"] = .string(key) }

        var payload: [String: JSONValue] = route.fixed
        switch route.body {
        case .none:
            break
        case .payload:
            switch object(from: body, field: "payload") {
            case .success(let members): payload.merge(members) { _, new in new }
            case .failure(let error): return .failure(error)
            }
        case .request:
            let members: [String: JSONValue]
            switch object(from: body, field: nil) {
            case .success(let object): members = object
            case .failure(let error): return .failure(error)
            }
            for name in members.keys.sorted() where !callMembers.contains(name) {
                if let hint = callElsewhere[name] {
                    return .failure(
                        ErrorReply(
                            code: .invalidField, message: "\(name) does not go in the body: \(hint)", field: name))
                }
            }
            for name in ["gameId", "playerId", "version"] {
                if let value = members[name] { request[name] = value }
            }
            switch members["payload"] {
            case nil, .null?: break
            case .object(let object)?: payload.merge(object) { _, new in new }
            default:
                return .failure(
                    ErrorReply(code: .invalidShape, message: "payload must be a JSON object", field: "payload"))
            }
        }
        for (name, value) in pathParameters {
            if name == "gameId" {
                request["gameId"] = .string(value)
            } else if name == "type" && route.type == nil {
                continue  // `/v1/call/:type`: the request's type, not a payload member
            } else {
                payload[name] = .string(value)
            }
        }
        for (name, value) in query {
            // `playerId` names the player a request acts for, except on routes that look a
            // player up (they list it among their query parameters: it goes in the payload).
            if name == "playerId" && route.query["playerId"] == nil {
                request["playerId"] = .string(value)
                continue
            }
            guard let kind = route.query[name] else { continue }
            switch kind {
            case .string:
                payload[name] = .string(value)
            case .integer:
                guard let number = Int64(value) else {
                    return .failure(
                        ErrorReply(code: .invalidShape, message: "\(name) must be an integer", field: "payload.\(name)")
                    )
                }
                payload[name] = .integer(number)
            case .boolean:
                switch value {
                case "true", "1": payload[name] = .bool(true)
                case "false", "0": payload[name] = .bool(false)
                default:
                    return .failure(
                        ErrorReply(
                            code: .invalidShape, message: "\(name) must be true or false", field: "payload.\(name)"))
                }
            }
        }
        request["payload"] = .object(payload)
        return .success(.object(request))
    }

    /// The body as a JSON object; an empty body is an empty object.
    private static func object(from body: Data, field: String?) -> Result<[String: JSONValue], ErrorReply> {
        if body.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }) { return .success([:]) }
        if JSONNesting.scan(body).depth > JSONNesting.maximumDepth {
            return .failure(
                ErrorReply(
                    code: .invalidShape,
                    message: "the body nests arrays or objects deeper than \(JSONNesting.maximumDepth) levels"))
        }
        guard let value = try? JSONParser.parse(body) else {
            return .failure(ErrorReply(code: .malformedJSON, message: "the body is not valid UTF-8 JSON"))
        }
        guard case .object(let members) = value else {
            return .failure(ErrorReply(code: .invalidShape, message: "the body must be a JSON object", field: field))
        }
        return .success(members)
    }
}
