import Foundation
import Testing

@testable import PodiumMessages

/// Envelopes written and read without the Codable machinery (EnvelopeCoding) give exactly what
/// the codec gives: the same bytes, the same values, the same refusals.
@Suite("Envelope fast coding")
struct EnvelopeFastCodingTests {
    static let raw: [RawEnvelope] =
        EnvelopeWriterTests.envelopes + [
            RawEnvelope(
                type: "leaderboard.top", id: "m-9", correlationId: "c", gameId: "g", playerId: "p", timestamp: 1,
                actor: Actor(
                    kind: .player, playerId: "p \"1\"", sessionId: "s", gameId: "g", peer: "tcp://1.2.3.4:5",
                    service: "x"),
                payload: .null),
            RawEnvelope(type: .reply, id: "", timestamp: .min, payload: [1, "two", [3.5]]),
        ]

    static let events: [Envelope<GameEvent>] = [
        Envelope(
            type: .gameEvent, id: "e-1", correlationId: "r", gameId: "g", playerId: "p", timestamp: 9,
            publisher: "events", sequence: 42, actor: Actor(kind: .server, gameId: "g"),
            payload: GameEvent(name: "match.end", value: 3, attributes: ["matchId": "m", "n": 2])),
        Envelope(type: .gameEvent, id: "e-2", timestamp: 0, payload: GameEvent(name: "x")),
    ]

    /// The Codable path alone: the reference the fast one must match.
    static func codable<Result>(_ body: () throws -> Result) rethrows -> Result {
        try EnvelopeCodingMode.$codableOnly.withValue(true) { try body() }
    }

    @Test("written: the codec's bytes, for raw and typed payloads")
    func sameBytes() throws {
        for envelope in Self.raw {
            #expect(try WireCodec.encode(envelope) == (try Self.codable { try WireCodec.encode(envelope) }))
        }
        for envelope in Self.events {
            #expect(try WireCodec.encode(envelope) == (try Self.codable { try WireCodec.encode(envelope) }))
        }
    }

    /// Texts of every shape: what the codec reads, and what it refuses.
    static let texts: [String] = [
        #"{"type":"reply","version":1,"id":"a","timestamp":1,"payload":{}}"#,
        #"{"type":"reply","version":1.0,"id":"a","timestamp":1,"payload":{}}"#,
        #"{"type":"reply","version":1.5,"id":"a","timestamp":1,"payload":{}}"#,
        #"{"type":"reply","id":"a","timestamp":1,"payload":{}}"#,
        #"{"type":"reply","version":1,"id":"a","timestamp":1}"#,
        #"{"type":"reply","version":1,"id":"a","timestamp":"1","payload":{}}"#,
        #"{"type":7,"version":1,"id":"a","timestamp":1,"payload":{}}"#,
        #"{"type":"reply","version":1,"id":"a","timestamp":1,"payload":null,"correlationId":null,"gameId":null}"#,
        #"{"type":"reply","version":1,"id":"a","timestamp":1,"payload":{},"correlationId":5}"#,
        #"{"type":"reply","version":1,"id":"a","timestamp":1,"payload":{},"sequence":-1}"#,
        #"{"type":"reply","version":1,"id":"a","timestamp":1,"payload":{},"sequence":18446744073709551615}"#,
        #"{"type":"reply","version":1,"id":"a","timestamp":1,"payload":{},"actor":{"kind":"alien"}}"#,
        #"{"type":"reply","version":1,"id":"a","timestamp":1,"payload":{},"actor":{"kind":"player","playerId":3}}"#,
        #"{"type":"reply","version":1,"id":"a","timestamp":1,"payload":{},"actor":{"kind":"server","gameId":"g","extra":1}}"#,
        #"{"type":"reply","version":1,"id":"a","timestamp":1,"payload":{},"actor":"admin"}"#,
        #"{"type":"reply","version":1,"id":"a","timestamp":1,"payload":{},"unknown":[1,2]}"#,
        #"{"type":"game.event","version":1,"id":"a","timestamp":1,"payload":{"name":"x","value":2}}"#,
        #"{"type":"game.event","version":1,"id":"a","timestamp":1,"payload":{"value":2}}"#,
        #"{"type":"game.event","version":1,"id":"a","timestamp":1,"payload":{"name":"x","value":"2"}}"#,
        #"[1,2]"#,
    ]

    @Test("read: the codec's values and refusals, for raw and typed payloads")
    func sameValues() throws {
        var texts = Self.texts
        texts += try Self.raw.map { String(decoding: try WireCodec.encode($0), as: UTF8.self) }
        texts += try Self.events.map { String(decoding: try WireCodec.encode($0), as: UTF8.self) }
        for text in texts {
            let data = Data(text.utf8)
            let json = try JSONParser.parse(data)
            #expect(
                (try? WireCodec.decode(RawEnvelope.self, from: data))
                    == (try? JSONValueDecoder.decode(RawEnvelope.self, from: json)), "\(text)")
            #expect(
                (try? WireCodec.decode(Envelope<GameEvent>.self, from: data))
                    == (try? JSONValueDecoder.decode(Envelope<GameEvent>.self, from: json)), "\(text)")
            #expect(
                (try? WireCodec.convert(json, to: RawEnvelope.self))
                    == (try? JSONValueDecoder.decode(RawEnvelope.self, from: json)), "\(text)")
            // A refusal is the codec's own, word for word.
            if (try? JSONValueDecoder.decode(Envelope<GameEvent>.self, from: json)) == nil {
                var fast = ""
                var codec = ""
                do { _ = try WireCodec.decode(Envelope<GameEvent>.self, from: data) } catch { fast = "\(error)" }
                do { _ = try JSONValueDecoder.decode(Envelope<GameEvent>.self, from: json) } catch {
                    codec = "\(error)"
                }
                #expect(fast == codec && !fast.isEmpty, "\(text)")
            }
        }
        // What the codec writes is read on the fast path, not left to the codec.
        for envelope in Self.raw {
            #expect(RawEnvelope.fastDecoded(from: try JSONParser.parse(WireCodec.encode(envelope))) == envelope)
        }
        for envelope in Self.events {
            #expect(
                Envelope<GameEvent>.fastDecoded(from: try JSONParser.parse(WireCodec.encode(envelope))) == envelope)
        }
    }

    @Test("nested: a stream page's envelopes are read on the fast path, to the codec's values and refusals")
    func nested() throws {
        let page = StreamPage(
            messages: Self.raw.map { StreamMessage(topic: "event/g/x", envelope: $0) }, head: 9, first: 2)
        let data = try WireCodec.encode(page)
        #expect(try WireCodec.decode(StreamPage.self, from: data) == page)
        #expect(
            try WireCodec.decode(StreamPage.self, from: data)
                == (try Self.codable {
                    try WireCodec.decode(StreamPage.self, from: data)
                }))
        for text in Self.texts where text.hasPrefix("{") {
            let pageText =
                Data(#"{"head":1,"messages":[{"topic":"t","envelope":"#.utf8) + Data(text.utf8)
                + Data("}]}".utf8)
            // Values compare with ==, not by their descriptions: a dictionary's order is not fixed.
            let fast = Result { try WireCodec.decode(StreamPage.self, from: pageText) }
            let codec = Result { try Self.codable { try WireCodec.decode(StreamPage.self, from: pageText) } }
            switch (fast, codec) {
            case (.success(let fastPage), .success(let codecPage)): #expect(fastPage == codecPage, "\(text)")
            case (.failure(let fastError), .failure(let codecError)):
                #expect("\(fastError)" == "\(codecError)", "\(text)")
            default: Issue.record("one path read it, the other refused it: \(fast) / \(codec) for \(text)")
            }
        }
    }
}
