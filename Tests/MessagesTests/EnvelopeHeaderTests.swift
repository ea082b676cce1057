import Foundation
import PodiumMessages
import Testing

/// ``EnvelopeHeader``: the gateway's shallow read of a service's reply and the correlation id
/// swapped in the bytes.
@Suite("Envelope header")
struct EnvelopeHeaderTests {
    static let reply = RawEnvelope(
        type: .reply, id: "m-1", correlationId: "internal-7", gameId: "dash", playerId: "p1",
        timestamp: 1_795_000_000_123,
        payload: [
            "type": "not the envelope's", "correlationId": "nor this",
            "entries": [["playerId": "a \"quoted\" name", "nested": ["type": "deep", "list": [1, 2.5, true, nil]]]],
        ])

    @Test("reads type and correlation id at the top level only, and swaps the id in the bytes")
    func swapsTheCorrelationId() throws {
        let data = try WireCodec.encode(Self.reply)
        let header = try #require(EnvelopeHeader.scan(data))
        #expect(header.type == "reply")
        #expect(header.correlationId == "internal-7")
        let swapped = try #require(header.replacingCorrelationId(in: data, with: "client \"id\" 1"))
        var expected = Self.reply
        expected.correlationId = "client \"id\" 1"
        #expect(try WireCodec.decode(RawEnvelope.self, from: swapped) == expected)
        // The same bytes the gateway wrote when it decoded the reply and encoded it again.
        #expect(swapped == (try WireCodec.encode(expected)))
    }

    @Test("works on a slice of a larger buffer (a frame)")
    func worksOnASlice() throws {
        let data = try WireCodec.encode(Self.reply)
        let framed = (Data("xx".utf8) + data + Data("yy".utf8)).dropFirst(2).dropLast(2)
        let header = try #require(EnvelopeHeader.scan(Data(framed)))
        let fromSlice = try #require(EnvelopeHeader.scan(framed))
        #expect(fromSlice == header)
        let swapped = try #require(fromSlice.replacingCorrelationId(in: framed, with: "c"))
        #expect(try WireCodec.decode(RawEnvelope.self, from: swapped).correlationId == "c")
    }

    @Test(
        "no plain object, escapes in the members it reads, or broken text: nil (decode in full)",
        arguments: [
            "", "[]", "\"reply\"", "{", "{\"type\":\"reply\"", "{\"type\" \"reply\"}",
            "{\"type\":\"re\\u0070ly\",\"correlationId\":\"x\"}",
            "{\"type\":\"reply\",\"correlationId\":\"a\\\"b\"}", "{\"payload\":{\"a\":[1,2}", "{\"a\":1 \"b\":2}",
        ])
    func refusesWhatItCannotRead(text: String) {
        #expect(EnvelopeHeader.scan(Data(text.utf8)) == nil)
    }

    @Test("an envelope without a correlation id has no range to swap")
    func noCorrelationId() throws {
        let header = try #require(EnvelopeHeader.scan(Data(#"{ "type" : "error" , "payload" : {"code":"x"} }"#.utf8)))
        #expect(header.type == "error")
        #expect(header.correlationId == nil)
        #expect(header.replacingCorrelationId(in: Data(), with: "c") == nil)
        let empty = try #require(EnvelopeHeader.scan(Data("{}".utf8)))
        #expect(empty.type == nil && empty.correlationId == nil)
    }
}

/// ``MessageID``: UUID-shaped, distinct.
@Suite("Message ids")
struct MessageIDTests {
    @Test("ids are version-4-shaped UUIDs Foundation reads, and 100,000 of them from 8 tasks never repeat")
    func idsAreDistinctUUIDs() async throws {
        let ids = await withTaskGroup(of: [String].self) { group in
            for _ in 0..<8 { group.addTask { (0..<12_500).map { _ in MessageID.make() } } }
            var all: [String] = []
            for await some in group { all += some }
            return all
        }
        #expect(Set(ids).count == 100_000)
        for id in ids.prefix(100) {
            let uuid = try #require(UUID(uuidString: id), "\(id)")
            #expect(uuid.uuidString.lowercased() == id)
            let characters = Array(id)
            #expect(characters[14] == "4")
            #expect("89ab".contains(characters[19]))
        }
    }
}
