import PodiumMessages

extension Envelope where Payload == JSONValue {
    /// Decodes a request's payload, turning decoding failures into the client errors the
    /// protocol promises: `missing_field` or `invalid_shape`, with the offending field's path.
    public func requestPayload<Value: Decodable>(as type: Value.Type) throws(ErrorReply) -> Value {
        do {
            return try decodePayload(as: type)
        } catch let refusal as ErrorReply {
            // A payload type's own check (a documented code for a value of the wrong kind).
            throw refusal
        } catch let DecodingError.keyNotFound(key, context) {
            throw ErrorReply(
                code: .missingField, message: "payload needs '\(key.stringValue)'",
                field: Self.path(context.codingPath + [key]))
        } catch let DecodingError.valueNotFound(_, context) {
            throw ErrorReply(
                code: .missingField, message: "a required payload value is null", field: Self.path(context.codingPath))
        } catch let DecodingError.typeMismatch(expected, context) {
            throw ErrorReply(
                code: .invalidShape, message: "payload field has the wrong type (expected \(expected))",
                field: Self.path(context.codingPath))
        } catch let DecodingError.dataCorrupted(context)
            where !context.codingPath.isEmpty && Self.isUnknownCase(context)
        {
            // The right JSON type, but not one of the values the field takes (an enum's case):
            // `invalid_field`, as for every other value a field does not accept.
            throw ErrorReply(
                code: .invalidField, message: "payload field has a value it does not take (\(Self.offered(context)))",
                field: Self.path(context.codingPath))
        } catch let DecodingError.dataCorrupted(context) where !context.codingPath.isEmpty {
            throw ErrorReply(
                code: .invalidShape, message: "payload field has an unusable value",
                field: Self.path(context.codingPath))
        } catch {
            throw ErrorReply(code: .invalidShape, message: "payload has the wrong shape", field: "payload")
        }
    }

    /// The player a request is about: the acting player for a player's token; for a game
    /// server, an operator or another service, the `playerId` it names.
    public func subjectPlayer() throws(ErrorReply) -> String {
        if actor?.kind == .player, let playerId = actor?.playerId { return playerId }
        guard actor?.kind != .anonymous, actor != nil, let playerId else {
            throw ErrorReply(code: .missingField, message: "which player? give playerId", field: "playerId")
        }
        return playerId
    }

    /// Refuses a request that did not come from another service (or, with `orOperator`, an
    /// operator): internal requests are not for clients.
    public func requireService(orOperator: Bool = false, _ message: String) throws(ErrorReply) {
        guard actor?.kind == .service || (orOperator && actor?.kind == .admin) else {
            throw ErrorReply(code: .forbidden, message: message)
        }
    }

    /// Operator actions: the admin key only (the gateway checks it before; services check again).
    public func requireOperator() throws(ErrorReply) {
        guard actor?.kind == .admin else {
            throw ErrorReply(code: .forbidden, message: "'\(type)' is for operators only")
        }
    }

    /// The standard library's refusal of a raw value that names no case of a `RawRepresentable`.
    private static func isUnknownCase(_ context: DecodingError.Context) -> Bool {
        context.debugDescription.hasPrefix("Cannot initialize ")
    }

    /// The refused value, as the standard library words it ("… from invalid String value x").
    private static func offered(_ context: DecodingError.Context) -> String {
        guard let range = context.debugDescription.range(of: " value ") else { return "unknown value" }
        return "'\(context.debugDescription[range.upperBound...])' is not one of them"
    }

    private static func path(_ keys: [any CodingKey]) -> String {
        (["payload"] + keys.map { $0.intValue.map(String.init) ?? $0.stringValue }).joined(separator: ".")
    }
}
