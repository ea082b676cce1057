import Foundation
import PodiumClient
import PodiumMessages
import PodiumTesting
import Testing

/// The reference chapter's game, played through the gateway with events.
@Suite("Whack-a-Cac")
struct WhackACacTests {
    @Test("playing matches unlocks each achievement at the right moment, with exact progress and a banner")
    func playThrough() async throws {
        let clock = OffsetClock()
        try await withPodiumStack(.init(clock: clock)) { stack in
            let (player, _) = try await stack.player("whacker")
            defer { Task { await player.close() } }
            let topic = try await player.call(GatewayRequests.subscribe, gameId: "whackacac").topic
            let banners = try TestSubscriber(endpoint: stack.endpoints.notifications, topics: [topic])
            defer { Task { await banners.close() } }
            _ = try await withDeadline(.seconds(15)) {
                while true {
                    _ = try await player.call(
                        ClientRequests.testNotification(of: "achievement"), TestNotice(), gameId: "whackacac")
                    if (try? await banners.next(timeout: .milliseconds(300))) != nil { return true }
                }
            }
            let start = try await player.achievements("whackacac")
            #expect(start.pointsTotal == 150)
            #expect(start.status("score100")?.hidden == true && start.status("score100")?.title == nil)

            // Match 1: 43 slow hits (one every 2 s of game time) and 90 s of play.
            for _ in 0..<43 {
                try await player.play("whackacac", [("cactus.hit", nil, ["matchId": "m1"])])
                clock.advance(by: .seconds(2))
            }
            try await player.play("whackacac", [("tick", 90, ["matchId": "m1"]), ("match.end", 43, ["matchId": "m1"])])
            let afterOne = try await player.waitForAchievements("whackacac") { $0.status("play5")?.steps == 1 }
            #expect(afterOne.status("killone")?.earned == true)
            #expect(afterOne.status("score100")?.title == "Score 100", "progress revealed the hidden achievement")
            #expect(afterOne.status("score100")?.steps == 43)
            #expect(afterOne.status("100whacks")?.steps == 43)
            #expect(afterOne.status("1000whacks")?.steps == 43)
            #expect(afterOne.status("1000whacks")?.percentComplete == 4.3, "exact, not rounded to whole percent")
            #expect(afterOne.status("play5Mins")?.steps == 90)
            #expect(afterOne.status("hit5Fast")?.earned == false)

            // Match 2: 100 quick hits in one match, then 4 more matches and enough time.
            try await player.play("whackacac", Array(repeating: ("cactus.hit", nil, ["matchId": "m2"]), count: 100))
            for match in 2...5 {
                try await player.play(
                    "whackacac",
                    [
                        ("tick", 60, ["matchId": .string("m\(match)")]),
                        ("match.end", 0, ["matchId": .string("m\(match)")]),
                    ])
            }
            let done = try await player.waitForAchievements("whackacac") {
                $0.status("play5")?.earned == true && $0.status("play5Mins")?.earned == true
            }
            for id in ["killone", "score100", "play5", "100whacks", "play5Mins", "hit5Fast"] {
                #expect(done.status(id)?.earned == true, "\(id) was not earned")
            }
            #expect(done.status("1000whacks")?.earned == false)
            #expect(done.status("1000whacks")?.steps == 143)
            #expect(done.status("play5Mins")?.steps == 300)
            #expect(done.pointsEarned == 100)
            #expect(done.status("killone")?.percentOfPlayersEarned == 100)

            var kinds: [String] = []
            while let banner = try? await banners.next(timeout: .seconds(2)) {
                let notice = try banner.envelope.decodePayload(as: PlayerNotification.self)
                if notice.kind == "achievement.earned" { kinds.append(notice.details["title"]?.stringValue ?? "") }
            }
            #expect(Set(kinds) == ["Kill One", "Score 100", "Play Five", "100 Whacks", "Five Minutes", "Hit 5 Quick"])
        }
    }

    @Test("a restart mid-game loses no progress, and a reset clears one game for one player only")
    func restartAndReset() async throws {
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("podium-ach-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: data) }
        let options = PodiumTestStack.Options(dataDirectory: data)
        let grant = try await withPodiumStack(options) { stack in
            let (player, grant) = try await stack.player("persistent")
            defer { Task { await player.close() } }
            try await player.play("whackacac", Array(repeating: ("cactus.hit", nil, ["matchId": "m1"]), count: 30))
            _ = try await player.report(
                "blackjack", [ProgressReport(achievementId: "com.example.blackjack.tutorial", percentComplete: 100)])
            let list = try await player.waitForAchievements("whackacac") { $0.status("100whacks")?.steps == 30 }
            #expect(list.status("100whacks")?.steps == 30)
            return grant
        }
        try await withPodiumStack(options) { stack in
            let player = try TestClient(endpoint: stack.endpoints.requests)
            player.use(.token(grant.sessionToken))
            defer { Task { await player.close() } }
            // The same match continues after the restart: its count carries on.
            try await player.play("whackacac", Array(repeating: ("cactus.hit", nil, ["matchId": "m1"]), count: 70))
            let list = try await player.waitForAchievements("whackacac") { $0.status("score100")?.earned == true }
            #expect(list.status("score100")?.earned == true)
            #expect(list.status("100whacks")?.earned == true)

            func resetAll(_ confirmation: AchievementResetConfirmation) async throws -> PodiumReply<
                AchievementResetReceipt
            > {
                try await player.exchange(AchievementRequests.reset, confirmation, gameId: "whackacac")
            }
            #expect(
                try await resetAll(AchievementResetConfirmation(confirm: nil, gameId: nil)).errorCode
                    == .confirmationRequired)
            #expect(
                try await resetAll(AchievementResetConfirmation(confirm: true, gameId: "blackjack")).errorCode
                    == .confirmationRequired)
            let reset = try await resetAll(AchievementResetConfirmation(confirm: true, gameId: "whackacac"))
            #expect(reset.type == .reply)
            let cleared = try await player.achievements("whackacac")
            #expect(cleared.pointsEarned == 0)
            #expect(cleared.status("100whacks")?.steps == 0)
            #expect(
                try await player.achievements("blackjack").status("tutorial")?.earned == true,
                "other games are untouched")
        }
    }
}
