import Foundation
import PodiumClient
import PodiumMessages
import PodiumTesting
import Testing

/// Every kind of bad input gets an error reply with a stable code and changes nothing.
@Suite("Malformed input")
struct MalformedInputTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let label: String
        let body: Data
        let code: ErrorCode
        let correlationId: String?
        var field: String? = nil
        /// Sent with the game server's key instead of the player's token.
        var asServer = false
        var testDescription: String { label }

        /// The body with the client's credential added.
        func body(token: String) -> Data {
            guard body.first == UInt8(ascii: "{"), body.starts(with: Data(#"{"id""#.utf8)) else { return body }
            let credential =
                asServer ? #"{"serverKey":"\#(MalformedInputTests.serverKey)","# : #"{"token":"\#(token)","#
            // A player's token names the player; the cases' sample player id is for servers only.
            let text = String(decoding: body.dropFirst(), as: UTF8.self)
            return Data(
                (credential + (asServer ? text : text.replacingOccurrences(of: #""playerId":"p","#, with: ""))).utf8)
        }
    }

    static let serverKey = String(repeating: "s", count: 40)
    static var options: PodiumTestStack.Options { .init(serverKeys: ["g": serverKey]) }

    static func json(_ text: String) -> Data { Data(text.utf8) }

    static let cases: [Case] = [
        Case(label: "not JSON", body: json("hello gateway"), code: .malformedJSON, correlationId: nil),
        Case(
            label: "truncated JSON", body: json(#"{"type":"health","id":"a"#), code: .malformedJSON, correlationId: nil),
        Case(
            label: "invalid UTF-8", body: Data([0x7B, 0x22, 0xFF, 0xFE, 0x22, 0x7D]), code: .malformedJSON,
            correlationId: nil),
        Case(label: "empty frame", body: Data(), code: .malformedJSON, correlationId: nil),
        Case(label: "JSON array", body: json("[1,2,3]"), code: .invalidShape, correlationId: nil),
        Case(
            label: "nested 33 deep",
            body: json(
                #"{"id":"deep-1","type":"health","payload":"# + String(repeating: "[", count: 32)
                    + String(repeating: "]", count: 32) + "}"),
            code: .invalidShape, correlationId: "deep-1"),
        Case(
            label: "513 open brackets (crashed Foundation's decoder)", body: json(String(repeating: "[", count: 513)),
            code: .invalidShape, correlationId: nil),
        Case(label: "JSON string", body: json(#""health""#), code: .invalidShape, correlationId: nil),
        Case(
            label: "missing id", body: json(#"{"type":"health"}"#), code: .missingField, correlationId: nil, field: "id"
        ),
        Case(
            label: "id not a string", body: json(#"{"type":"health","id":7}"#), code: .invalidShape, correlationId: nil,
            field: "id"),
        Case(
            label: "id with spaces", body: json(#"{"type":"health","id":"a b"}"#), code: .invalidField,
            correlationId: nil, field: "id"),
        Case(
            label: "missing type", body: json(#"{"id":"m1"}"#), code: .missingField, correlationId: "m1", field: "type"),
        Case(
            label: "type not a string", body: json(#"{"id":"m2","type":["health"]}"#), code: .invalidShape,
            correlationId: "m2", field: "type"),
        Case(
            label: "unknown type", body: json(#"{"id":"m3","type":"teleport.player"}"#), code: .unknownType,
            correlationId: "m3", field: "type"),
        Case(
            label: "unsupported version", body: json(#"{"id":"m4","type":"health","version":99}"#),
            code: .unsupportedVersion, correlationId: "m4", field: "version"),
        Case(
            label: "version not an integer", body: json(#"{"id":"m5","type":"health","version":"1"}"#),
            code: .invalidShape, correlationId: "m5", field: "version"),
        Case(
            label: "payload not an object",
            body: json(#"{"id":"m6","type":"event.publish","gameId":"g","playerId":"p","payload":[1]}"#),
            code: .invalidShape, correlationId: "m6", field: "payload"),
        Case(
            label: "event without gameId",
            body: json(#"{"id":"m7","type":"event.publish","playerId":"p","payload":{"name":"a.b"}}"#),
            code: .missingField, correlationId: "m7", field: "gameId"),
        Case(
            label: "server event without playerId",
            body: json(#"{"id":"m8","type":"event.publish","gameId":"g","payload":{"name":"a.b"}}"#),
            code: .missingField, correlationId: "m8", field: "playerId", asServer: true),
        Case(
            label: "event without name",
            body: json(#"{"id":"m9","type":"event.publish","gameId":"g","playerId":"p","payload":{"value":3}}"#),
            code: .missingField, correlationId: "m9", field: "payload.name"),
        Case(
            label: "event without payload", body: json(#"{"id":"m10","type":"event.publish","gameId":"g"}"#),
            code: .missingField, correlationId: "m10", field: "payload.name"),
        Case(
            label: "event value not an integer",
            body: json(
                #"{"id":"m11","type":"event.publish","gameId":"g","playerId":"p","payload":{"name":"a","value":"3"}}"#),
            code: .invalidShape, correlationId: "m11", field: "payload.value"),
        Case(
            label: "event value fractional",
            body: json(
                #"{"id":"m12","type":"event.publish","gameId":"g","playerId":"p","payload":{"name":"a","value":1.5}}"#),
            code: .invalidShape, correlationId: "m12", field: "payload.value"),
        Case(
            label: "bad event name",
            body: json(
                #"{"id":"m13","type":"event.publish","gameId":"g","playerId":"p","payload":{"name":"Cactus Hit!"}}"#),
            code: .invalidField, correlationId: "m13", field: "payload.name"),
        Case(
            label: "nested attribute",
            body: json(
                #"{"id":"m14","type":"event.publish","gameId":"g","playerId":"p","payload":{"name":"a","attributes":{"x":{"y":1}}}}"#
            ), code: .invalidField, correlationId: "m14", field: "payload.attributes.x"),
        Case(
            label: "bad game id",
            body: json(#"{"id":"m15","type":"event.publish","gameId":"g/../x","playerId":"p","payload":{"name":"a"}}"#),
            code: .invalidField, correlationId: "m15", field: "gameId"),
        Case(
            label: "game id not a string",
            body: json(#"{"id":"m16","type":"event.publish","gameId":5,"playerId":"p","payload":{"name":"a"}}"#),
            code: .invalidShape, correlationId: "m16", field: "gameId"),
        Case(
            label: "subscribe without game", body: json(#"{"id":"m17","type":"notifications.subscribe"}"#),
            code: .missingField, correlationId: "m17", field: "gameId"),
        Case(
            label: "server test notification without player",
            body: json(#"{"id":"m18","type":"challenge.test-notification","gameId":"g"}"#), code: .missingField,
            correlationId: "m18", field: "playerId", asServer: true),
    ]

    @Test("a malformed request gets an error reply with a stable code", arguments: cases)
    func malformedRequest(_ testCase: Case) async throws {
        try await withPodiumStack(Self.options) { stack in
            let (client, grant) = try await stack.player("malformed")
            defer { Task { await client.close() } }
            try await client.sendFrames([testCase.body(token: grant.sessionToken)])
            let reply = try await client.nextReply()
            let error = try reply.errorReply()
            #expect(error.code == testCase.code)
            #expect(reply.correlationId == testCase.correlationId)
            #expect(!error.message.isEmpty)
            if let field = testCase.field { #expect(error.field == field) }
        }
    }

    @Test("bad input changes nothing: no event is published and sequences stay contiguous")
    func badInputChangesNothing() async throws {
        try await withPodiumStack(Self.options) { stack in
            let (client, grant) = try await stack.player("unchanged")
            defer { Task { await client.close() } }
            let before = try await client.call(GatewayRequests.publish, event(), gameId: "g")
            for testCase in Self.cases {
                try await client.sendFrames([testCase.body(token: grant.sessionToken)])
                #expect(try await client.nextReply().type == .error)
            }
            try await client.sendFrames([Data("a".utf8), Data("b".utf8), Data("c".utf8)])
            #expect(try await client.nextReply().type == .error)
            let after = try await client.call(GatewayRequests.publish, event(), gameId: "g")
            #expect(after.sequence == before.sequence + 1)
            // The achievement service follows the event log; the others do not subscribe to events.
            for service in ["achievement"] {
                // Received live, then applied by the follower (a moment later: its own task).
                let settled = await eventually {
                    let health = try? await client.serviceHealth(service)
                    return health?.recentEventIds.last == after.eventId
                        && health?.streams?[StreamName.events]?.head == after.sequence
                }
                #expect(settled)
                let health = try await client.serviceHealth(service)
                #expect(health.eventsReceived == 2, "\(service) received something from bad input")
                #expect(health.streams?[StreamName.events]?.head == after.sequence, "nothing else was logged")
            }
            #expect(try await client.call(GatewayRequests.health).ready)
        }
    }

    @Test("a message with the wrong number of frames gets wrong_frame_count", arguments: [3, 4, 7])
    func wrongFrameCount(frames: Int) async throws {
        try await withPodiumStack { stack in
            let client = try TestClient(endpoint: stack.endpoints.requests)
            defer { Task { await client.close() } }
            let body = try WireCodec.encode(ClientRequest(type: .health, id: "f1"))
            try await client.sendFrames(Array(repeating: body, count: frames))
            let reply = try await client.nextReply()
            #expect(try reply.errorReply().code == .wrongFrameCount)
        }
    }

    @Test("a request larger than the limit gets message_too_large")
    func oversizedRequest() async throws {
        try await withPodiumStack(.init(maxMessageBytes: 4096)) { stack in
            let client = try TestClient(endpoint: stack.endpoints.requests)
            defer { Task { await client.close() } }
            let padding = String(repeating: "x", count: 5000)
            let body = Data(
                #"{"type":"event.publish","id":"big","gameId":"g","playerId":"p","payload":{"name":"a","attributes":{"pad":"\#(padding)"}}}"#
                    .utf8)
            try await client.sendFrames([body])
            let reply = try await client.nextReply()
            #expect(try reply.errorReply().code == .messageTooLarge)
            // Just under the limit is judged on content, not size.
            let small = Data(
                #"{"type":"gateway.health","id":"small","payload":{"pad":"\#(String(repeating: "y", count: 3900))"}}"#
                    .utf8)
            try await client.sendFrames([small])
            #expect(try await client.nextReply().type == .reply)
        }
    }

    @Test("a frame above the hard limit drops that connection and nothing else")
    func frameAboveHardLimit() async throws {
        try await withPodiumStack(.init(maxMessageBytes: 4096)) { stack in
            let attacker = try TestClient(endpoint: stack.endpoints.requests)
            defer { Task { await attacker.close() } }
            try await attacker.sendFrames([Data(count: 2 << 20)])
            let bystander = try TestClient(endpoint: stack.endpoints.requests)
            defer { Task { await bystander.close() } }
            let reply = try await bystander.call(GatewayRequests.gatewayHealth)
            #expect(reply.ready)
            let allReady = await eventually {
                (try? await bystander.call(GatewayRequests.health).ready) == true
            }
            #expect(allReady)
        }
    }
}
