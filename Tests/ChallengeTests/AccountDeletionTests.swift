import Foundation
import PodiumClient
import PodiumMessages
import PodiumTesting
import Testing

/// Account deletion across the five processes (docs/PROTOCOL.md 8.14): the auth service deletes
/// the account and every other part erases the player from the `auth` stream, also after a
/// restart when it was down at the time.
@Suite("Account deletion")
struct AccountDeletionTests {
    static let admin = String(repeating: "d", count: 40)
    static let regular = "com.example.blackjack.regular"

    /// Every text a stack still holds that names `playerId`, as operators can read it: the
    /// event log and the audit log (the services are asked through their own requests).
    /// `through`: only audit entries up to this sequence (operators' reads of the deleted
    /// player's id afterwards are audited as they happen).
    static func logsNaming(_ playerId: String, operatorClient: TestClient, through: Int64 = .max) async throws
        -> [String]
    {
        var found: [String] = []
        let events = try await operatorClient.call(GatewayRequests.eventsRead, StreamRead(after: 0, limit: 500))
        for message in events.messages {
            let text = String(decoding: try WireCodec.encode(message.envelope), as: UTF8.self)
            if text.contains(playerId) { found.append("event \(message.envelope.sequence ?? 0)") }
        }
        let audit = try await operatorClient.call(GatewayRequests.audit, AuditQuery(limit: 200))
        for entry in audit.entries where entry.seq <= through {
            let text = String(decoding: try WireCodec.encode(entry), as: UTF8.self)
            if text.contains(playerId) { found.append("audit \(entry.seq) \(entry.type)") }
        }
        return found
    }

    /// Polls `check` until it returns nil (nothing left) or 20 s pass; returns the last finding.
    static func eventually(_ check: () async throws -> String?) async throws -> String? {
        let deadline = ContinuousClock.now + .seconds(20)
        var last = try await check()
        while last != nil, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(50))
            last = try await check()
        }
        return last
    }

    @Test(
        "a player deletes their account: sessions end, scores leave the boards, challenges, friends and logs keep no trace"
    )
    func deleteEverywhere() async throws {
        try await withPodiumStack(.init(adminKey: Self.admin)) { stack in try await Self.deleteEverywhere(stack) }
    }

    @Test(
        "with two instances of every service (partitions), each erases the player from its share",
        .enabled(if: PodiumTestStack.storageKind == "postgresql", "leases live in PostgreSQL"))
    func deleteAcrossPartitions() async throws {
        var options = PodiumTestStack.Options(adminKey: Self.admin)
        options.instances = 2
        options.leaseMilliseconds = 3000
        try await withPodiumStack(options) { stack in
            try await stack.waitUntilReady()
            try await stack.waitUntilSettled()
            try await Self.deleteEverywhere(stack)
        }
    }

    static func deleteEverywhere(_ stack: PodiumTestStack) async throws {
        do {
            let a = try await ChallengeFlowTests.player(stack, "alice")
            let b = try await ChallengeFlowTests.player(stack, "bob")
            let (carol, carolGrant) = try await stack.player("carol")
            let operatorClient = try TestClient(endpoint: stack.endpoints.requests)
            operatorClient.use(.adminKey(Self.admin))
            defer {
                ChallengeFlowTests.close([a, b])
                Task {
                    await carol.close()
                    await operatorClient.close()
                }
            }
            try await ChallengeFlowTests.befriend(a, b)
            try await ChallengeFlowTests.submit(a, 500)
            try await ChallengeFlowTests.submit(a, 900, board: "dash.fastest")
            try await ChallengeFlowTests.submit(b, 400)
            _ = try await carol.call(
                LeaderboardRequests.submit, ScoreSubmission(boardId: "dash.highscore", value: 450), gameId: "dash")
            _ = try await a.client.call(
                AchievementRequests.report,
                ProgressReportBatch(reports: [ProgressReport(achievementId: Self.regular, steps: 2)]),
                gameId: "blackjack")
            _ = try await a.client.call(GatewayRequests.publish, GameEvent(name: "run.finished"), gameId: "dash")
            let challenge = try await a.client.call(
                ChallengeRequests.issue,
                ChallengeIssue(kind: .score, boardId: "dash.highscore", receivers: [b.id], message: "by alice"),
                gameId: "dash")
            _ = try await ChallengeFlowTests.next(b, kind: "challenge.received")
            // An operator looks the player up: the audit log names them.
            _ = try await operatorClient.call(AuthRequests.lookup, PlayerLookup(playerId: a.id))

            // The export holds every part, the player's own and through the operator alike.
            let export = try await a.client.call(GatewayRequests.exportAccount, ExportRequest())
            #expect(export.format == "podium-export-1")
            #expect(export.playerId == a.id)
            #expect(export.account.profile.username == "alice")
            #expect(export.account.friends.friends.map(\.playerId) == [b.id])
            #expect(Set(export.leaderboards.entries.map(\.boardId)) == ["dash.highscore", "dash.fastest"])
            #expect(export.leaderboards.scores.count == 2)
            #expect(export.achievements.records.map(\.steps) == [2])
            #expect(export.challenges.issued.map(\.challengeId) == [challenge.challengeId])
            #expect(export.events.map(\.event.name) == ["run.finished"])
            let byOperator = try await operatorClient.call(GatewayRequests.exportAccount, ExportRequest(playerId: a.id))
            #expect(byOperator.leaderboards == export.leaderboards)
            #expect(byOperator.challenges.issued == export.challenges.issued)
            let bobsExport = try await b.client.call(GatewayRequests.exportAccount, ExportRequest())
            #expect(bobsExport.challenges.received.map(\.challengeId) == [challenge.challengeId])
            #expect(bobsExport.challenges.inbox.contains { $0.item.kind == "challenge.received" })
            let someoneElses = try await errorCode {
                try await b.client.call(GatewayRequests.exportAccount, ExportRequest(playerId: a.id))
            }
            #expect(someoneElses == .forbidden)

            // Without the password (the account has one): refused, nothing changed.
            let refused = try await errorCode {
                try await a.client.call(AuthRequests.deleteAccount, AccountDeletionRequest(password: nil))
            }
            #expect(refused == .missingField)
            let unconfirmed = try await errorCode {
                try await a.client.call(
                    AuthRequests.deleteAccount, AccountDeletionRequest(password: "correct horse battery", confirm: nil))
            }
            #expect(unconfirmed == .confirmationRequired)
            let wrong = try await errorCode {
                try await a.client.call(AuthRequests.deleteAccount, AccountDeletionRequest(password: "wrong horse"))
            }
            #expect(wrong == .invalidCredentials)
            #expect(try await a.client.call(AuthRequests.profile).playerId == a.id)

            let receipt = try await a.client.call(
                AuthRequests.deleteAccount, AccountDeletionRequest(password: "correct horse battery"))
            #expect(receipt.playerId == a.id)
            #expect(receipt.revokedSessions == 1)
            #expect((receipt.usernameFreeAt ?? 0) > receipt.deletedAt)

            // The session is gone at once; so is the account.
            let afterwards = try await errorCode { try await a.client.call(AuthRequests.profile) }
            #expect(afterwards == .sessionRevoked || afterwards == .invalidToken || afterwards == .unauthenticated)
            let login = try await errorCode {
                try await carol.call(
                    AuthRequests.login, PasswordLogin(username: "alice", password: "correct horse battery"))
            }
            #expect(login == .invalidCredentials)
            // The name stays taken for the quarantine.
            let again = try await errorCode {
                try await carol.call(
                    AuthRequests.register, Registration(username: "Alice", password: "another good password"))
            }
            #expect(again == .usernameTaken)
            #expect(try await b.client.call(AuthRequests.friendList).friends.isEmpty)

            // The receiver hears that the challenge is no longer valid.
            let invalid = try await ChallengeFlowTests.next(b, kind: "challenge.invalid")
            #expect(invalid.details["challengeId"] == .string(challenge.challengeId))
            let received = try await b.client.call(ChallengeRequests.received, ChallengeFilter(), gameId: "dash")
            let mine = received.challenges.first { $0.challengeId == challenge.challengeId }
            #expect(mine?.receivers.first?.state == .invalid)
            #expect(mine?.issuerId.hasPrefix("deleted-") == true)
            #expect(mine?.message == nil)

            // Ranks close up: carol first, bob second.
            let top = try await Self.eventually {
                let page = try await b.client.call(
                    LeaderboardRequests.top, BoardQuery(boardId: "dash.highscore"), gameId: "dash")
                let order = page.entries.map(\.playerId)
                return order == [carolGrant.playerId, b.id] && page.entries.map(\.rank) == [1, 2] ? nil : "\(order)"
            }
            #expect(top == nil)
            let fastest = try await b.client.call(
                LeaderboardRequests.top, BoardQuery(boardId: "dash.fastest"), gameId: "dash")
            #expect(fastest.entries.isEmpty)
            let entry = try await operatorClient.call(
                LeaderboardRequests.entry, BoardQuery(boardId: "dash.highscore"), gameId: "dash", playerId: a.id)
            #expect(entry.entry == nil)

            // Achievements: nothing left, and nothing more is recorded for the player.
            let progress = try await Self.eventually {
                let list = try await operatorClient.call(AchievementRequests.list, gameId: "blackjack", playerId: a.id)
                return (list.status("regular")?.percentComplete ?? 0) == 0 ? nil : "progress remains"
            }
            #expect(progress == nil)
            let report = try await errorCode {
                try await operatorClient.call(
                    AchievementRequests.report,
                    ProgressReportBatch(reports: [ProgressReport(achievementId: Self.regular, steps: 1)]),
                    gameId: "blackjack", playerId: a.id)
            }
            #expect(report == .accountDeleted)
            let score = try await errorCode {
                try await operatorClient.call(
                    LeaderboardRequests.submit, ScoreSubmission(boardId: "dash.highscore", value: 999),
                    gameId: "dash", playerId: a.id)
            }
            #expect(score == .accountDeleted)

            // The gateway's logs name the player nowhere (a pseudonym stands in).
            let logs = try await Self.eventually {
                let found = try await Self.logsNaming(a.id, operatorClient: operatorClient)
                return found.isEmpty ? nil : found.joined(separator: ", ")
            }
            #expect(logs == nil)
            let lookup = try await errorCode {
                try await operatorClient.call(AuthRequests.lookup, PlayerLookup(playerId: a.id))
            }
            #expect(lookup == .unknownPlayer)
            let gone = try await errorCode {
                try await operatorClient.call(GatewayRequests.exportAccount, ExportRequest(playerId: a.id))
            }
            #expect(gone == .unknownPlayer)
            // Bob's export no longer names Alice anywhere.
            let bobsAfter = try await b.client.call(GatewayRequests.exportAccount, ExportRequest())
            let bobsText = String(decoding: try WireCodec.encode(bobsAfter), as: UTF8.self)
            #expect(!bobsText.contains(a.id))
        }
    }

    @Test("a service that was down during the deletion erases the player when it starts again")
    func resumesAfterRestart() async throws {
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("podium-delete-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: data) }
        let auth = PodiumTestStack.testAuthConfiguration
        let all = PodiumTestStack.services(auth: auth)
        let options = PodiumTestStack.Options(adminKey: Self.admin, auth: auth, dataDirectory: data)
        let playerId = try await withPodiumStack(options) { stack in
            let (player, grant) = try await stack.player("dora")
            defer { Task { await player.close() } }
            _ = try await player.call(
                LeaderboardRequests.submit, ScoreSubmission(boardId: "dash.highscore", value: 700), gameId: "dash")
            _ = try await player.call(
                AchievementRequests.report,
                ProgressReportBatch(reports: [ProgressReport(achievementId: Self.regular, steps: 1)]),
                gameId: "blackjack")
            return grant.playerId
        }
        // The leaderboard and achievement services are down when the operator deletes the account.
        var partial = options
        partial.services = all.filter { $0.name == "auth" || $0.name == "challenge" }
        partial.expectedServices = ["auth", "challenge"]
        try await withPodiumStack(partial) { stack in
            let operatorClient = try TestClient(endpoint: stack.endpoints.requests)
            operatorClient.use(.adminKey(Self.admin))
            defer { Task { await operatorClient.close() } }
            let receipt = try await operatorClient.call(
                AuthRequests.adminDeleteAccount, AccountDeletionOrder(playerId: playerId, reason: "GDPR request"))
            #expect(receipt.playerId == playerId)
        }
        // Everything runs again: the two services read the deletion from the auth stream.
        try await withPodiumStack(options) { stack in
            let operatorClient = try TestClient(endpoint: stack.endpoints.requests)
            operatorClient.use(.adminKey(Self.admin))
            defer { Task { await operatorClient.close() } }
            let before = try await operatorClient.call(GatewayRequests.audit, AuditQuery(limit: 1)).entries.first?.seq
            let left = try await Self.eventually {
                let entry = try await operatorClient.call(
                    LeaderboardRequests.entry, BoardQuery(boardId: "dash.highscore"), gameId: "dash",
                    playerId: playerId)
                let list = try await operatorClient.call(
                    AchievementRequests.list, gameId: "blackjack", playerId: playerId)
                if entry.entry != nil { return "score" }
                if (list.status("regular")?.percentComplete ?? 0) > 0 { return "achievement" }
                let logs = try await Self.logsNaming(playerId, operatorClient: operatorClient, through: before ?? 0)
                return logs.isEmpty ? nil : logs.joined(separator: ", ")
            }
            #expect(left == nil)
        }
    }
}
