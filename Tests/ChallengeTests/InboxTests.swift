import Foundation
import PodiumMessages
import PodiumTesting
import Testing

/// The notification inbox of every kind (docs/PROTOCOL.md 14.5), through the gateway over real
/// sockets: what a player was sent while offline waits for them, across a restart.
@Suite("Notification inbox")
struct InboxTests {
    static func list(_ client: TestClient, _ payload: JSONValue = [:], game: String = "whackacac") async throws -> InboxList {
        let reply = try await client.request("inbox.list", gameId: game, payload: payload)
        #expect(reply.type == .reply, "\(reply.payload)")
        return try reply.decodePayload(as: InboxList.self)
    }

    /// Polls until the player's inbox holds `count` items (they come from other services' streams).
    static func waitForItems(_ client: TestClient, _ count: Int, game: String = "whackacac") async throws -> InboxList {
        let deadline = ContinuousClock.now + .seconds(15)
        while true {
            let page = try await list(client, ["limit": 200], game: game)
            if page.items.count >= count || ContinuousClock.now > deadline { return page }
            try await Task.sleep(for: .milliseconds(100))
        }
    }

    @Test("an offline player finds every kind in the inbox, reads, pages, catches up and deletes; it survives a restart")
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
            defer { Task { await player.close(); await friend.close(); await operatorClient.close() } }
            _ = try await player.request("auth.friends.request", payload: ["playerId": .string(friendGrant.playerId)])
            _ = try await friend.request("auth.friends.accept", payload: ["playerId": .string(grant.playerId)])

            // A challenge received: the friend earns Kill One and challenges the player to earn it too.
            _ = try await friend.request(
                .eventPublish, gameId: "whackacac", payload: ["name": "cactus.hit", "attributes": ["matchId": "m2"]])
            let dare: JSONValue = ["kind": "achievement", "achievementId": "com.dragonforged.whackacac.killone", "receivers": [.string(grant.playerId)]]
            var issued: RawEnvelope?
            for _ in 0..<200 {
                issued = try await friend.request("challenge.issue", gameId: "whackacac", payload: dare, id: "dare-1")
                if issued?.type == .reply { break }
                try await Task.sleep(for: .milliseconds(50))
            }
            #expect(issued?.type == .reply, "\(issued?.payload ?? .null)")
            // An achievement earned from an event (kept from the achievement service's stream),
            // which also completes the challenge.
            let event = try await player.request(
                .eventPublish, gameId: "whackacac", payload: ["name": "cactus.hit", "attributes": ["matchId": "m1"]], id: "first-hit")
            #expect(event.type == .reply)
            // An operator's notice meant for this player.
            let notice = try await operatorClient.request(
                "inbox.admin.notify", gameId: "whackacac", playerId: grant.playerId,
                payload: ["message": "Servers restart at 04:00 UTC", "details": ["url": "https://status.example.com"]], id: "notice-1")
            #expect(notice.type == .reply, "\(notice.payload)")

            let page = try await Self.waitForItems(player, 4)
            #expect(
                Set(page.items.map(\.kind)) == ["achievement.earned", "challenge.received", "challenge.completed", "operator.notice"],
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
            let again = try await operatorClient.request(
                "inbox.admin.notify", gameId: "whackacac", playerId: grant.playerId,
                payload: ["message": "Servers restart at 04:00 UTC", "details": ["url": "https://status.example.com"]], id: "notice-1")
            #expect(try again.decodePayload(as: InboxItem.self).id == "notice:whackacac:\(grant.playerId):notice-1")
            #expect(try again.decodePayload(as: InboxItem.self).position != nil, "the kept item answers")
            let other = try await operatorClient.request(
                "inbox.admin.notify", gameId: "whackacac", playerId: grant.playerId, payload: ["message": "something else"], id: "notice-1")
            #expect(other.errorCode == .idReused)
            #expect(try await Self.list(player, ["kinds": ["operator.notice"]]).items.count == 1)

            // Pages of one, newest first, continue with nextBefore; kinds filter.
            let first = try await Self.list(player, ["limit": 1])
            #expect(first.items.count == 1 && first.nextBefore == first.items[0].position)
            let second = try await Self.list(player, ["limit": 1, "before": .integer(first.nextBefore ?? 0)])
            #expect(second.items.count == 1 && second.items[0].position! < first.items[0].position!)
            #expect(try await Self.list(player, ["kinds": ["achievement.earned"]]).items.map(\.kind) == ["achievement.earned"])
            // Catch-up after the oldest: the three later ones, oldest first.
            let catchUp = try await Self.list(player, ["after": .integer(positions.last ?? 0)])
            #expect(catchUp.items.compactMap(\.position) == Array(positions.dropLast().reversed()))

            // Read one, count, read all; delete one.
            let read = try await player.request("inbox.read", gameId: "whackacac", payload: ["ids": [.string(earned.id), "unknown"]])
            #expect(try read.decodePayload(as: InboxMarked.self).marked == 1)
            #expect(try await player.request("inbox.unread", gameId: "whackacac").decodePayload(as: InboxUnread.self).unread == 3)
            #expect(try await Self.list(player, ["unreadOnly": true]).items.count == 3)
            #expect(try await player.request("inbox.read", gameId: "whackacac", payload: ["all": true]).decodePayload(as: InboxMarked.self).marked == 3)
            let deleted = try await player.request("inbox.delete", gameId: "whackacac", payload: ["ids": [.string(earned.id)]])
            #expect(try deleted.decodePayload(as: InboxDeleted.self).deleted == 1)
            // Someone else's item cannot be read or deleted.
            let theirs = try await friend.request("inbox.delete", gameId: "whackacac", payload: ["ids": .array(page.items.map { .string($0.id) })])
            #expect(try theirs.decodePayload(as: InboxDeleted.self).deleted == 0)
            // The challenge view of the inbox still shows only challenge kinds.
            let challengeView = try await player.request("challenge.inbox", gameId: "whackacac").decodePayload(as: InboxPage.self)
            #expect(Set(challengeView.items.map(\.kind)) == ["challenge.received", "challenge.completed"])
            return (grant, try await Self.list(player).items)
        }
        #expect(before.count == 3)

        // After a restart the inbox is as it was, and a new item comes after every earlier position.
        try await withPodiumStack(options) { stack in
            let player = try TestClient(endpoint: stack.endpoints.requests)
            let login = try await player.request("auth.login", payload: ["username": "offline", "password": "correct horse battery"])
            player.use(.token(try login.decodePayload(as: SessionGrant.self).sessionToken))
            let operatorClient = try TestClient(endpoint: stack.endpoints.requests)
            operatorClient.use(.adminKey(admin))
            defer { Task { await player.close(); await operatorClient.close() } }
            let after = try await Self.list(player)
            #expect(after.items == before)
            #expect(after.unread == 0)
            _ = try await operatorClient.request(
                "inbox.admin.notify", gameId: "whackacac", playerId: grant.playerId, payload: ["message": "Welcome back"])
            let newer = try await Self.list(player, ["after": .integer(before.first?.position ?? 0)])
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
            defer { ChallengeFlowTests.close([player]); Task { await operatorClient.close() } }
            _ = try await player.client.request(
                .eventPublish, gameId: "whackacac", payload: ["name": "cactus.hit", "attributes": ["matchId": "m1"]], id: "hit-1")
            var earned: RawEnvelope?
            while earned == nil {
                let heard = try await player.inbox.next().envelope
                if (try? heard.decodePayload(as: PlayerNotification.self))?.kind == "achievement.earned" { earned = heard }
            }
            let notification = try #require(earned).decodePayload(as: PlayerNotification.self)
            let itemId = try #require(notification.details["inboxId"]?.stringValue)
            let items = try await Self.list(player.client).items
            #expect(items.first { $0.id == itemId }?.kind == "achievement.earned")
            #expect(earned?.correlationId == items.first { $0.id == itemId }?.correlationId)
            #expect(notification.details["title"] == items.first { $0.id == itemId }?.details["title"])
            // Exactly one earned notification: the achievement service no longer sends its own.
            _ = try await operatorClient.request(
                "inbox.admin.notify", gameId: "whackacac", playerId: player.id, payload: ["message": "marker"])
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
            defer { Task { await player.close(); await operatorClient.close() } }
            func refused(_ type: MessageType, _ payload: JSONValue, by client: TestClient? = nil, playerId: String? = nil) async throws
                -> (ErrorCode?, String?)
            {
                let reply = try await (client ?? player).request(type, gameId: "dash", playerId: playerId, payload: payload)
                return (reply.errorCode, reply.type == .error ? try reply.decodePayload(as: ErrorReply.self).field : nil)
            }
            #expect(try await refused("inbox.list", ["limit": 0]) == (.invalidField, "payload.limit"))
            #expect(try await refused("inbox.list", ["limit": 201]) == (.invalidField, "payload.limit"))
            #expect(try await refused("inbox.list", ["limit": "10"]) == (.invalidShape, "payload.limit"))
            #expect(try await refused("inbox.list", ["after": -1]) == (.invalidField, "payload.after"))
            #expect(try await refused("inbox.list", ["after": 1, "before": 5]) == (.invalidField, "payload.before"))
            #expect(try await refused("inbox.list", ["kinds": []]) == (.invalidField, "payload.kinds"))
            #expect(try await refused("inbox.list", ["unreadOnly": "yes"]) == (.invalidShape, "payload.unreadOnly"))
            #expect(try await refused("inbox.read", [:]) == (.missingField, "payload.ids"))
            #expect(try await refused("inbox.read", ["ids": "x"]) == (.invalidShape, "payload.ids"))
            #expect(try await refused("inbox.read", ["ids": [1]]) == (.invalidField, "payload.ids"))
            #expect(try await refused("inbox.delete", ["all": true]) == (.invalidField, "payload.all"))
            #expect(try await refused("inbox.admin.notify", ["message": "hi"]) == (.forbidden, nil))
            #expect(try await refused("inbox.admin.notify", ["message": "hi"], by: operatorClient) == (.missingField, "playerId"))
            #expect(
                try await refused("inbox.admin.notify", ["message": "  "], by: operatorClient, playerId: grant.playerId)
                    == (.invalidField, "payload.message"))
            #expect(
                try await refused("inbox.admin.notify", ["message": "bell\u{7}"], by: operatorClient, playerId: grant.playerId)
                    == (.invalidField, "payload.message"))
            #expect(
                try await refused(
                    "inbox.admin.notify", ["message": "big", "details": ["blob": .string(String(repeating: "x", count: 3000))]],
                    by: operatorClient, playerId: grant.playerId) == (.invalidField, "payload.details"))
            #expect(
                try await refused("inbox.admin.notify", ["message": "hi"], by: operatorClient, playerId: "no-such-player")
                    == (.unknownPlayer, "playerId"))
            // The player may be named in the payload too (the HTTP route's path does that).
            let named = try await operatorClient.request(
                "inbox.admin.notify", gameId: "dash", payload: ["playerId": .string(grant.playerId), "message": "hello"])
            #expect(named.type == .reply)
            let page = try await player.request("inbox.list", gameId: "dash").decodePayload(as: InboxList.self)
            #expect(page.items.map(\.message) == ["hello"] && page.unread == 1, "only the good notice was kept")
        }
    }
}
