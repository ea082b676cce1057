import Foundation
import Logging
import PodiumClient
import PodiumMessages
import PodiumRuntime
import PodiumTesting
import Testing

/// Retention on the running stack: old stream messages and receipts go, never past a reader
/// nor the newest message; a follower restored from a backup older than the retained stream
/// rebuilds from the owners' state.
@Suite("Retention")
struct RetentionTests {
    static let adminKey = PodiumTestStack.testAdminKey
    static let hour: Int64 = 3_600_000
    static let retention = RetentionSettings(
        eventMilliseconds: hour, outboxMilliseconds: hour, receiptMilliseconds: hour, interval: .milliseconds(200))
    static let hit = GameEvent(name: "cactus.hit", attributes: ["matchId": "m1"])
    static let logger = Logger(label: "retention-test")

    static func options(_ clock: OffsetClock, data: URL? = nil) -> PodiumTestStack.Options {
        var auth = PodiumTestStack.testAuthConfiguration
        auth.sessionLifetimeMilliseconds = 10 * 86_400_000  // the tests jump hours ahead
        return PodiumTestStack.Options(
            clock: clock, adminKey: adminKey, auth: auth, dataDirectory: data, retention: retention)
    }

    static func admin(_ stack: PodiumTestStack) throws -> TestClient {
        let client = try TestClient(endpoint: stack.endpoints.requests)
        client.use(.adminKey(adminKey))
        return client
    }

    static func page(_ admin: TestClient, _ definition: RequestDefinition<StreamRead, StreamPage>) async throws
        -> StreamPage
    {
        try await admin.call(definition, StreamRead(after: 0, limit: 1000))
    }

    static func sequences(_ page: StreamPage) -> [UInt64] { page.messages.compactMap(\.envelope.sequence) }

    /// Waits until a service's position in a stream reaches `position`.
    static func waitForPosition(_ client: TestClient, _ service: String, _ stream: String, _ position: UInt64)
        async throws -> StreamStatus
    {
        try await withDeadline(.seconds(20)) {
            while true {
                let health = try await client.serviceHealth(service)
                if let status = health.streams?[stream], status.position >= position { return status }
                try await Task.sleep(for: .milliseconds(50))
            }
        }
    }

    /// Runs pruning rounds until the stream's oldest message is `first` (the readers read once a second).
    static func pruneUntil(_ pruner: Pruner, first: UInt64, clock: OffsetClock) async throws {
        _ = try await withDeadline(.seconds(20)) {
            while true {
                try await pruner.pruneOnce(now: clock.nowMilliseconds, logger: logger)
                if pruner.firstHeld == first { return true }
                try await Task.sleep(for: .milliseconds(100))
            }
        }
    }

    static func found(_ client: TestClient, _ game: String, _ id: String, type: MessageType) async throws -> Bool {
        try await client.call(GatewayRequests.receipt, ReceiptQuery(id: id, type: type.rawValue), gameId: game).found
    }

    static func publish(_ client: TestClient, id: String) async throws -> PodiumReply<EventAcknowledgement> {
        try await client.exchange(GatewayRequests.publish, hit, gameId: "whackacac", id: id)
    }

    static func submit(_ client: TestClient, _ value: Int64, id: String? = nil) async throws -> PodiumReply<
        ScoreReceipt
    > {
        try await client.exchange(
            LeaderboardRequests.submit, ScoreSubmission(boardId: "dash.highscore", value: value), gameId: "dash", id: id
        )
    }

    @Test(
        "old events, outbox messages and receipts are pruned; never past a reader, never the newest; a resend window of the receipt retention"
    )
    func prunesByAgeAndReaders() async throws {
        let clock = OffsetClock()
        try await withPodiumStack(Self.options(clock)) { stack in
            let (client, _) = try await stack.player("keeper")
            let admin = try Self.admin(stack)
            defer {
                Task {
                    await client.close()
                    await admin.close()
                }
            }
            for index in 1...3 {
                let ack = try await Self.publish(client, id: "old-\(index)")
                #expect(ack.isSuccess)
            }
            let submitted = try await Self.submit(client, 100, id: "score-old")
            #expect(submitted.isSuccess)
            _ = try await Self.waitForPosition(client, "achievement", StreamName.events, 3)
            _ = try await Self.waitForPosition(client, "challenge", StreamName.leaderboard, 1)
            // Nothing is old yet: rounds prune nothing and pages show no `first`.
            #expect(
                try await stack.gateway.pruner.pruneOnce(now: clock.nowMilliseconds, logger: Self.logger).stream == 0)
            #expect(try await Self.page(admin, GatewayRequests.eventsRead).first == nil)

            clock.advance(by: .seconds(2 * 3600))
            #expect(try await Self.publish(client, id: "new-1").isSuccess)
            #expect(try await Self.submit(client, 200, id: "score-new").isSuccess)
            try await Self.pruneUntil(stack.gateway.pruner, first: 4, clock: clock)
            let events = try await Self.page(admin, GatewayRequests.eventsRead)
            #expect(events.first == 4 && Self.sequences(events) == [4] && events.head == 4)
            let leaderboard = try #require(stack.services.first { $0.definition.name == "leaderboard" }?.pruner)
            try await Self.pruneUntil(leaderboard, first: 2, clock: clock)
            let outbox = try await Self.page(admin, ServiceRequests.outboxRead(of: "leaderboard"))
            #expect(outbox.first == 2 && Self.sequences(outbox) == [2])

            // Receipts older than the retention are gone; newer ones stay.
            let leaderboardReceipts = try #require(stack.services.first { $0.definition.name == "leaderboard" }?.pruner)
            _ = try await leaderboardReceipts.pruneOnce(now: clock.nowMilliseconds, logger: Self.logger)
            #expect(try await !Self.found(client, "dash", "score-old", type: LeaderboardRequests.submit.type))
            #expect(try await Self.found(client, "dash", "score-new", type: LeaderboardRequests.submit.type))
            #expect(try await !Self.found(client, "whackacac", "old-1", type: GatewayRequests.publish.type))
            #expect(try await Self.found(client, "whackacac", "new-1", type: GatewayRequests.publish.type))
            // Past the window, the old id is a new request: logged again under a new sequence.
            let again = try await Self.publish(client, id: "old-1").value()
            #expect(again.sequence == 5 && again.duplicate == nil)

            // Everything is old now, but the newest message of each stream stays.
            clock.advance(by: .seconds(2 * 3600))
            _ = try await Self.waitForPosition(client, "achievement", StreamName.events, 5)
            try await Self.pruneUntil(stack.gateway.pruner, first: 5, clock: clock)
            let last = try await Self.page(admin, GatewayRequests.eventsRead)
            #expect(Self.sequences(last) == [5] && last.head == 5)
            _ = try await leaderboard.pruneOnce(now: clock.nowMilliseconds, logger: Self.logger)
            #expect(Self.sequences(try await Self.page(admin, ServiceRequests.outboxRead(of: "leaderboard"))) == [2])
            let next = try await Self.publish(client, id: "after-all").value()
            #expect(next.sequence == 6, "numbering continues after the newest kept message")
        }
    }

    /// Copies a SQLite database with its WAL files.
    static func copyDatabase(_ name: String, from: URL, to: URL) throws {
        let files = FileManager.default
        for suffix in ["", "-wal", "-shm"] {
            let target = to.appendingPathComponent(name + suffix)
            try? files.removeItem(at: target)
            let source = from.appendingPathComponent(name + suffix)
            if files.fileExists(atPath: source.path) { try files.copyItem(at: source, to: target) }
        }
    }

    @Test(
        "followers restored from a backup older than the retained streams recover from the state, loudly",
        .enabled(
            if: ProcessInfo.processInfo.environment["PODIUM_TEST_DATABASE_URL"] == nil,
            "copies SQLite files as a backup"))
    func restoredFollowerRecovers() async throws {
        let clock = OffsetClock()
        let data = FileManager.default.temporaryDirectory.appendingPathComponent(
            "podium-retention-\(UUID().uuidString)")
        let backup = data.appendingPathComponent("backup")
        defer { try? FileManager.default.removeItem(at: data) }
        let options = Self.options(clock, data: data)
        // Run 1: A challenges B to beat 500; B reports one hit. Then the backup is taken.
        let (a, b, challengeId) = try await withPodiumStack(options) { stack in
            let a = try await ChallengeFlowTests.player(stack, "amy")
            let b = try await ChallengeFlowTests.player(stack, "bea")
            defer { ChallengeFlowTests.close([a, b]) }
            try await ChallengeFlowTests.befriend(a, b)
            try await ChallengeFlowTests.submit(a, 500)
            let challenge = try await a.client.call(
                ChallengeRequests.issue, ChallengeIssue(kind: .score, boardId: "dash.highscore", receivers: [b.id]),
                gameId: "dash")
            #expect(try await Self.publish(b.client, id: "b-1").isSuccess)
            _ = try await Self.waitForPosition(b.client, "achievement", StreamName.events, 1)
            _ = try await Self.waitForPosition(b.client, "challenge", StreamName.leaderboard, 1)
            return (a.grant, b.grant, challenge.challengeId)
        }
        try FileManager.default.createDirectory(at: backup, withIntermediateDirectories: true)
        for name in ["achievement-progress.sqlite", "challenge-challenges.sqlite"] {
            try Self.copyDatabase(name, from: data, to: backup)
        }

        // Run 2: B beats the score and reports two more hits; hours later A submits a lower score
        // and reports a hit; the streams are pruned past what the backup has applied.
        try await withPodiumStack(options) { stack in
            let amy = try TestClient(endpoint: stack.endpoints.requests)
            amy.use(.token(a.sessionToken))
            let bea = try TestClient(endpoint: stack.endpoints.requests)
            bea.use(.token(b.sessionToken))
            defer {
                Task {
                    await amy.close()
                    await bea.close()
                }
            }
            #expect(try await Self.submit(bea, 600).isSuccess)
            for id in ["b-2", "b-3"] {
                #expect(try await Self.publish(bea, id: id).isSuccess)
            }
            _ = try await Self.waitForPosition(bea, "achievement", StreamName.events, 3)
            _ = try await Self.waitForPosition(bea, "challenge", StreamName.leaderboard, 2)
            clock.advance(by: .seconds(2 * 3600))
            #expect(try await Self.submit(amy, 300).isSuccess)
            #expect(try await Self.publish(amy, id: "a-1").isSuccess)
            try await Self.pruneUntil(stack.gateway.pruner, first: 4, clock: clock)
            let leaderboard = try #require(stack.services.first { $0.definition.name == "leaderboard" }?.pruner)
            try await Self.pruneUntil(leaderboard, first: 3, clock: clock)
        }
        for name in ["achievement-progress.sqlite", "challenge-challenges.sqlite"] {
            try Self.copyDatabase(name, from: backup, to: data)
        }

        // Run 3: both followers find their next messages pruned, say so, and recover.
        try await withPodiumStack(options) { stack in
            let bea = try TestClient(endpoint: stack.endpoints.requests)
            bea.use(.token(b.sessionToken))
            defer { Task { await bea.close() } }
            let events = try await Self.waitForPosition(bea, "achievement", StreamName.events, 4)
            #expect(
                events.position == 4 && events.lost == 2, "events 2-3 were lost to the restored achievement database")
            let scores = try await Self.waitForPosition(bea, "challenge", StreamName.leaderboard, 3)
            #expect(scores.position == 3 && scores.lost == 1)
            // B's 600 (message 2) is gone from the outbox, but B's entry on the board shows it.
            let detail = try await bea.call(
                ChallengeRequests.detail, ChallengeTarget(challengeId: challengeId), gameId: "dash")
            #expect(detail.receivers.first { $0.playerId == b.playerId }?.state == .completed)
            #expect(detail.receivers.first { $0.playerId == b.playerId }?.value == 600)
        }
    }
}
