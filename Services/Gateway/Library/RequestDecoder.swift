import Foundation
import PodiumMessages

/// A request that could not be accepted, with the client's request id when it could be read.
struct RequestRejection: Error, Equatable {
    let requestID: String?
    let error: ErrorReply
}

/// Turns a request frame into a ``ClientRequest`` or says precisely what is wrong with it.
enum RequestDecoder {
    static func decode(_ body: Data, maxBytes: Int) -> Result<ClientRequest, RequestRejection> {
        guard body.count <= maxBytes else {
            return .failure(
                RequestRejection(
                    requestID: nil,
                    error: ErrorReply(
                        code: .messageTooLarge, message: "request is \(body.count) bytes; the limit is \(maxBytes)")))
        }
        let scan = JSONNesting.scan(body)
        if scan.depth > JSONNesting.maximumDepth {
            return .failure(
                RequestRejection(
                    requestID: scan.topLevelID.flatMap { Identifiers.isValidRequestID($0) ? $0 : nil },
                    error: ErrorReply(
                        code: .invalidShape,
                        message: "request nests arrays or objects deeper than \(JSONNesting.maximumDepth) levels")))
        }
        let json: JSONValue
        do {
            json = try WireCodec.decode(JSONValue.self, from: body)
        } catch {
            return .failure(
                RequestRejection(
                    requestID: nil, error: ErrorReply(code: .malformedJSON, message: "request is not valid UTF-8 JSON"))
            )
        }
        return decode(json)
    }

    /// Checks a request a front already holds as a JSON value (the HTTP front builds one from a
    /// route; a WebSocket message adds the socket's credential to one): the same rules as for a
    /// request frame, without writing the value out and parsing it again. The front has held
    /// what the client sent to its own size limit.
    static func decode(_ json: JSONValue) -> Result<ClientRequest, RequestRejection> {
        guard let object = json.objectValue else {
            return .failure(
                RequestRejection(
                    requestID: nil, error: ErrorReply(code: .invalidShape, message: "request must be a JSON object")))
        }
        let id: String
        switch object["id"] {
        case nil, .null?:
            return .failure(
                RequestRejection(
                    requestID: nil, error: ErrorReply(code: .missingField, message: "request needs an id", field: "id"))
            )
        case .string(let text)?:
            guard Identifiers.isValidRequestID(text) else {
                return .failure(
                    RequestRejection(
                        requestID: nil,
                        error: ErrorReply(
                            code: .invalidField, message: "id must be 1-128 printable ASCII characters without spaces",
                            field: "id")))
            }
            id = text
        default:
            return .failure(
                RequestRejection(
                    requestID: nil, error: ErrorReply(code: .invalidShape, message: "id must be a string", field: "id"))
            )
        }
        func reject(_ code: ErrorCode, _ message: String, _ field: String? = nil) -> Result<
            ClientRequest, RequestRejection
        > {
            .failure(RequestRejection(requestID: id, error: ErrorReply(code: code, message: message, field: field)))
        }
        let type: String
        switch object["type"] {
        case nil, .null?: return reject(.missingField, "request needs a type", "type")
        case .string(let text)? where !text.isEmpty && text.utf8.count <= 128: type = text
        case .string?: return reject(.invalidField, "type must be 1-128 bytes", "type")
        default: return reject(.invalidShape, "type must be a string", "type")
        }
        var version: Int?
        switch object["version"] {
        case nil, .null?: break
        case .integer(let number)?:
            guard number >= 1 else { return reject(.invalidField, "version starts at 1", "version") }
            guard number <= Int64(RawEnvelope.currentVersion) else {
                return reject(
                    .unsupportedVersion,
                    "version \(number) is newer than this server understands (\(RawEnvelope.currentVersion))", "version"
                )
            }
            version = Int(number)
        default: return reject(.invalidShape, "version must be an integer", "version")
        }
        var ids: [String: String] = [:]
        for field in ["gameId", "playerId"] {
            switch object[field] {
            case nil, .null?: continue
            case .string(let text)?:
                guard Identifiers.isValidID(text) else {
                    return reject(
                        .invalidField, "\(field) must be 1-64 characters of A-Z, a-z, 0-9, '.', '_' or '-'", field)
                }
                ids[field] = text
            default: return reject(.invalidShape, "\(field) must be a string", field)
            }
        }
        var credentials: [String: String] = [:]
        for field in ["token", "serverKey", "adminKey"] {
            switch object[field] {
            case nil, .null?: continue
            case .string(let text)?:
                guard !text.isEmpty, text.utf8.count <= 4096 else {
                    return reject(.invalidField, "\(field) must be 1-4096 bytes", field)
                }
                credentials[field] = text
            default: return reject(.invalidShape, "\(field) must be a string", field)
            }
        }
        guard credentials.count <= 1 else {
            return reject(
                .invalidField, "send one credential: token, serverKey or adminKey", credentials.keys.sorted().last)
        }
        var payload: JSONValue?
        switch object["payload"] {
        case nil, .null?: break
        case .object(let members)?: payload = .object(members)
        default: return reject(.invalidShape, "payload must be a JSON object", "payload")
        }
        return .success(
            ClientRequest(
                type: MessageType(type), id: id, version: version, gameId: ids["gameId"], playerId: ids["playerId"],
                payload: payload, token: credentials["token"], serverKey: credentials["serverKey"],
                adminKey: credentials["adminKey"]))
    }

    /// Decodes a payload as a concrete type, turning decoding failures into client errors.
    static func payload<Value: Decodable>(_ payload: JSONValue?, as type: Value.Type) throws(ErrorReply) -> Value {
        do {
            return try WireCodec.convert(payload ?? .object([:]), to: type)
        } catch let DecodingError.keyNotFound(key, context) {
            throw ErrorReply(
                code: .missingField, message: "payload needs '\(key.stringValue)'", field: path(context, key))
        } catch let DecodingError.valueNotFound(_, context) {
            throw ErrorReply(
                code: .missingField, message: "a required payload value is null", field: path(context, nil))
        } catch let DecodingError.typeMismatch(expected, context) {
            throw ErrorReply(
                code: .invalidShape, message: "payload field has the wrong type (expected \(expected))",
                field: path(context, nil))
        } catch let DecodingError.dataCorrupted(context) where !context.codingPath.isEmpty {
            throw ErrorReply(
                code: .invalidShape, message: "payload field has an unusable value (\(context.debugDescription))",
                field: path(context, nil))
        } catch {
            throw ErrorReply(code: .invalidShape, message: "payload has the wrong shape", field: "payload")
        }
    }

    private static func path(_ context: DecodingError.Context, _ key: (any CodingKey)?) -> String {
        let keys = context.codingPath + (key.map { [$0] } ?? [])
        return (["payload"] + keys.map { $0.intValue.map(String.init) ?? $0.stringValue }).joined(separator: ".")
    }
}
