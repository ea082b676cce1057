/// Something that happened in a game, sent by the game and fanned out to the services
/// (`cactus.hit`, `match.end` with a score, `tick` with elapsed seconds).
///
/// The envelope carries the game and the player; the payload says what happened.
public struct GameEvent: Codable, Sendable, Equatable {
    /// The event's name, such as `match.end` (see ``Identifiers/isValidEventName(_:)``).
    public var name: String
    /// An optional number the event measures (a score, seconds, a count).
    public var value: Int64?
    /// Scalar attributes (`{"matchId": "m-7", "variant": "blackjack"}`); at most 32, no nesting.
    public var attributes: [String: JSONValue]?

    /// Most attributes an event may carry.
    public static let maximumAttributes = 32
    /// Longest attribute key.
    public static let maximumAttributeKeyLength = 64
    /// Longest attribute string value, in UTF-8 bytes.
    public static let maximumAttributeStringLength = 256

    public init(name: String, value: Int64? = nil, attributes: [String: JSONValue]? = nil) {
        self.name = name
        self.value = value
        self.attributes = attributes
    }

    private enum CodingKeys: String, CodingKey {
        case name, value, attributes
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        name = try container.decode(String.self, forKey: .name)
        // Decoded through JSONValue so that 1.5 or "3" is reported as a type mismatch of `value`.
        switch try container.decodeIfPresent(JSONValue.self, forKey: .value) {
        case nil: value = nil
        case .integer(let number)?: value = number
        case _?:
            throw DecodingError.typeMismatch(
                Int64.self,
                DecodingError.Context(
                    codingPath: container.codingPath + [CodingKeys.value], debugDescription: "value must be an integer")
            )
        }
        attributes = try container.decodeIfPresent([String: JSONValue].self, forKey: .attributes)
    }

    /// Checks the event's content; the first problem found is thrown.
    public func validate() throws(ErrorReply) {
        guard Identifiers.isValidEventName(name) else {
            throw ErrorReply(
                code: .invalidField,
                message: "event name must be 1-64 characters of a-z, 0-9, '.', '_' or '-', starting with a letter",
                field: "payload.name")
        }
        guard let attributes else { return }
        guard attributes.count <= Self.maximumAttributes else {
            throw ErrorReply(
                code: .invalidField, message: "an event carries at most \(Self.maximumAttributes) attributes",
                field: "payload.attributes")
        }
        for (key, value) in attributes {
            guard !key.isEmpty, key.utf8.count <= Self.maximumAttributeKeyLength else {
                throw ErrorReply(
                    code: .invalidField, message: "attribute keys must be 1-64 bytes",
                    field: "payload.attributes")
            }
            guard value.isScalar else {
                throw ErrorReply(
                    code: .invalidField, message: "attribute values must be strings, numbers, booleans or null",
                    field: "payload.attributes.\(key)")
            }
            if case .string(let text) = value, text.utf8.count > Self.maximumAttributeStringLength {
                throw ErrorReply(
                    code: .invalidField, message: "attribute strings are at most 256 bytes",
                    field: "payload.attributes.\(key)")
            }
        }
    }
}

/// The gateway's reply to `event.publish`: the event is in the event log on disk and on the bus.
///
/// Sending the same request id again (same game and player) returns this acknowledgement again
/// with `duplicate: true` and logs nothing new.
public struct EventAcknowledgement: Codable, Sendable, Equatable {
    /// The id of the published bus message (the event's id from now on).
    public var eventId: String
    /// The topic it was published on.
    public var topic: String
    /// The event log's publisher id on the bus (``StreamName/events``).
    public var publisher: String
    /// The event's position in the event log: its sequence number on the bus.
    public var sequence: UInt64
    /// When the log accepted it (milliseconds since the epoch).
    public var acceptedAt: Int64?
    /// True when this answers a resend of an already logged request id.
    public var duplicate: Bool?

    public init(
        eventId: String, topic: String, publisher: String, sequence: UInt64, acceptedAt: Int64? = nil,
        duplicate: Bool? = nil
    ) {
        self.eventId = eventId
        self.topic = topic
        self.publisher = publisher
        self.sequence = sequence
        self.acceptedAt = acceptedAt
        self.duplicate = duplicate
    }
}
