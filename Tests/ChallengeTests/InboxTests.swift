import Foundation
import PodiumClient
import PodiumMessages
import PodiumTesting
import Testing

/// The notification inbox of every kind (docs/PROTOCOL.md 14.5), through the gateway over real
/// sockets: what a player was sent while offline waits for them, across a restart.
@Suite("Notification inbox")
struct InboxTests {
    static func list(_ client: TestClient, _ query: InboxListQuery = InboxListQuery(), game: String = "whackacac")
        async throws -> InboxList
    {
        try await client.call(ChallengeRequests.inboxList, query, gameId: game)
    }

    /// Polls until the player's inbox holds `count` items (they come from other services' streams).
    static func waitForItems(_ client: TestClient, _ count: Int, game: String = "whackacac") async throws -> InboxList {
        let deadline = ContinuousClock.now + .seconds(15)
        while true {
            let page = try await list(client, InboxListQuery(limit: 200), game: game)
            if page.items.count >= count || ContinuousClock.now > deadline { return page }
            try await Task.sleep(for: .milliseconds(100))
        }
    }

    @Test(
        "an offline player finds every kind in the inbox, reads, pages, catches up and deletes; it survives a restart")
    func offlinePlayer() async throws {
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("podium-inbox-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: data) }
        let admin = String(repeating: "a", count: 40)
        let auth = PodiumTestStack.testAuthConfiguration
        let options = PodiumTestStack.Options(adminKey: admin, auth: auth, dataDirectory: data)
        let (grant, before): (SessionGrant, [InboxItem]) = try await withPodiumStack(options) { stack in
            // The player never subscribes: everything reaches them only through the inbox.
            let (player, grant) = try await stack.player("offline")
            let (friend, friendGrant) = try await stack.player("friendly")
            let operatorClient = try TestClient(endpoint: stack.endpoints.requests)
            operatorClient.use(.adminKey(admin))
            defer {
                Task {
                    await player.close()
                    await friend.close()
                    await operatorClient.close()
                }
            }
            _ = try await player.call(AuthRequests.friendRequest, FriendTarget(playerId: friendGrant.playerId))
            _ = try await friend.call(AuthRequests.friendAccept, FriendTarget(playerId: grant.playerId))

            // A challenge received: the friend earns Kill One and challenges the player to earn it too.
            _ = try await friend.call(
                GatewayRequests.publish, GameEvent(name: "cactus.hit", attributes: ["matchId": "m2"]),
                gameId: "whackacac")
            let dare = ChallengeIssue(
                kind: .achievement, achievementId: "com.dragonforged.whackacac.killone", receivers: [grant.playerId])
            var issued: PodiumReply<ChallengeDetail>?
            for _ in 0..<200 {
                issued = try await friend.exchange(ChallengeRequests.issue, dare, gameId: "whackacac", id: "dare-1")
                if issued?.isSuccess == true { break }
                try await Task.sleep(for: .milliseconds(50))
            }
            #expect(issued?.isSuccess == true, "\(issued?.text ?? "no reply")")
            // An achievement earned from an event (kept from the achievement service's stream),
            // which also completes the challenge.
            let event = try await player.exchange(
                GatewayRequests.publish, GameEvent(name: "cactus.hit", attributes: ["matchId": "m1"]),
                gameId: "whackacac", id: "first-hit")
            #expect(event.isSuccess)
            // An operator's notice meant for this player.
            let restart = OperatorNotice(
                message: "Servers restart at 04:00 UTC", details: ["url": "https://status.example.com"])
            let notice = try await operatorClient.exchange(
                ChallengeRequests.inboxNotify, restart, gameId: "whackacac", playerId: grant.playerId, id: "notice-1")
            #expect(notice.isSuccess, "\(notice.text)")

            let page = try await Self.waitForItems(player, 4)
            #expect(
                Set(page.items.map(\.kind)) == [
                    "achievement.earned", "challenge.received", "challenge.completed", "operator.notice",
                ],
                "\(page.items.map(\.kind))")
            #expect(page.unread == 4)
            #expect(page.nextBefore == nil)
            let positions = page.items.compactMap(\.position)
            #expect(positions == positions.sorted(by: >), "newest first")
            let earned = try #require(page.items.first { $0.kind == "achievement.earned" })
            #expect(earned.details["achievementId"] == "com.dragonforged.whackacac.killone")
            #expect(earned.correlationId != nil, "the game event that earned it")
            #expect(page.items.first { $0.kind == "challenge.received" }?.correlationId == "dare-1")
            #expect(page.items.first { $0.kind == "operator.notice" }?.correlationId == "notice-1")
            #expect(page.items.first { $0.kind == "operator.notice" }?.details["url"] == "https://status.example.com")
            // A resend of the notice (its reply lost) keeps and sends nothing new.
            let again = try await operatorClient.call(
                ChallengeRequests.inboxNotify, restart, gameId: "whackacac", playerId: grant.playerId, id: "notice-1")
            #expect(again.id == "notice:whackacac:\(grant.playerId):notice-1")
            #expect(again.position != nil, "the kept item answers")
            let other = try await operatorClient.exchange(
                ChallengeRequests.inboxNotify, OperatorNotice(message: "something else"), gameId: "whackacac",
                playerId: grant.playerId,
                id: "notice-1")
            #expect(other.errorCode == .idReused)
            #expect(try await Self.list(player, InboxListQuery(kinds: ["operator.notice"])).items.count == 1)

            // Pages of one, newest first, continue with nextBefore; kinds filter.
            let first = try await Self.list(player, InboxListQuery(limit: 1))
            #expect(first.items.count == 1 && first.nextBefore == first.items[0].position)
            let second = try await Self.list(player, InboxListQuery(before: first.nextBefore ?? 0, limit: 1))
            #expect(second.items.count == 1 && second.items[0].position! < first.items[0].position!)
            #expect(
                try await Self.list(player, InboxListQuery(kinds: ["achievement.earned"])).items.map(\.kind) == [
                    "achievement.earned"
                ])
            // Catch-up after the oldest: the three later ones, oldest first.
            let catchUp = try await Self.list(player, InboxListQuery(after: positions.last ?? 0))
            #expect(catchUp.items.compactMap(\.position) == Array(positions.dropLast().reversed()))

            // Read one, count, read all; delete one.
            let read = try await player.call(
                ChallengeRequests.inboxMarkRead, InboxSelection(ids: [earned.id, "unknown"]), gameId: "whackacac")
            #expect(read.marked == 1)
            #expect(try await player.call(ChallengeRequests.inboxUnread, gameId: "whackacac").unread == 3)
            #expect(try await Self.list(player, InboxListQuery(unreadOnly: true)).items.count == 3)
            #expect(
                try await player.call(ChallengeRequests.inboxMarkRead, InboxSelection(all: true), gameId: "whackacac")
                    .marked == 3)
            let deleted = try await player.call(
                ChallengeRequests.inboxDelete, InboxSelection(ids: [earned.id]), gameId: "whackacac")
            #expect(deleted.deleted == 1)
            // Someone else's item cannot be read or deleted.
            let theirs = try await friend.call(
                ChallengeRequests.inboxDelete, InboxSelection(ids: page.items.map(\.id)), gameId: "whackacac")
            #expect(theirs.deleted == 0)
            // The challenge view of the inbox still shows only challenge kinds.
            let challengeView = try await player.call(ChallengeRequests.inbox, InboxQuery(), gameId: "whackacac")
            #expect(Set(challengeView.items.map(\.kind)) == ["challenge.received", "challenge.completed"])
            return (grant, try await Self.list(player).items)
        }
        #expect(before.count == 3)

        // After a restart the inbox is as it was, and a new item comes after every earlier position.
        try await withPodiumStack(options) { stack in
            let player = try TestClient(endpoint: stack.endpoints.requests)
            let login = try await player.call(
                AuthRequests.login, PasswordLogin(username: "offline", password: "correct horse battery"))
            player.use(.token(login.sessionToken))
            let operatorClient = try TestClient(endpoint: stack.endpoints.requests)
            operatorClient.use(.adminKey(admin))
            defer {
                Task {
                    await player.close()
                    await operatorClient.close()
                }
            }
            let after = try await Self.list(player)
            #expect(after.items == before)
            #expect(after.unread == 0)
            _ = try await operatorClient.call(
                ChallengeRequests.inboxNotify, OperatorNotice(message: "Welcome back"), gameId: "whackacac",
                playerId: grant.playerId)
            let newer = try await Self.list(player, InboxListQuery(after: before.first?.position ?? 0))
            #expect(newer.items.map(\.message) == ["Welcome back"])
            #expect(newer.unread == 1)
        }
    }

    @Test("a live notification names its inbox item and the request that caused it")
    func liveNotificationsNameTheirItem() async throws {
        let admin = String(repeating: "a", count: 40)
        try await withPodiumStack(.init(adminKey: admin)) { stack in
            let player = try await ChallengeFlowTests.player(stack, "listener", game: "whackacac")
            let operatorClient = try TestClient(endpoint: stack.endpoints.requests)
            operatorClient.use(.adminKey(admin))
            defer {
                ChallengeFlowTests.close([player])
                Task { await operatorClient.close() }
            }
            _ = try await player.client.call(
                GatewayRequests.publish, GameEvent(name: "cactus.hit", attributes: ["matchId": "m1"]),
                gameId: "whackacac", id: "hit-1")
            var earned: RawEnvelope?
            while earned == nil {
                let heard = try await player.inbox.next().envelope
                if (try? heard.decodePayload(as: PlayerNotification.self))?.kind == "achievement.earned" {
                    earned = heard
                }
            }
            let notification = try #require(earned).decodePayload(as: PlayerNotification.self)
            let itemId = try #require(notification.details["inboxId"]?.stringValue)
            let items = try await Self.list(player.client).items
            #expect(items.first { $0.id == itemId }?.kind == "achievement.earned")
            #expect(earned?.correlationId == items.first { $0.id == itemId }?.correlationId)
            #expect(notification.details["title"] == items.first { $0.id == itemId }?.details["title"])
            // Exactly one earned notification: the achievement service no longer sends its own.
            _ = try await operatorClient.call(
                ChallengeRequests.inboxNotify, OperatorNotice(message: "marker"), gameId: "whackacac",
                playerId: player.id)
            var kinds: [String] = []
            while kinds.last != "operator.notice" {
                kinds.append(try await player.inbox.next().envelope.decodePayload(as: PlayerNotification.self).kind)
            }
            #expect(!kinds.contains("achievement.earned"), "\(kinds)")
        }
    }

    @Test("bad inbox requests are refused with their codes and change nothing")
    func refusals() async throws {
        let admin = String(repeating: "a", count: 40)
        try await withPodiumStack(.init(adminKey: admin)) { stack in
            let (player, grant) = try await stack.player("picky")
            let operatorClient = try TestClient(endpoint: stack.endpoints.requests)
            operatorClient.use(.adminKey(admin))
            defer {
                Task {
                    await player.close()
                    await operatorClient.close()
                }
            }
            // Malformed payloads (wrong JSON types, missing fields) as hand-built JSON.
            func refused(
                _ type: MessageType, _ payload: JSONValue, by client: TestClient? = nil, playerId: String? = nil
            ) async throws
                -> (ErrorCode?, String?)
            {
                let reply = try await (client ?? player).request(
                    type, gameId: "dash", playerId: playerId, payload: payload)
                return (
                    reply.errorCode, reply.type == .error ? try reply.decodePayload(as: ErrorReply.self).field : nil
                )
            }
            #expect(
                try await refused(ChallengeRequests.inboxList.type, ["limit": 0]) == (.invalidField, "payload.limit"))
            #expect(
                try await refused(ChallengeRequests.inboxList.type, ["limit": 201]) == (.invalidField, "payload.limit"))
            #expect(
                try await refused(ChallengeRequests.inboxList.type, ["limit": "10"]) == (.invalidShape, "payload.limit")
            )
            #expect(
                try await refused(ChallengeRequests.inboxList.type, ["after": -1]) == (.invalidField, "payload.after"))
            #expect(
                try await refused(ChallengeRequests.inboxList.type, ["after": 1, "before": 5]) == (
                    .invalidField, "payload.before"
                ))
            #expect(
                try await refused(ChallengeRequests.inboxList.type, ["kinds": []]) == (.invalidField, "payload.kinds"))
            #expect(
                try await refused(ChallengeRequests.inboxList.type, ["unreadOnly": "yes"]) == (
                    .invalidShape, "payload.unreadOnly"
                ))
            #expect(try await refused(ChallengeRequests.inboxMarkRead.type, [:]) == (.missingField, "payload.ids"))
            #expect(
                try await refused(ChallengeRequests.inboxMarkRead.type, ["ids": "x"]) == (.invalidShape, "payload.ids"))
            #expect(
                try await refused(ChallengeRequests.inboxMarkRead.type, ["ids": [1]]) == (.invalidField, "payload.ids"))
            #expect(
                try await refused(ChallengeRequests.inboxDelete.type, ["all": true]) == (.invalidField, "payload.all"))
            #expect(try await refused(ChallengeRequests.inboxNotify.type, ["message": "hi"]) == (.forbidden, nil))
            #expect(
                try await refused(ChallengeRequests.inboxNotify.type, ["message": "hi"], by: operatorClient) == (
                    .missingField, "playerId"
                ))
            #expect(
                try await refused(
                    ChallengeRequests.inboxNotify.type, ["message": "  "], by: operatorClient, playerId: grant.playerId)
                    == (.invalidField, "payload.message"))
            #expect(
                try await refused(
                    ChallengeRequests.inboxNotify.type, ["message": "bell\u{7}"], by: operatorClient,
                    playerId: grant.playerId)
                    == (.invalidField, "payload.message"))
            #expect(
                try await refused(
                    ChallengeRequests.inboxNotify.type,
                    ["message": "big", "details": ["blob": .string(String(repeating: "x", count: 3000))]],
                    by: operatorClient, playerId: grant.playerId) == (.invalidField, "payload.details"))
            #expect(
                try await refused(
                    ChallengeRequests.inboxNotify.type, ["message": "hi"], by: operatorClient,
                    playerId: "no-such-player")
                    == (.unknownPlayer, "playerId"))
            // The player may be named in the payload too (the HTTP route's path does that).
            let named = try await operatorClient.exchange(
                ChallengeRequests.inboxNotify, OperatorNotice(playerId: grant.playerId, message: "hello"),
                gameId: "dash")
            #expect(named.isSuccess)
            let page = try await player.call(ChallengeRequests.inboxList, InboxListQuery(), gameId: "dash")
            #expect(page.items.map(\.message) == ["hello"] && page.unread == 1, "only the good notice was kept")
        }
    }
}
