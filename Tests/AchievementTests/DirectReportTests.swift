import Foundation
import PodiumClient
import PodiumMessages
import PodiumTesting
import Testing

/// GameKit-style reporting: percent or steps, never backwards, idempotent, batches.
@Suite("Direct progress reports")
struct DirectReportTests {
    static let tutorial = "com.example.blackjack.tutorial"
    static let regular = "com.example.blackjack.regular"

    @Test("progress never decreases; a repeated report changes nothing; earned stays earned")
    func monotonic() async throws {
        try await withPodiumStack { stack in
            let (player, _) = try await stack.player("reporter")
            defer { Task { await player.close() } }
            let first = try await player.report(
                "blackjack", [ProgressReport(achievementId: Self.tutorial, percentComplete: 40.5)]
            ).outcomes
            #expect(first.map(\.status) == ["progressed"])
            #expect(first.first?.percentComplete == 40.5)
            let same = try await player.report(
                "blackjack", [ProgressReport(achievementId: Self.tutorial, percentComplete: 40.5)]
            ).outcomes
            #expect(same.map(\.status) == ["ignored_lower"])
            let lower = try await player.report("blackjack", [ProgressReport(achievementId: Self.tutorial, steps: 10)])
                .outcomes
            #expect(lower.map(\.status) == ["ignored_lower"])
            #expect(lower.first?.percentComplete == 40.5)
            let done = try await player.report(
                "blackjack", [ProgressReport(achievementId: Self.tutorial, percentComplete: 100)]
            ).outcomes
            #expect(done.map(\.status) == ["earned"])
            let after = try await player.report(
                "blackjack", [ProgressReport(achievementId: Self.tutorial, percentComplete: 100)]
            ).outcomes
            #expect(after.map(\.status) == ["ignored_earned"])
            #expect(after.first?.timesEarned == 1)
            let list = try await player.achievements("blackjack")
            #expect(list.status("tutorial")?.earned == true)
            #expect(list.status("tutorial")?.description == "You know the rules.")
            #expect(list.pointsEarned == 5)
        }
    }

    @Test("an achievement achievable more than once is earned again and counts; report ids make resubmission safe")
    func repeatableAndReceipts() async throws {
        try await withPodiumStack { stack in
            let (player, _) = try await stack.player("regular")
            defer { Task { await player.close() } }
            let steps = try await player.report(
                "blackjack",
                [
                    ProgressReport(achievementId: Self.regular, steps: 2, reportId: "r1"),
                    ProgressReport(achievementId: Self.regular, steps: 3, reportId: "r2"),
                ]
            ).outcomes
            #expect(steps.map(\.status) == ["progressed", "earned"])
            // The offline queue resubmits r2: nothing happens twice.
            let resubmitted = try await player.report(
                "blackjack", [ProgressReport(achievementId: Self.regular, steps: 3, reportId: "r2")]
            ).outcomes
            #expect(resubmitted.map(\.status) == ["duplicate"])
            #expect(resubmitted.first?.timesEarned == 1)
            let again = try await player.report(
                "blackjack", [ProgressReport(achievementId: Self.regular, steps: 3, reportId: "r3")]
            ).outcomes
            #expect(again.map(\.status) == ["earned_again"])
            #expect(again.first?.timesEarned == 2)
            #expect(try await player.achievements("blackjack").status("regular")?.timesEarned == 2)
        }
    }

    @Test(
        "a batch with one bad report is refused whole and changes nothing",
        arguments: [
            ["percentComplete": 101.0], ["percentComplete": -1.0], ["steps": -2], [:], ["percentComplete": "lots"],
        ] as [[String: JSONValue]])
    func badBatch(bad: [String: JSONValue]) async throws {
        try await withPodiumStack { stack in
            let (player, _) = try await stack.player("batcher")
            defer { Task { await player.close() } }
            var badReport = bad
            badReport["achievementId"] = .string(Self.regular)
            let reply = try await player.reportMalformed(
                "blackjack", [["achievementId": .string(Self.tutorial), "percentComplete": 50], .object(badReport)])
            #expect(reply.errorCode == .invalidField || reply.errorCode == .invalidShape)
            #expect(
                try await player.achievements("blackjack").status("tutorial")?.percentComplete == 0,
                "the good report was not applied")
        }
    }

    @Test("unknown achievements and games are refused; servers report for a named player")
    func unknownAndServers() async throws {
        let serverKey = String(repeating: "s", count: 40)
        try await withPodiumStack(.init(serverKeys: ["blackjack": serverKey])) { stack in
            let (player, grant) = try await stack.player("named")
            let server = try TestClient(endpoint: stack.endpoints.requests)
            server.use(.serverKey(serverKey))
            defer {
                Task {
                    await player.close()
                    await server.close()
                }
            }
            #expect(
                try await player.report("blackjack", [ProgressReport(achievementId: "nope", steps: 1)]).errorCode
                    == .unknownAchievement)
            #expect(
                try await player.report("nowhere", [ProgressReport(achievementId: Self.tutorial, steps: 1)]).errorCode
                    == .unknownGame)
            #expect(
                try await server.report("blackjack", [ProgressReport(achievementId: Self.tutorial, steps: 1)]).errorCode
                    == .missingField)
            let forPlayer = try await server.report(
                "blackjack", [ProgressReport(achievementId: Self.tutorial, percentComplete: 100)],
                playerId: grant.playerId)
            #expect(try forPlayer.outcomes.first?.status == "earned")
            #expect(try await player.achievements("blackjack").status("tutorial")?.earned == true)
        }
    }
}

@Suite("Achievement definitions by operators")
struct AchievementAdminTests {
    static let admin = String(repeating: "a", count: 40)

    @Test("operators add achievements; a change that breaks the rules is refused; players cannot define")
    func define() async throws {
        try await withPodiumStack(.init(adminKey: Self.admin)) { stack in
            let (player, _) = try await stack.player("definer")
            let operatorClient = try TestClient(endpoint: stack.endpoints.requests)
            operatorClient.use(.adminKey(Self.admin))
            defer {
                Task {
                    await player.close()
                    await operatorClient.close()
                }
            }
            func define(_ client: TestClient, _ definition: AchievementDefinition, game: String = "blackjack")
                async throws
                -> PodiumReply<AchievementDefinitionChange>
            {
                try await client.exchange(
                    AchievementRequests.define, AchievementDefinitionChange(definition: definition), gameId: game)
            }
            let fresh = AchievementDefinition(
                id: "com.example.blackjack.newbie", title: "Newbie", description: "Sit down.",
                earnedDescription: "Welcome.", points: 5,
                target: 1)
            #expect(try await define(player, fresh).errorCode == .forbidden)
            #expect(try await define(operatorClient, fresh).type == .reply)
            let outcome = try await player.report(
                "blackjack", [ProgressReport(achievementId: "com.example.blackjack.newbie", steps: 1)]
            ).outcomes
            #expect(outcome.first?.status == "earned")
            let greedy = AchievementDefinition(
                id: "com.example.blackjack.greedy", title: "Greedy", description: "d", earnedDescription: "e",
                points: 101)
            let refused = try await define(operatorClient, greedy)
            #expect(refused.errorCode == .invalidField)
            let badRule = AchievementDefinition(
                id: "com.example.blackjack.ghost", title: "Ghost", description: "d", earnedDescription: "e", points: 5,
                rule: AchievementRule(kind: .event, event: "teleport"))
            #expect(try await define(operatorClient, badRule).errorCode == .invalidField)
            let list = try await player.achievements("blackjack")
            #expect(list.status("newbie")?.earned == true)
            #expect(list.status("greedy") == nil)
        }
    }
}

@Suite("Rebuilding from the event log")
struct RebuildTests {
    static let admin = String(repeating: "r", count: 40)

    @Test(
        "a rule fixed by the operator applies to past events after a rebuild; a dry run changes nothing; players cannot rebuild"
    )
    func rebuild() async throws {
        try await withPodiumStack(.init(adminKey: Self.admin)) { stack in
            let (player, _) = try await stack.player("rebuilt")
            let operatorClient = try TestClient(endpoint: stack.endpoints.requests)
            operatorClient.use(.adminKey(Self.admin))
            defer {
                Task {
                    await player.close()
                    await operatorClient.close()
                }
            }
            try await player.play("whackacac", Array(repeating: ("cactus.hit", nil, ["matchId": "m1"]), count: 3))
            _ = try await player.waitForAchievements("whackacac") { $0.status("100whacks")?.steps == 3 }
            // The studio adds a rule for three hits: it starts with no progress, as rules only see new events.
            let threeHits = AchievementDefinition(
                id: "com.dragonforged.whackacac.3whacks", title: "Three Whacks", description: "Hit three cacti.",
                earnedDescription: "Three down.", points: 5,
                rule: AchievementRule(kind: .counter, event: "cactus.hit", measure: .count, target: 3))
            let defined = try await operatorClient.exchange(
                AchievementRequests.define, AchievementDefinitionChange(definition: threeHits), gameId: "whackacac")
            #expect(defined.type == .reply)
            #expect(try await player.achievements("whackacac").status("3whacks")?.steps == 0)
            #expect(
                try await player.exchange(AchievementRequests.rebuild, RebuildRequest(), gameId: "whackacac").errorCode
                    == .forbidden)

            let dry = try await operatorClient.call(
                AchievementRequests.rebuild, RebuildRequest(gameId: "whackacac", dryRun: true))
            #expect(dry.dryRun && dry.eventsReplayed == 3 && dry.newlyEarned == 1)
            #expect(
                dry.changes.map(\.achievementId) == ["com.dragonforged.whackacac.3whacks"],
                "the other rules replay to what they were")
            #expect(
                try await player.achievements("whackacac").status("3whacks")?.earned == false,
                "a dry run changes nothing")

            let report = try await operatorClient.call(AchievementRequests.rebuild, RebuildRequest(gameId: "whackacac"))
            #expect(!report.dryRun && report.newlyEarned == 1 && report.position == 3)
            let after = try await player.achievements("whackacac")
            #expect(after.status("3whacks")?.earned == true && after.status("3whacks")?.steps == 3)
            #expect(after.status("100whacks")?.steps == 3, "replayed progress equals live progress")
            // Live events continue exactly after the rebuild's position: none is applied twice.
            try await player.play("whackacac", [("cactus.hit", nil, ["matchId": "m1"])])
            let later = try await player.waitForAchievements("whackacac") { $0.status("100whacks")?.steps == 4 }
            #expect(later.status("100whacks")?.steps == 4)
            let again = try await operatorClient.call(AchievementRequests.rebuild, RebuildRequest(gameId: "whackacac"))
            #expect(again.changes.isEmpty && again.eventsReplayed == 4, "a second rebuild finds nothing to change")
        }
    }
}
