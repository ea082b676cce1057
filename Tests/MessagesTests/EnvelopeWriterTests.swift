import Foundation
import PodiumMessages
import Testing

/// ``EnvelopeWriter``: an envelope written around a payload kept as JSON text is byte for byte
/// what the codec writes for the same envelope.
@Suite("Envelope writer")
struct EnvelopeWriterTests {
    static let payload: JSONValue = [
        "boardId": "dash.highscore", "total": 3,
        "entries": [
            ["playerId": "a \"quoted\"\nname/ü", "value": -42, "rank": 1, "metadata": ["x": [1.5, true, nil]]]
        ],
    ]

    static let envelopes: [RawEnvelope] = [
        RawEnvelope(
            type: .reply, id: "m-1", correlationId: "client/1", gameId: "dash", playerId: "p1",
            timestamp: 1_795_000_000_123, payload: payload),
        RawEnvelope(type: .reply, id: "m-2", timestamp: 0, payload: [:]),
        RawEnvelope(
            type: "score.accepted", version: 2, id: "m-3", correlationId: "c", gameId: "g", playerId: "p",
            timestamp: -5, publisher: "leaderboard-1", sequence: 18_446_744_073, actor: Actor(kind: .server),
            payload: payload),
        RawEnvelope(type: .error, id: "\u{1}ctl\t", timestamp: 7, payload: ["code": "not_found"]),
    ]

    @Test("the same bytes as the codec, for every optional member present or absent", arguments: envelopes)
    func sameBytes(envelope: RawEnvelope) throws {
        let text = try JSONWriter.data(envelope.payload)
        let written = try EnvelopeWriter.encode(envelope, payload: text)
        // Against the Codable path itself (WireCodec.encode writes envelopes through EnvelopeWriter now).
        #expect(written == (try JSONWriter.data(JSONValueEncoder.encode(envelope))))
        #expect(try WireCodec.decode(RawEnvelope.self, from: written) == envelope)
        // The header scan finds the payload's text where it was written.
        let header = try #require(EnvelopeHeader.scan(written))
        let range = try #require(header.payloadRange)
        #expect(written[range] == text)
    }
}
