import Foundation
import PodiumMessages
import PodiumRuntime
import PodiumTesting
import Testing

@Suite("Friends")
struct FriendsTests {
    /// A stand-in service that asks the auth service about friends the way other services will.
    static let probe = ServiceBlueprint(
        ServiceDefinition(
            name: "probe", subscriptions: [],
            requestHandlers: [
                "probe.friendship": { request, context in
                    let query = try request.decodePayload(as: FriendshipQuery.self)
                    let answer = try await context.call(AuthRequests.friendCheck, query)
                    let friends = try await context.call(AuthRequests.friendsOf, FriendsOfQuery(playerId: query.playerId))
                    return ["friends": .bool(answer.friends), "blocked": .bool(answer.blocked),
                            "friendCount": .integer(Int64(friends.friendIds.count))]
                }
            ]))

    static func relation(_ reply: RawEnvelope) throws -> FriendState {
        try reply.decodePayload(as: FriendRelation.self).state
    }

    @Test("request, accept, list, remove; block stops requests; services can ask who is friends")
    func friendsFlow() async throws {
        var options = PodiumTestStack.Options()
        options.services.append(Self.probe)
        try await withPodiumStack(options) { stack in
            let (ann, annGrant) = try await stack.player("ann")
            let (ben, benGrant) = try await stack.player("ben")
            let (cat, catGrant) = try await stack.player("cat")
            defer { Task { await ann.close(); await ben.close(); await cat.close() } }
            func target(_ grant: SessionGrant) -> JSONValue { ["playerId": .string(grant.playerId)] }

            #expect(try Self.relation(await ann.request("auth.friends.request", payload: target(benGrant))) == .outgoingRequest)
            let benList = try await ben.request("auth.friends.list").decodePayload(as: FriendList.self)
            #expect(benList.incoming.map(\.playerId) == [annGrant.playerId])
            #expect(try Self.relation(await ben.request("auth.friends.accept", payload: target(annGrant))) == .friends)
            let annList = try await ann.request("auth.friends.list").decodePayload(as: FriendList.self)
            #expect(annList.friends == [PublicProfile(playerId: benGrant.playerId, displayName: "ben")])
            #expect(annList.outgoing.isEmpty)

            let asked = try await ann.request(
                "probe.friendship", payload: ["playerId": .string(annGrant.playerId), "otherPlayerId": .string(benGrant.playerId)])
            #expect(asked.payload["friends"] == true)
            #expect(asked.payload["friendCount"] == 1)

            #expect(try await ann.request("auth.friends.request", payload: target(annGrant)).errorCode == .invalidField)
            #expect(try await ann.request("auth.friends.request", payload: ["playerId": "no-such-player"]).errorCode == .unknownPlayer)
            #expect(try await ann.request("auth.friends.accept", payload: target(catGrant)).errorCode == .conflict)

            #expect(try Self.relation(await cat.request("auth.friends.block", payload: target(annGrant))) == .blocked)
            #expect(try await ann.request("auth.friends.request", payload: target(catGrant)).errorCode == .forbidden)
            let blockedProbe = try await ann.request(
                "probe.friendship", payload: ["playerId": .string(annGrant.playerId), "otherPlayerId": .string(catGrant.playerId)])
            #expect(blockedProbe.payload["blocked"] == true)
            #expect(try Self.relation(await cat.request("auth.friends.unblock", payload: target(annGrant))) == .none)

            #expect(try Self.relation(await ben.request("auth.friends.remove", payload: target(annGrant))) == .none)
            let after = try await ann.request("auth.friends.list").decodePayload(as: FriendList.self)
            #expect(after.friends.isEmpty)
            #expect(try Self.relation(await cat.request("auth.friends.request", payload: target(benGrant))) == .outgoingRequest)
            #expect(try Self.relation(await ben.request("auth.friends.decline", payload: target(catGrant))) == .none)
        }
    }
}
