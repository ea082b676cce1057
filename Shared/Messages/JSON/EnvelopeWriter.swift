import Foundation

/// Writes an envelope around a payload that is already JSON text, byte for byte what
/// ``WireCodec/encode(_:)`` writes for the same envelope (members sorted by name, optional ones
/// left out): a reply kept as bytes goes out again without being parsed into values and written.
public enum EnvelopeWriter {
    /// The envelope's bytes; `payload` is the payload's JSON text as it is, `actor` the actor's
    /// (``Actor/jsonText`` when not given).
    public static func encode<Payload>(_ envelope: Envelope<Payload>, payload: Data, actor actorText: Data? = nil)
        throws -> Data
    {
        var writer = JSONWriter(reservingCapacity: payload.count + 256)
        writer.append("{")
        var first = true
        func member(_ name: StaticString) {
            if !first { writer.append(",") }
            first = false
            writer.append("\"")
            writer.append(name)
            writer.append("\":")
        }
        if let actor = envelope.actor {
            member("actor")
            writer.appendRaw(actorText ?? actor.jsonText)
        }
        if let correlationId = envelope.correlationId {
            member("correlationId")
            writer.writeString(correlationId)
        }
        if let gameId = envelope.gameId {
            member("gameId")
            writer.writeString(gameId)
        }
        member("id")
        writer.writeString(envelope.id)
        member("payload")
        writer.appendRaw(payload)
        if let playerId = envelope.playerId {
            member("playerId")
            writer.writeString(playerId)
        }
        if let publisher = envelope.publisher {
            member("publisher")
            writer.writeString(publisher)
        }
        if let sequence = envelope.sequence {
            member("sequence")
            guard let number = Int64(exactly: sequence) else {
                throw EncodingError.invalidValue(
                    sequence, EncodingError.Context(codingPath: [], debugDescription: "sequence out of range"))
            }
            writer.writeInteger(number)
        }
        member("timestamp")
        writer.writeInteger(envelope.timestamp)
        member("type")
        writer.writeString(envelope.type.rawValue)
        member("version")
        writer.writeInteger(Int64(envelope.version))
        writer.append("}")
        return Data(writer.bytes)
    }
}
