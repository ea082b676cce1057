import Foundation
import PodiumMessages
import PodiumRuntime
import PodiumTesting
import Testing

/// Nothing acknowledged is lost and nothing is applied twice: the event log, request ids as
/// idempotency keys, receipts, and services catching up on what they missed while down.
@Suite("Durability")
struct DurabilityTests {
    static func dataDirectory() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("podium-durable-\(UUID().uuidString)")
    }

    static let hit: JSONValue = ["name": "cactus.hit", "attributes": ["matchId": "m1"]]

    @Test("an event resent with its id is acknowledged again and logged once, also after a restart; another payload with that id is refused")
    func eventIdempotency() async throws {
        let data = Self.dataDirectory()
        defer { try? FileManager.default.removeItem(at: data) }
        let options = PodiumTestStack.Options(dataDirectory: data)
        let (grant, first) = try await withPodiumStack(options) { stack in
            let (client, grant) = try await stack.player("logged")
            defer { Task { await client.close() } }
            let reply = try await client.request(.eventPublish, gameId: "whackacac", payload: Self.hit, id: "hit-1")
            let first = try reply.decodePayload(as: EventAcknowledgement.self)
            #expect(first.publisher == StreamName.events && first.duplicate == nil)
            let again = try await client.request(.eventPublish, gameId: "whackacac", payload: Self.hit, id: "hit-1")
                .decodePayload(as: EventAcknowledgement.self)
            #expect(again.sequence == first.sequence && again.eventId == first.eventId && again.duplicate == true)
            let other = try await client.request(
                .eventPublish, gameId: "whackacac", payload: ["name": "cactus.hit", "value": 2], id: "hit-1")
            #expect(other.errorCode == .idReused)
            return (grant, first)
        }
        try await withPodiumStack(options) { stack in
            let client = try TestClient(endpoint: stack.endpoints.requests)
            client.use(.token(grant.sessionToken))
            defer { Task { await client.close() } }
            let resent = try await client.request(.eventPublish, gameId: "whackacac", payload: Self.hit, id: "hit-1")
                .decodePayload(as: EventAcknowledgement.self)
            #expect(resent.sequence == first.sequence && resent.duplicate == true, "the log kept the id across the restart")
            let next = try await client.request(.eventPublish, gameId: "whackacac", payload: Self.hit, id: "hit-2")
                .decodePayload(as: EventAcknowledgement.self)
            #expect(next.sequence == first.sequence + 1, "sequences continue after a restart")
            // The achievement service applied each logged hit exactly once.
            let list = try await client.waitForAchievements("whackacac") { $0.status("100whacks")?.steps == 2 }
            #expect(list.status("100whacks")?.steps == 2)
            let receipt = try await client.request(.receipt, gameId: "whackacac", payload: ["id": "hit-1"]).decodePayload(as: RequestReceipt.self)
            #expect(receipt.found && receipt.type == "event.publish" && receipt.acknowledgement?.sequence == first.sequence)
            #expect(receipt.effects?.applied == true)
            #expect(receipt.effects?.achievements.contains { $0.achievementId.hasSuffix("killone") && $0.earned } == true)
        }
    }

    @Test("events acknowledged while the achievement service is down are applied, once, when it comes back")
    func catchUpFromTheLog() async throws {
        let data = Self.dataDirectory()
        defer { try? FileManager.default.removeItem(at: data) }
        let auth = PodiumTestStack.testAuthConfiguration
        let authOnly = PodiumTestStack.Options(
            services: [PodiumTestStack.services(auth: auth)[0]], expectedServices: ["auth"], auth: auth, dataDirectory: data)
        let grant = try await withPodiumStack(authOnly) { stack in
            let (client, grant) = try await stack.player("offline")
            defer { Task { await client.close() } }
            try await client.play("whackacac", Array(repeating: ("cactus.hit", nil, ["matchId": "m1"]), count: 12))
            return grant
        }
        try await withPodiumStack(PodiumTestStack.Options(auth: auth, dataDirectory: data)) { stack in
            let client = try TestClient(endpoint: stack.endpoints.requests)
            client.use(.token(grant.sessionToken))
            defer { Task { await client.close() } }
            let list = try await client.waitForAchievements("whackacac") { $0.status("100whacks")?.steps == 12 }
            #expect(list.status("100whacks")?.steps == 12)
            #expect(list.status("killone")?.earned == true)
            let health = try await client.request(.health(of: "achievement")).decodePayload(as: ServiceHealth.self)
            #expect(health.streams?[StreamName.events]?.position == 12)
        }
    }

    @Test("a score resent with its id is applied once, its receipt says what it did, and an unused id is not found")
    func scoreIdempotency() async throws {
        let data = Self.dataDirectory()
        defer { try? FileManager.default.removeItem(at: data) }
        let options = PodiumTestStack.Options(dataDirectory: data)
        let grant = try await withPodiumStack(options) { stack in
            let (client, grant) = try await stack.player("coins")
            defer { Task { await client.close() } }
            let coins: JSONValue = ["boardId": "dash.coins", "value": 5]
            let first = try await client.request("leaderboard.submit", gameId: "dash", payload: coins, id: "coin-1")
                .decodePayload(as: ScoreReceipt.self)
            #expect(first.entry.value == 5 && first.duplicate == nil)
            let again = try await client.request("leaderboard.submit", gameId: "dash", payload: coins, id: "coin-1")
                .decodePayload(as: ScoreReceipt.self)
            #expect(again.entry.value == 5 && again.duplicate == true, "an increment board shows a double at once")
            let other = try await client.request(
                "leaderboard.submit", gameId: "dash", payload: ["boardId": "dash.coins", "value": 6], id: "coin-1")
            #expect(other.errorCode == .idReused)
            return grant
        }
        try await withPodiumStack(options) { stack in
            let client = try TestClient(endpoint: stack.endpoints.requests)
            client.use(.token(grant.sessionToken))
            defer { Task { await client.close() } }
            let resent = try await client.request("leaderboard.submit", gameId: "dash", payload: ["boardId": "dash.coins", "value": 5], id: "coin-1")
                .decodePayload(as: ScoreReceipt.self)
            #expect(resent.duplicate == true && resent.entry.value == 5 && resent.entry.rank == 1, "the original receipt")
            let receipt = try await client.request(.receipt, gameId: "dash", payload: ["id": "coin-1"]).decodePayload(as: RequestReceipt.self)
            #expect(receipt.found && receipt.type == "leaderboard.submit")
            #expect(receipt.reply?["entry"]?["value"] == .integer(5))
            let unknown = try await client.request(.receipt, gameId: "dash", payload: ["id": "never-sent"]).decodePayload(as: RequestReceipt.self)
            #expect(!unknown.found)
            let report: JSONValue = ["reports": [["achievementId": "com.example.blackjack.tutorial", "percentComplete": 100]]]
            let reported = try await client.request("achievement.report", gameId: "blackjack", payload: report, id: "tut-1")
            #expect(reported.type == .reply && reported.payload["duplicate"] == nil)
            let reportedAgain = try await client.request("achievement.report", gameId: "blackjack", payload: report, id: "tut-1")
            #expect(reportedAgain.payload["duplicate"] == .bool(true))
            #expect(try reportedAgain.outcomes == (try reported.outcomes), "the resend answers with the original outcomes")
        }
    }

    @Test("a challenge completes from a score the challenge service missed while it was down")
    func challengeCatchUp() async throws {
        let data = Self.dataDirectory()
        defer { try? FileManager.default.removeItem(at: data) }
        let auth = PodiumTestStack.testAuthConfiguration
        let all = PodiumTestStack.Options(auth: auth, dataDirectory: data)
        let (a, b, challengeId) = try await withPodiumStack(all) { stack in
            let (alice, a) = try await stack.player("alice.durable")
            let (bob, b) = try await stack.player("bob.durable")
            defer { Task { await alice.close(); await bob.close() } }
            _ = try await alice.request("auth.friends.request", payload: ["playerId": .string(b.playerId)])
            _ = try await bob.request("auth.friends.accept", payload: ["playerId": .string(a.playerId)])
            _ = try await alice.request("leaderboard.submit", gameId: "dash", payload: ["boardId": "dash.highscore", "value": 500])
            let issued = try await alice.request(
                "challenge.issue", gameId: "dash", payload: ["kind": "score", "boardId": "dash.highscore", "receivers": [.string(b.playerId)]],
                id: "challenge-1")
            let challenge = try issued.decodePayload(as: ChallengeDetail.self)
            let again = try await alice.request(
                "challenge.issue", gameId: "dash", payload: ["kind": "score", "boardId": "dash.highscore", "receivers": [.string(b.playerId)]],
                id: "challenge-1")
            #expect(try again.decodePayload(as: ChallengeDetail.self).challengeId == challenge.challengeId, "issued once")
            return (a, b, challenge.challengeId)
        }
        let services = PodiumTestStack.services(auth: auth)
        let withoutChallenges = PodiumTestStack.Options(
            services: Array(services.prefix(3)), expectedServices: ["auth", "leaderboard", "achievement"], auth: auth, dataDirectory: data)
        try await withPodiumStack(withoutChallenges) { stack in
            let bob = try TestClient(endpoint: stack.endpoints.requests)
            bob.use(.token(b.sessionToken))
            defer { Task { await bob.close() } }
            let beaten = try await bob.request("leaderboard.submit", gameId: "dash", payload: ["boardId": "dash.highscore", "value": 900])
            #expect(beaten.type == .reply)
        }
        try await withPodiumStack(all) { stack in
            let alice = try TestClient(endpoint: stack.endpoints.requests)
            alice.use(.token(a.sessionToken))
            defer { Task { await alice.close() } }
            let completed = await eventually {
                let detail = try? await alice.request("challenge.detail", gameId: "dash", payload: ["challengeId": .string(challengeId)])
                    .decodePayload(as: ChallengeDetail.self)
                return detail?.receivers.first?.state == .completed
            }
            #expect(completed, "the missed score completed the challenge after the restart")
            let inbox = try await alice.request("challenge.inbox", gameId: "dash").decodePayload(as: [String: [InboxItem]].self)["items"] ?? []
            #expect(inbox.filter { $0.kind == "challenge.completed-by-receiver" }.count == 1)
            let receipt = try await alice.request(.receipt, gameId: "dash", payload: ["id": "challenge-1"]).decodePayload(as: RequestReceipt.self)
            #expect(receipt.found && receipt.type == "challenge.issue" && receipt.reply?["challengeId"] == .string(challengeId))
        }
    }
}
