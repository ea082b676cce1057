import Foundation
import PodiumClient
import PodiumMessages
import PodiumTesting
import Testing

/// Friend requests in the notification inbox (docs/PROTOCOL.md 14.5), end to end over real
/// sockets: the auth service's stream `auth` carries each real change once, and the challenge
/// service keeps and sends `friend.requested` and `friend.accepted` from it, in the game the
/// request came from, also after it was down.
@Suite("Friend requests in the inbox")
struct FriendInboxTests {
    static func items(_ client: TestClient, game: String = "dash") async throws -> [InboxItem] {
        try await client.call(ChallengeRequests.inboxList, InboxListQuery(limit: 200), gameId: game).items
    }

    /// The relation a friend request or accept (with a given request id) leaves.
    static func relation(
        _ client: TestClient, _ definition: RequestDefinition<FriendTarget, FriendRelation>, _ playerId: String,
        game: String? = "dash",
        id: String
    ) async throws -> FriendState {
        try await client.call(definition, FriendTarget(playerId: playerId), gameId: game, id: id).state
    }

    @Test(
        "a request lands in the receiver's inbox and is sent live, the accept in the asker's; repeats and requests without a game add nothing"
    )
    func requestAndAccept() async throws {
        try await withPodiumStack { stack in
            let ann = try await ChallengeFlowTests.player(stack, "ann")
            let ben = try await ChallengeFlowTests.player(stack, "ben")
            let cat = try await ChallengeFlowTests.player(stack, "cat")
            defer { ChallengeFlowTests.close([ann, ben, cat]) }
            #expect(
                try await Self.relation(ann.client, AuthRequests.friendRequest, ben.id, id: "fr-1") == .outgoingRequest)
            let live = try await ChallengeFlowTests.next(ben, kind: "friend.requested")
            #expect(live.details["playerId"] == .string(ann.id))
            #expect(live.details["displayName"] == "ann")
            #expect(live.message == "ann wants to be your friend")
            // A repeat changes nothing and says nothing; a request without a game has no inbox.
            #expect(
                try await Self.relation(ann.client, AuthRequests.friendRequest, ben.id, id: "fr-2") == .outgoingRequest)
            #expect(
                try await Self.relation(cat.client, AuthRequests.friendRequest, ben.id, game: nil, id: "fr-3")
                    == .outgoingRequest)

            #expect(try await Self.relation(ben.client, AuthRequests.friendAccept, ann.id, id: "fa-1") == .friends)
            let told = try await ChallengeFlowTests.next(ann, kind: "friend.accepted")
            #expect(told.details["playerId"] == .string(ben.id))
            #expect(told.message == "ben accepted your friend request")

            // The accept is the stream's last message: once it is kept, so is all before it.
            let annItems = try await Self.items(ann.client)
            #expect(annItems.map(\.kind) == ["friend.accepted"])
            #expect(annItems.first?.correlationId == "fa-1")
            #expect(annItems.first?.id == told.details["inboxId"]?.stringValue)
            let benItems = try await Self.items(ben.client)
            #expect(
                benItems.map(\.kind) == ["friend.requested"], "one item: the repeat and the game-less request made none"
            )
            #expect(benItems.first?.correlationId == "fr-1")
            #expect(benItems.first?.details == ["playerId": .string(ann.id), "displayName": "ann"])
            #expect(benItems.first?.id == live.details["inboxId"]?.stringValue)
            // Three messages on the stream: the request, cat's game-less one and the accept.
            let status = try await RetentionTests.waitForPosition(ben.client, "challenge", StreamName.auth, 3)
            #expect(status.position == 3)
            #expect(try await Self.items(cat.client).isEmpty)
        }
    }

    @Test("a request while the challenge service is down reaches the inbox once it is back")
    func whileChallengeServiceIsDown() async throws {
        let data = FileManager.default.temporaryDirectory.appendingPathComponent(
            "podium-friend-inbox-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: data) }
        let options = PodiumTestStack.Options(dataDirectory: data)
        let (annGrant, benGrant) = try await withPodiumStack(options) { stack in
            let (ann, annGrant) = try await stack.player("ann")
            let (ben, benGrant) = try await stack.player("ben")
            await ann.close()
            await ben.close()
            return (annGrant, benGrant)
        }

        var down = options
        down.services = PodiumTestStack.services().filter { $0.name != "challenge" }
        try await withPodiumStack(down) { stack in
            let ann = try stack.client()
            ann.use(.token(annGrant.sessionToken))
            let ben = try stack.client()
            ben.use(.token(benGrant.sessionToken))
            defer {
                Task {
                    await ann.close()
                    await ben.close()
                }
            }
            #expect(
                try await Self.relation(ann, AuthRequests.friendRequest, benGrant.playerId, id: "fr-down")
                    == .outgoingRequest)
            #expect(
                try await Self.relation(ben, AuthRequests.friendAccept, annGrant.playerId, id: "fa-down") == .friends)
            let unavailable = try await ben.exchange(ChallengeRequests.inboxList, InboxListQuery(), gameId: "dash")
            #expect(unavailable.envelope.type == .error, "no challenge service: \(unavailable.text)")
        }

        try await withPodiumStack(options) { stack in
            let ann = try stack.client()
            ann.use(.token(annGrant.sessionToken))
            let ben = try stack.client()
            ben.use(.token(benGrant.sessionToken))
            defer {
                Task {
                    await ann.close()
                    await ben.close()
                }
            }
            _ = try await RetentionTests.waitForPosition(ben, "challenge", StreamName.auth, 2)
            let benItems = try await Self.items(ben)
            #expect(benItems.map(\.kind) == ["friend.requested"])
            #expect(benItems.first?.correlationId == "fr-down")
            #expect(benItems.first?.details["playerId"] == .string(annGrant.playerId))
            let annItems = try await Self.items(ann)
            #expect(annItems.map(\.kind) == ["friend.accepted"])
            #expect(annItems.first?.correlationId == "fa-down")
        }
    }

    @Test("redeeming a friend code tells its owner, as a request does")
    func redeemedCode() async throws {
        try await withPodiumStack { stack in
            let owner = try await ChallengeFlowTests.player(stack, "owner")
            let guest = try await ChallengeFlowTests.player(stack, "guest")
            defer { ChallengeFlowTests.close([owner, guest]) }
            let invite = try await owner.client.call(AuthRequests.createInvite, InviteRequest())
            let redeemed = try await guest.client.call(
                AuthRequests.redeemInvite, InviteEntry(code: invite.code), gameId: "dash", id: "redeem-1")
            #expect(redeemed.state == .outgoingRequest)
            let live = try await ChallengeFlowTests.next(owner, kind: "friend.requested")
            #expect(live.details["playerId"] == .string(guest.id))
            let items = try await Self.items(owner.client)
            #expect(items.map(\.kind) == ["friend.requested"])
            #expect(items.first?.correlationId == "redeem-1")
            #expect(items.first?.details["displayName"] == "guest")
        }
    }
}
