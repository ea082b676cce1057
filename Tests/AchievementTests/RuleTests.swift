import Foundation
import PodiumClient
import PodiumMessages
import PodiumTesting
import Testing

/// Each rule kind through the gateway: events in, progress and unlocks out.
@Suite("Achievement rules")
struct RuleTests {
    typealias Event = (String, Int64?, [String: JSONValue])

    static func hand(_ session: String, variant: String = "classic", doubled: Bool = false, won: Bool = false) -> Event
    {
        (
            "hand.played", nil,
            [
                "sessionId": .string(session), "variant": .string(variant), "doubledDown": .bool(doubled),
                "won": .bool(won),
            ]
        )
    }

    @Test("a single filtered event: only a win after doubling down counts")
    func filteredEvent() async throws {
        try await withPodiumStack { stack in
            let (player, _) = try await stack.player("bold")
            defer { Task { await player.close() } }
            try await player.play(
                "blackjack", [Self.hand("s1", doubled: true, won: false), Self.hand("s1", doubled: false, won: true)])
            let before = try await player.waitForAchievements("blackjack") { $0.status("hotstreak")?.steps == 1 }
            #expect(before.status("bold")?.earned == false)
            try await player.play("blackjack", [Self.hand("s1", doubled: true, won: true)])
            let after = try await player.waitForAchievements("blackjack") { $0.status("bold")?.earned == true }
            #expect(after.status("bold")?.earned == true)
        }
    }

    @Test("a threshold within one session: wins split over sessions do not add up")
    func sessionThreshold() async throws {
        try await withPodiumStack { stack in
            let (player, _) = try await stack.player("streaky")
            defer { Task { await player.close() } }
            try await player.play(
                "blackjack",
                (0..<4).map { _ in Self.hand("a", won: true) } + (0..<4).map { _ in Self.hand("b", won: true) })
            let split = try await player.waitForAchievements("blackjack") { $0.status("hotstreak")?.steps == 4 }
            #expect(split.status("hotstreak")?.earned == false)
            #expect(split.status("hotstreak")?.steps == 4, "progress is the best session, exactly")
            #expect(split.status("hotstreak")?.percentComplete == 80)
            try await player.play("blackjack", [Self.hand("b", won: true)])
            let done = try await player.waitForAchievements("blackjack") { $0.status("hotstreak")?.earned == true }
            #expect(done.status("hotstreak")?.earned == true)
        }
    }

    @Test("counts per attribute value: every variant must reach its target")
    func perValue() async throws {
        try await withPodiumStack { stack in
            let (player, _) = try await stack.player("connoisseur")
            defer { Task { await player.close() } }
            var hands: [Event] = []
            for variant in ["classic", "european", "spanish"] {
                hands += (0..<10).map { _ in Self.hand("s", variant: variant) }
            }
            hands += (0..<9).map { _ in Self.hand("s", variant: "vegas") }
            hands += (0..<5).map { _ in Self.hand("s", variant: "unlisted") }
            try await player.play("blackjack", hands)
            let almost = try await player.waitForAchievements("blackjack") { $0.status("connoisseur")?.steps == 39 }
            #expect(almost.status("connoisseur")?.earned == false)
            #expect(almost.status("connoisseur")?.target == 40)
            try await player.play("blackjack", [Self.hand("s", variant: "vegas")])
            #expect(
                try await player.waitForAchievements("blackjack") { $0.status("connoisseur")?.earned == true }.status(
                    "connoisseur")?.earned == true)
        }
    }

    @Test("a sequence within one session: below 10, then 100 or more; across sessions it does not count")
    func sequence() async throws {
        try await withPodiumStack { stack in
            let (player, _) = try await stack.player("comeback")
            defer { Task { await player.close() } }
            let hidden = try await player.achievements("blackjack").status("comeback")
            #expect(hidden?.hidden == true)
            #expect(hidden?.title == nil, "a hidden achievement without progress shows only a placeholder")
            try await player.play(
                "blackjack",
                [
                    ("balance", 150, ["sessionId": "x"]), ("balance", 5, ["sessionId": "y"]),
                    ("balance", 150, ["sessionId": "z"]),
                ])
            let partial = try await player.waitForAchievements("blackjack") { $0.status("comeback")?.steps == 1 }
            #expect(partial.status("comeback")?.title == "Comeback", "progress reveals a hidden achievement")
            #expect(partial.status("comeback")?.earned == false)
            try await player.play(
                "blackjack", [("balance", 99, ["sessionId": "y"]), ("balance", 100, ["sessionId": "y"])])
            #expect(
                try await player.waitForAchievements("blackjack") { $0.status("comeback")?.earned == true }.status(
                    "comeback")?.earned == true)
        }
    }

    @Test("a sliding window follows the events' times on the injected clock, boundary included")
    func window() async throws {
        let clock = OffsetClock()
        try await withPodiumStack(.init(clock: clock)) { stack in
            let (player, _) = try await stack.player("quick")
            defer { Task { await player.close() } }
            let hit: Event = ("cactus.hit", nil, ["matchId": "m"])
            // 4 hits, then 1 second passes (the window is strictly shorter): the 5th does not count with them.
            try await player.play("whackacac", Array(repeating: hit, count: 4))
            clock.advance(by: .milliseconds(1000))
            try await player.play("whackacac", [hit])
            let slow = try await player.waitForAchievements("whackacac") { $0.status("killone")?.earned == true }
            #expect(slow.status("hit5Fast")?.earned == false)
            // All or nothing: 4 of 5 hits show no progress, so the hidden achievement stays a placeholder.
            #expect(slow.status("hit5Fast")?.hidden == true && slow.status("hit5Fast")?.title == nil)
            #expect(slow.status("hit5Fast")?.steps == nil)
            clock.advance(by: .milliseconds(5000))
            try await player.play("whackacac", Array(repeating: hit, count: 5))
            let quick = try await player.waitForAchievements("whackacac") { $0.status("hit5Fast")?.earned == true }
            #expect(quick.status("hit5Fast")?.earned == true)
            #expect(quick.status("hit5Fast")?.title == "Hit 5 Quick" && quick.status("hit5Fast")?.target == 1)
        }
    }

    @Test("an event missing an attribute a rule needs is ignored by that rule only, and counted")
    func missingAttribute() async throws {
        try await withPodiumStack { stack in
            let (player, _) = try await stack.player("sloppy")
            defer { Task { await player.close() } }
            // No sessionId: the session threshold ignores it, the per-variant count still counts it.
            try await player.play(
                "blackjack", [("hand.played", nil, ["variant": "classic", "won": true, "doubledDown": false])])
            let list = try await player.waitForAchievements("blackjack") { $0.status("connoisseur")?.steps == 1 }
            #expect(list.status("connoisseur")?.steps == 1)
            #expect(list.status("hotstreak")?.steps == 0)
        }
    }
}

@Suite("Rule abuse")
struct RuleAbuseTests {
    @Test(
        "extreme and negative values neither crash the service nor earn anything; players cannot report rule-based achievements"
    )
    func extremes() async throws {
        try await withPodiumStack { stack in
            let (player, _) = try await stack.player("abuser")
            defer { Task { await player.close() } }
            try await player.play(
                "whackacac",
                [
                    ("tick", Int64.min, ["matchId": "m"]), ("tick", -1, ["matchId": "m"]),
                    ("tick", Int64.max, ["matchId": "m"]), ("tick", Int64.max, ["matchId": "m"]),
                ])
            let list = try await player.waitForAchievements("whackacac") { $0.status("play5Mins")?.earned == true }
            #expect(list.status("play5Mins")?.earned == true, "the two huge positive ticks complete it")
            let fresh = try await stack.player("negative")
            defer { Task { await fresh.client.close() } }
            try await fresh.client.play(
                "whackacac", [("tick", Int64.min, ["matchId": "m"]), ("tick", -5, ["matchId": "m"])])
            try await fresh.client.play("whackacac", [("cactus.hit", nil, ["matchId": "m"])])
            let negative = try await fresh.client.waitForAchievements("whackacac") {
                $0.status("killone")?.earned == true
            }
            #expect(negative.status("play5Mins")?.earned == false, "negative time does not count")
            #expect(negative.status("play5Mins")?.steps == 0)
            let cheat = try await player.report(
                "whackacac",
                [ProgressReport(achievementId: "com.dragonforged.whackacac.1000whacks", percentComplete: 100)])
            #expect(cheat.errorCode == .forbidden)
            let unknown = try await player.report("whackacac", [ProgressReport(achievementId: "nope", steps: 1)])
            #expect(unknown.error?.errorReply?.field == "payload.reports.0.achievementId")
            // The service is still up.
            #expect(try await player.exchange(ServiceRequests.health(of: "achievement")).type == .reply)
        }
    }
}
