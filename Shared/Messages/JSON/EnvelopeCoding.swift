import Foundation

/// Envelopes read from parsed JSON and written as JSON text without the `Codable` machinery:
/// every process reads and writes an envelope per message, and the keyed containers, coding
/// paths and metadata lookups of `Codable` cost more than the message's own work (issue 34).
///
/// The result is exactly the codec's: writing goes through ``EnvelopeWriter`` (tested byte for
/// byte against the codec), and reading takes only the canonical shape (each member of the type
/// the codec expects, or absent, or `null` where optional); anything else (a number where a
/// string belongs, a fractional version, a payload the type refuses) is left to the codec, which
/// reads it or says precisely what is wrong.
/// Whether envelopes go through the codec only (tests compare the two paths with it).
enum EnvelopeCodingMode {
    @TaskLocal static var codableOnly = false
}

protocol EnvelopeFastCoding {
    /// The envelope's JSON text.
    func fastEncoded() throws -> Data
    /// The envelope, if `json` has the canonical shape; nil: decode it with the codec.
    static func fastDecoded(from json: JSONValue) -> Self?
}

extension Envelope: EnvelopeFastCoding {
    func fastEncoded() throws -> Data {
        let payloadText: Data =
            if let json = payload as? JSONValue { try JSONWriter.data(json) } else { try WireCodec.encode(payload) }
        return try EnvelopeWriter.encode(self, payload: payloadText)
    }

    static func fastDecoded(from json: JSONValue) -> Envelope? {
        guard case .object(let members) = json,
            case .string(let type)? = members["type"],
            case .integer(let version)? = members["version"], let version = Int(exactly: version),
            case .string(let id)? = members["id"],
            case .integer(let timestamp)? = members["timestamp"],
            let payloadValue = members["payload"],
            let correlationId = optionalString(members["correlationId"]),
            let gameId = optionalString(members["gameId"]),
            let playerId = optionalString(members["playerId"]),
            let publisher = optionalString(members["publisher"]),
            let sequence = optionalSequence(members["sequence"]),
            let actor = optionalActor(members["actor"])
        else { return nil }
        let payload: Payload
        if let value = payloadValue as? Payload {
            payload = value
        } else if let typed = try? JSONValueDecoder.decode(Payload.self, from: payloadValue) {
            payload = typed
        } else {
            return nil
        }
        return Envelope(
            type: MessageType(rawValue: type), version: version, id: id, correlationId: correlationId, gameId: gameId,
            playerId: playerId, timestamp: timestamp, publisher: publisher, sequence: sequence, actor: actor,
            payload: payload)
    }

    /// An optional member: `.some(nil)` when absent or null, nil when it is not a string (not canonical).
    private static func optionalString(_ value: JSONValue?) -> String?? {
        switch value {
        case nil, .null?: return .some(nil)
        case .string(let text)?: return .some(text)
        default: return nil
        }
    }

    private static func optionalSequence(_ value: JSONValue?) -> UInt64?? {
        switch value {
        case nil, .null?: return .some(nil)
        case .integer(let number)? where number >= 0: return .some(UInt64(number))
        default: return nil
        }
    }

    private static func optionalActor(_ value: JSONValue?) -> Actor?? {
        switch value {
        case nil, .null?: return .some(nil)
        case .object(let members)?:
            guard case .string(let kindText)? = members["kind"], let kind = Actor.Kind(rawValue: kindText),
                let playerId = optionalString(members["playerId"]),
                let sessionId = optionalString(members["sessionId"]),
                let gameId = optionalString(members["gameId"]),
                let peer = optionalString(members["peer"]),
                let service = optionalString(members["service"])
            else { return nil }
            return .some(
                Actor(
                    kind: kind, playerId: playerId, sessionId: sessionId, gameId: gameId, peer: peer,
                    service: service))
        default: return nil
        }
    }
}

extension Actor {
    /// The actor's JSON text as the codec writes it (members sorted, absent ones left out).
    public var jsonText: Data {
        var writer = JSONWriter(reservingCapacity: 128)
        writer.append("{")
        var first = true
        func member(_ name: StaticString, _ value: String?) {
            guard let value else { return }
            if !first { writer.append(",") }
            first = false
            writer.append("\"")
            writer.append(name)
            writer.append("\":")
            writer.writeString(value)
        }
        member("gameId", gameId)
        member("kind", kind.rawValue)
        member("peer", peer)
        member("playerId", playerId)
        member("service", service)
        member("sessionId", sessionId)
        writer.append("}")
        return Data(writer.bytes)
    }
}
