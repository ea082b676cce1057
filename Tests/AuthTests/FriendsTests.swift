import Foundation
import PodiumClient
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
                    let friends = try await context.call(
                        AuthRequests.friendsOf, FriendsOfQuery(playerId: query.playerId))
                    return [
                        "friends": .bool(answer.friends), "blocked": .bool(answer.blocked),
                        "friendCount": .integer(Int64(friends.friendIds.count)),
                    ]
                }
            ]))

    /// What the probe answers.
    struct ProbeAnswer: Codable, Sendable {
        var friends: Bool
        var blocked: Bool
        var friendCount: Int
    }

    static let friendship = RequestDefinition<FriendshipQuery, ProbeAnswer>("probe.friendship", access: .signedIn)

    @Test("request, accept, list, remove; block stops requests; services can ask who is friends")
    func friendsFlow() async throws {
        var options = PodiumTestStack.Options()
        options.services.append(Self.probe)
        try await withPodiumStack(options) { stack in
            let (ann, annGrant) = try await stack.player("ann")
            let (ben, benGrant) = try await stack.player("ben")
            let (cat, catGrant) = try await stack.player("cat")
            defer {
                Task {
                    await ann.close()
                    await ben.close()
                    await cat.close()
                }
            }
            func target(_ grant: SessionGrant) -> FriendTarget { FriendTarget(playerId: grant.playerId) }

            #expect(try await ann.call(AuthRequests.friendRequest, target(benGrant)).state == .outgoingRequest)
            let benList = try await ben.call(AuthRequests.friendList)
            #expect(benList.incoming.map(\.playerId) == [annGrant.playerId])
            #expect(try await ben.call(AuthRequests.friendAccept, target(annGrant)).state == .friends)
            let annList = try await ann.call(AuthRequests.friendList)
            #expect(annList.friends == [PublicProfile(playerId: benGrant.playerId, displayName: "ben")])
            #expect(annList.outgoing.isEmpty)

            let asked = try await ann.call(
                Self.friendship, FriendshipQuery(playerId: annGrant.playerId, otherPlayerId: benGrant.playerId))
            #expect(asked.friends == true)
            #expect(asked.friendCount == 1)

            #expect(try await ann.exchange(AuthRequests.friendRequest, target(annGrant)).errorCode == .invalidField)
            #expect(
                try await ann.exchange(AuthRequests.friendRequest, FriendTarget(playerId: "no-such-player")).errorCode
                    == .unknownPlayer)
            #expect(try await ann.exchange(AuthRequests.friendAccept, target(catGrant)).errorCode == .conflict)

            #expect(try await cat.call(AuthRequests.friendBlock, target(annGrant)).state == .blocked)
            #expect(try await ann.exchange(AuthRequests.friendRequest, target(catGrant)).errorCode == .forbidden)
            let blockedProbe = try await ann.call(
                Self.friendship, FriendshipQuery(playerId: annGrant.playerId, otherPlayerId: catGrant.playerId))
            #expect(blockedProbe.blocked == true)
            #expect(try await cat.call(AuthRequests.friendUnblock, target(annGrant)).state == FriendState.none)

            #expect(try await ben.call(AuthRequests.friendRemove, target(annGrant)).state == FriendState.none)
            let after = try await ann.call(AuthRequests.friendList)
            #expect(after.friends.isEmpty)
            #expect(try await cat.call(AuthRequests.friendRequest, target(benGrant)).state == .outgoingRequest)
            #expect(try await ben.call(AuthRequests.friendDecline, target(catGrant)).state == FriendState.none)
        }
    }
}
