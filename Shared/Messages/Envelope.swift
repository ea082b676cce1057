import Foundation

/// The frame every Podium message travels in: requests, replies, bus events and notifications.
///
/// JSON keys are the property names. Optional fields are omitted when absent.
public struct Envelope<Payload: Codable & Sendable & Equatable>: Codable, Sendable, Equatable {
    /// What the message is; decides the payload's shape.
    public var type: MessageType
    /// The schema version of this type's payload (see ``Envelope/currentVersion``).
    public var version: Int
    /// Unique id of this message. For a client's request it is the request id the client chose.
    public var id: String
    /// The id of the message this one answers or was caused by.
    public var correlationId: String?
    /// The game the message concerns.
    public var gameId: String?
    /// The player the message concerns, where one applies.
    public var playerId: String?
    /// When the message was created, milliseconds since the Unix epoch (UTC).
    public var timestamp: Int64
    /// Who published it on the bus (only on published messages).
    public var publisher: String?
    /// The publisher's sequence number, 1, 2, 3… without gaps (only on published messages).
    public var sequence: UInt64?
    /// Who the message acts for, stamped by the gateway (on forwarded requests and published events).
    public var actor: Actor?
    /// The type-specific content.
    public var payload: Payload

    /// The schema version this build writes.
    public static var currentVersion: Int { 1 }

    public init(
        type: MessageType,
        version: Int = Self.currentVersion,
        id: String = MessageID.make(),
        correlationId: String? = nil,
        gameId: String? = nil,
        playerId: String? = nil,
        timestamp: Int64,
        publisher: String? = nil,
        sequence: UInt64? = nil,
        actor: Actor? = nil,
        payload: Payload
    ) {
        self.type = type
        self.version = version
        self.id = id
        self.correlationId = correlationId
        self.gameId = gameId
        self.playerId = playerId
        self.timestamp = timestamp
        self.publisher = publisher
        self.sequence = sequence
        self.actor = actor
        self.payload = payload
    }

    /// The same header with another payload.
    public func replacingPayload<Other>(_ payload: Other) -> Envelope<Other> {
        Envelope<Other>(
            type: type, version: version, id: id, correlationId: correlationId, gameId: gameId,
            playerId: playerId, timestamp: timestamp, publisher: publisher, sequence: sequence, actor: actor,
            payload: payload)
    }
}

/// An envelope whose payload is kept as plain JSON (what the gateway routes without knowing it).
public typealias RawEnvelope = Envelope<JSONValue>

extension Envelope where Payload == JSONValue {
    /// Decodes the payload as a concrete type.
    public func decodePayload<Value: Decodable>(as type: Value.Type) throws -> Value {
        try WireCodec.convert(payload, to: type)
    }
}

/// An empty payload (`{}`).
public struct EmptyPayload: Codable, Sendable, Equatable {
    public init() {}
}
