import Foundation
import PodiumClient
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

    static let hit = GameEvent(name: "cactus.hit", attributes: ["matchId": "m1"])

    static func publish(_ client: TestClient, _ event: GameEvent = hit, id: String) async throws -> PodiumReply<
        EventAcknowledgement
    > {
        try await client.exchange(GatewayRequests.publish, event, gameId: "whackacac", id: id)
    }

    static func receipt(_ client: TestClient, game: String, id: String) async throws -> RequestReceipt {
        try await client.call(GatewayRequests.receipt, ReceiptQuery(id: id), gameId: game)
    }

    @Test(
        "an event resent with its id is acknowledged again and logged once, also after a restart; another payload with that id is refused"
    )
    func eventIdempotency() async throws {
        let data = Self.dataDirectory()
        defer { try? FileManager.default.removeItem(at: data) }
        let options = PodiumTestStack.Options(dataDirectory: data)
        let (grant, first) = try await withPodiumStack(options) { stack in
            let (client, grant) = try await stack.player("logged")
            defer { Task { await client.close() } }
            let first = try await Self.publish(client, id: "hit-1").value()
            #expect(first.publisher == StreamName.events && first.duplicate == nil)
            let again = try await Self.publish(client, id: "hit-1").value()
            #expect(again.sequence == first.sequence && again.eventId == first.eventId && again.duplicate == true)
            let other = try await Self.publish(client, GameEvent(name: "cactus.hit", value: 2), id: "hit-1")
            #expect(other.errorCode == .idReused)
            return (grant, first)
        }
        try await withPodiumStack(options) { stack in
            let client = try TestClient(endpoint: stack.endpoints.requests)
            client.use(.token(grant.sessionToken))
            defer { Task { await client.close() } }
            let resent = try await Self.publish(client, id: "hit-1").value()
            #expect(
                resent.sequence == first.sequence && resent.duplicate == true, "the log kept the id across the restart")
            let next = try await Self.publish(client, id: "hit-2").value()
            #expect(next.sequence == first.sequence + 1, "sequences continue after a restart")
            // The achievement service applied each logged hit exactly once.
            let list = try await client.waitForAchievements("whackacac") { $0.status("100whacks")?.steps == 2 }
            #expect(list.status("100whacks")?.steps == 2)
            let receipt = try await Self.receipt(client, game: "whackacac", id: "hit-1")
            #expect(
                receipt.found && receipt.type == GatewayRequests.publish.type.rawValue
                    && receipt.acknowledgement?.sequence == first.sequence)
            #expect(receipt.effects?.applied == true)
            #expect(
                receipt.effects?.achievements.contains { $0.achievementId.hasSuffix("killone") && $0.earned } == true)
        }
    }

    @Test("events acknowledged while the achievement service is down are applied, once, when it comes back")
    func catchUpFromTheLog() async throws {
        let data = Self.dataDirectory()
        defer { try? FileManager.default.removeItem(at: data) }
        let auth = PodiumTestStack.testAuthConfiguration
        let authOnly = PodiumTestStack.Options(
            services: [PodiumTestStack.services(auth: auth)[0]], expectedServices: ["auth"], auth: auth,
            dataDirectory: data)
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
            let health = try await client.serviceHealth("achievement")
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
            func coins(_ value: Int64) -> ScoreSubmission { ScoreSubmission(boardId: "dash.coins", value: value) }
            let first = try await client.call(LeaderboardRequests.submit, coins(5), gameId: "dash", id: "coin-1")
            #expect(first.entry.value == 5 && first.duplicate == nil)
            let again = try await client.call(LeaderboardRequests.submit, coins(5), gameId: "dash", id: "coin-1")
            #expect(again.entry.value == 5 && again.duplicate == true, "an increment board shows a double at once")
            let other = try await client.exchange(LeaderboardRequests.submit, coins(6), gameId: "dash", id: "coin-1")
            #expect(other.errorCode == .idReused)
            return grant
        }
        try await withPodiumStack(options) { stack in
            let client = try TestClient(endpoint: stack.endpoints.requests)
            client.use(.token(grant.sessionToken))
            defer { Task { await client.close() } }
            let resent = try await client.call(
                LeaderboardRequests.submit, ScoreSubmission(boardId: "dash.coins", value: 5), gameId: "dash",
                id: "coin-1")
            #expect(
                resent.duplicate == true && resent.entry.value == 5 && resent.entry.rank == 1, "the original receipt")
            let receipt = try await Self.receipt(client, game: "dash", id: "coin-1")
            #expect(receipt.found && receipt.type == LeaderboardRequests.submit.type.rawValue)
            #expect(try WireCodec.convert(try #require(receipt.reply), to: ScoreReceipt.self).entry.value == 5)
            let unknown = try await Self.receipt(client, game: "dash", id: "never-sent")
            #expect(!unknown.found)
            let report = ProgressReportBatch(reports: [
                ProgressReport(achievementId: "com.example.blackjack.tutorial", percentComplete: 100)
            ])
            let reported = try await client.call(AchievementRequests.report, report, gameId: "blackjack", id: "tut-1")
            #expect(reported.duplicate == nil)
            let reportedAgain = try await client.call(
                AchievementRequests.report, report, gameId: "blackjack", id: "tut-1")
            #expect(reportedAgain.duplicate == true)
            #expect(reportedAgain.outcomes == reported.outcomes, "the resend answers with the original outcomes")
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
            defer {
                Task {
                    await alice.close()
                    await bob.close()
                }
            }
            _ = try await alice.call(AuthRequests.friendRequest, FriendTarget(playerId: b.playerId))
            _ = try await bob.call(AuthRequests.friendAccept, FriendTarget(playerId: a.playerId))
            _ = try await alice.call(
                LeaderboardRequests.submit, ScoreSubmission(boardId: "dash.highscore", value: 500), gameId: "dash")
            let issue = ChallengeIssue(kind: .score, boardId: "dash.highscore", receivers: [b.playerId])
            let challenge = try await alice.call(ChallengeRequests.issue, issue, gameId: "dash", id: "challenge-1")
            let again = try await alice.call(ChallengeRequests.issue, issue, gameId: "dash", id: "challenge-1")
            #expect(again.challengeId == challenge.challengeId, "issued once")
            return (a, b, challenge.challengeId)
        }
        let services = PodiumTestStack.services(auth: auth)
        let withoutChallenges = PodiumTestStack.Options(
            services: Array(services.prefix(3)), expectedServices: ["auth", "leaderboard", "achievement"], auth: auth,
            dataDirectory: data)
        try await withPodiumStack(withoutChallenges) { stack in
            let bob = try TestClient(endpoint: stack.endpoints.requests)
            bob.use(.token(b.sessionToken))
            defer { Task { await bob.close() } }
            let beaten = try await bob.exchange(
                LeaderboardRequests.submit, ScoreSubmission(boardId: "dash.highscore", value: 900), gameId: "dash")
            #expect(beaten.type == .reply)
        }
        try await withPodiumStack(all) { stack in
            let alice = try TestClient(endpoint: stack.endpoints.requests)
            alice.use(.token(a.sessionToken))
            defer { Task { await alice.close() } }
            let completed = await eventually {
                let detail = try? await alice.call(
                    ChallengeRequests.detail, ChallengeTarget(challengeId: challengeId), gameId: "dash")
                return detail?.receivers.first?.state == .completed
            }
            #expect(completed, "the missed score completed the challenge after the restart")
            let inbox = try await alice.call(ChallengeRequests.inbox, InboxQuery(), gameId: "dash").items
            #expect(inbox.filter { $0.kind == "challenge.completed-by-receiver" }.count == 1)
            let receipt = try await Self.receipt(alice, game: "dash", id: "challenge-1")
            #expect(receipt.found && receipt.type == ChallengeRequests.issue.type.rawValue)
            #expect(
                try WireCodec.convert(try #require(receipt.reply), to: ChallengeDetail.self).challengeId == challengeId)
        }
    }
}
