import Foundation
import PodiumClient
import PodiumMessages
import PodiumRuntime
import PodiumTesting
import Testing

/// A service's typed handlers check who may send a type and the payload's shape themselves,
/// whatever the gateway let through (a type the gateway has no definition for is forwarded as is).
@Suite("Typed request handlers")
struct TypedHandlerTests {
    struct Greeting: Codable, Sendable, Equatable {
        var name: String
        var times: Int?
    }

    struct Greeted: Codable, Sendable, Equatable {
        var text: String
        var caller: String
    }

    static let greet = RequestDefinition<Greeting, Greeted>("probe.greet", access: .player)
    static let ask = RequestDefinition<EmptyPayload, Friendship>("probe.ask", access: .signedIn)

    static let probe = ServiceBlueprint(
        ServiceDefinition(
            name: "probe", subscriptions: [],
            handlers: [
                greet.handler { request, _ in
                    Greeted(
                        text: String(
                            repeating: "hi \(request.payload.name) ", count: request.payload.times ?? 1),
                        caller: try request.player())
                },
                // Calls another service through its definition and gets its typed reply (or its error).
                ask.handler { request, context in
                    try await context.call(
                        AuthRequests.friendCheck,
                        FriendshipQuery(playerId: try request.subjectPlayer(), otherPlayerId: "nobody"))
                },
            ]))

    @Test(
        "access is checked before the payload; a bad payload is invalid_shape or missing_field with its path; typed replies"
    )
    func typedHandlers() async throws {
        let serverKey = String(repeating: "s", count: 40)
        var options = PodiumTestStack.Options(serverKeys: ["dash": serverKey])
        options.services.append(Self.probe)
        try await withPodiumStack(options) { stack in
            let (player, grant) = try await stack.player("pat")
            let server = try TestClient(endpoint: stack.endpoints.requests)
            server.use(.serverKey(serverKey))
            defer {
                Task {
                    await player.close()
                    await server.close()
                }
            }

            let reply = try await player.call(Self.greet, Greeting(name: "ann", times: 2))
            #expect(reply == Greeted(text: "hi ann hi ann ", caller: grant.playerId))

            // A server key is not a player's session: refused by the service, before the payload is read.
            // Payloads of the wrong shape, hand-built: no typed Greeting can carry them.
            let refused = try await server.request(
                Self.greet.type, gameId: "dash", playerId: grant.playerId, payload: ["name": 5])
            #expect(refused.errorCode == .forbidden)

            let wrongType = try await player.request(Self.greet.type, payload: ["name": 5])
            #expect(wrongType.errorCode == .invalidShape)
            #expect(try wrongType.decodePayload(as: ErrorReply.self).field == "payload.name")
            let missing = try await player.request(Self.greet.type, payload: ["times": 1])
            #expect(missing.errorCode == .missingField)
            #expect(try missing.decodePayload(as: ErrorReply.self).field == "payload.name")

            let relation = try await server.call(Self.ask, gameId: "dash", playerId: grant.playerId)
            #expect(relation == Friendship(friends: false, blocked: false))
            // No player to ask about: the probe's own missing_field.
            let noPlayer = try await server.exchange(Self.ask, gameId: "dash")
            #expect(noPlayer.errorCode == .missingField)
        }
    }
}
