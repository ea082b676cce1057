import Foundation
import PodiumMessages
import Testing

@Suite("Envelope and payload coding")
struct EnvelopeCodingTests {
    @Test("an envelope round-trips through the wire codec unchanged")
    func envelopeRoundTrip() throws {
        let envelope = Envelope(
            type: .gameEvent, id: "e-1", correlationId: "r-1", gameId: "dash", playerId: "p1",
            timestamp: 1_795_000_000_123, publisher: "gateway-1", sequence: 42,
            payload: GameEvent(name: "match.end", value: Int64.max, attributes: ["won": true, "variant": "classic"]))
        let data = try WireCodec.encode(envelope)
        #expect(try WireCodec.decode(Envelope<GameEvent>.self, from: data) == envelope)
        let raw = try WireCodec.decode(RawEnvelope.self, from: data)
        #expect(raw.payload["value"] == .integer(Int64.max))
        #expect(try raw.decodePayload(as: GameEvent.self) == envelope.payload)
    }

    @Test("absent optional fields are omitted and keys are sorted")
    func compactSortedOutput() throws {
        let envelope = Envelope(type: .reply, id: "x", timestamp: 5, payload: EmptyPayload())
        let text = String(decoding: try WireCodec.encode(envelope), as: UTF8.self)
        #expect(text == #"{"id":"x","payload":{},"timestamp":5,"type":"reply","version":1}"#)
    }

    @Test("JSON values keep 64-bit integers exact and tell integers from fractions")
    func jsonValuePrecision() throws {
        let value = try WireCodec.decode(
            JSONValue.self, from: Data(#"[9007199254740993, 1.5, -3, "s", null, true, {"k": []}]"#.utf8))
        #expect(value == [.integer(9_007_199_254_740_993), .double(1.5), .integer(-3), "s", .null, true, ["k": []]])
        #expect(try WireCodec.decode(JSONValue.self, from: try WireCodec.encode(value)) == value)
    }

    @Test("a game event with a non-integer value is a type mismatch on that field")
    func eventValueMustBeInteger() {
        for body in [#"{"name":"a","value":1.5}"#, #"{"name":"a","value":"3"}"#] {
            #expect(throws: DecodingError.self) { try WireCodec.decode(GameEvent.self, from: Data(body.utf8)) }
        }
        #expect(
            (try? WireCodec.decode(GameEvent.self, from: Data(#"{"name":"a","value":null}"#.utf8)))
                == GameEvent(name: "a"))
    }

    @Test("error codes are stable strings")
    func errorCodeStrings() throws {
        let reply = ErrorReply(code: .messageTooLarge, message: "too big", field: nil)
        #expect(
            String(decoding: try WireCodec.encode(reply), as: UTF8.self)
                == #"{"code":"message_too_large","message":"too big"}"#)
        #expect(ErrorCode.malformedJSON.rawValue == "malformed_json")
        #expect(ErrorCode.wrongFrameCount.rawValue == "wrong_frame_count")
        #expect(ErrorCode.serviceUnavailable.rawValue == "service_unavailable")
    }
}

@Suite("Game event validation")
struct GameEventValidationTests {
    @Test("valid events pass", arguments: ["cactus.hit", "match.end", "tick", "a", "level_up-2"])
    func validNames(name: String) throws {
        try GameEvent(name: name, value: 1, attributes: ["matchId": "m-1"]).validate()
    }

    @Test(
        "bad names are rejected on payload.name",
        arguments: ["", "Cactus", "1st", "has space", "a/b", String(repeating: "a", count: 65)])
    func invalidNames(name: String) {
        #expect(throws: ErrorReply.self) { try GameEvent(name: name).validate() }
        do {
            try GameEvent(name: name).validate()
        } catch {
            #expect(error.field == "payload.name")
            #expect(error.code == .invalidField)
        }
    }

    @Test("attributes are bounded: count, key length, nesting, string length")
    func attributeLimits() {
        let tooMany = Dictionary(uniqueKeysWithValues: (0...32).map { ("k\($0)", JSONValue.integer(Int64($0))) })
        let cases: [[String: JSONValue]] = [
            tooMany, [String(repeating: "k", count: 65): 1], ["": 1], ["nested": ["a": 1]], ["list": [1, 2]],
            ["long": .string(String(repeating: "x", count: 257))],
        ]
        for attributes in cases {
            #expect(throws: ErrorReply.self) { try GameEvent(name: "a", attributes: attributes).validate() }
        }
        let atLimit = Dictionary(
            uniqueKeysWithValues: (0..<32).map { ("k\($0)", JSONValue.string(String(repeating: "x", count: 256))) })
        #expect(throws: Never.self) { try GameEvent(name: "a", attributes: atLimit).validate() }
    }
}

@Suite("JSON nesting scan")
struct JSONNestingTests {
    @Test("depth counts arrays and objects, not brackets inside strings; the top-level id is found")
    func scan() {
        let found = JSONNesting.scan(Array(#"{"id":"a-1","p":[[{"x":"[[[["}]]]}"#.utf8))
        #expect(found.depth == 4 && found.topLevelID == "a-1")
        #expect(JSONNesting.scan(Array(#"{"p":{"id":"inner"},"id":"outer"}"#.utf8)).topLevelID == "outer")
        #expect(
            JSONNesting.scan(Array(#"{"p":"id","q":"x"}"#.utf8)).topLevelID == nil,
            "a value equal to \"id\" is not the key")
        #expect(
            JSONNesting.scan(Array(#"{"id":"a\"b"}"#.utf8)).topLevelID == nil, "escaped ids are left to the decoder")
        #expect(JSONNesting.scan(Array(String(repeating: "[", count: 513).utf8)).depth == 513)
        #expect(JSONNesting.scan(Array("not json at all".utf8)).depth == 0)
    }
}
