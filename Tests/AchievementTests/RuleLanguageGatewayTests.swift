import Foundation
import PodiumClient
import PodiumMessages
import PodiumTesting
import Testing

/// The richer rule language end to end: events published through the gateway over real
/// sockets, rules defined in the example game file and by operators, progress read back.
@Suite("Rule language through the gateway")
struct RuleLanguageGatewayTests {
    static let admin = String(repeating: "w", count: 40)
    typealias Event = (String, Int64?, [String: JSONValue])

    static func hand(_ session: String, bet: JSONValue, won: Bool = true, variant: String = "classic") -> Event {
        (
            "hand.played", nil,
            [
                "sessionId": .string(session), "variant": .string(variant), "doubledDown": false, "won": .bool(won),
                "bet": bet,
            ]
        )
    }

    /// Sends a definition as a studio writes it, in the JSON rule language (broken ones too, which
    /// no typed definition could carry to the service's checks).
    static func define(_ client: TestClient, _ definition: JSONValue) async throws -> RawEnvelope {
        try await client.request(
            AchievementRequests.define.type, gameId: "blackjack", payload: ["definition": definition])
    }

    @Test("numeric where and a measured attribute (High Roller), events lists, in, present and all-or-nothing")
    func language() async throws {
        let logs = LogRecorder()
        try await withPodiumStack(.init(adminKey: Self.admin, logger: logs.logger())) { stack in
            let (player, _) = try await stack.player("roller")
            let operatorClient = try TestClient(endpoint: stack.endpoints.requests)
            operatorClient.use(.adminKey(Self.admin))
            defer {
                Task {
                    await player.close()
                    await operatorClient.close()
                }
            }
            let regular: JSONValue = [
                "id": "com.example.blackjack.seated", "title": "Seated", "description": "Three things at a table.",
                "earnedDescription": "Seated.", "points": 5,
                "rule": [
                    "kind": "counter", "events": ["hand.played", "balance"], "where": ["sessionId": ["present": true]],
                    "target": 3, "allOrNothing": true,
                ],
            ]
            let exotic: JSONValue = [
                "id": "com.example.blackjack.exotic", "title": "Exotic", "description": "Win at vegas or spanish.",
                "earnedDescription": "Far from home.", "points": 5,
                "rule": [
                    "kind": "event", "event": "hand.played",
                    "where": ["variant": ["in": ["vegas", "spanish"]], "won": true],
                ],
            ]
            #expect(try await Self.define(operatorClient, regular).type == .reply)
            #expect(try await Self.define(operatorClient, exotic).type == .reply)

            // 100 is exactly the bound (counts, measuring 100); 99 does not. A balance without a
            // session does not count for "seated" (2 of 3 so far: shown as 0 of 1).
            try await player.play(
                "blackjack", [("balance", 50, [:]), Self.hand("s1", bet: 99), Self.hand("s1", bet: 100)])
            let first = try await player.waitForAchievements("blackjack") { $0.status("highroller")?.steps == 100 }
            #expect(first.status("highroller")?.steps == 100 && first.status("highroller")?.target == 1000)
            #expect(
                first.status("seated")?.steps == 0 && first.status("seated")?.target == 1
                    && first.status("seated")?.earned == false)
            #expect(first.status("exotic")?.earned == false)
            // A lost hand and a bet that is not a number do not count for High Roller; both count for "seated".
            try await player.play("blackjack", [Self.hand("s1", bet: 500, won: false), Self.hand("s1", bet: "lots")])
            let second = try await player.waitForAchievements("blackjack") { $0.status("seated")?.earned == true }
            #expect(second.status("seated")?.earned == true && second.status("seated")?.steps == 1)
            #expect(second.status("highroller")?.steps == 100)
            let notANumber = logs.matching("event ignored by a rule: attribute not a number")
            #expect(
                notANumber.contains {
                    $0.metadata["achievement.id"] == "com.example.blackjack.highroller"
                        && $0.metadata["attribute"] == "bet"
                })

            try await player.play(
                "blackjack", [Self.hand("s2", bet: 900), Self.hand("s2", bet: 1, variant: "spanish")])
            let done = try await player.waitForAchievements("blackjack") {
                $0.status("highroller")?.earned == true && $0.status("exotic")?.earned == true
            }
            #expect(done.status("highroller")?.earned == true)
            #expect(done.status("exotic")?.earned == true)
        }
    }

    @Test("all or nothing shows 0 of 1 through the gateway until the rule completes")
    func allOrNothingProgress() async throws {
        try await withPodiumStack(.init(adminKey: Self.admin)) { stack in
            let (player, _) = try await stack.player("patient")
            let operatorClient = try TestClient(endpoint: stack.endpoints.requests)
            operatorClient.use(.adminKey(Self.admin))
            defer {
                Task {
                    await player.close()
                    await operatorClient.close()
                }
            }
            let marathon: JSONValue = [
                "id": "com.example.blackjack.marathon", "title": "Marathon", "description": "Play 3 hands.",
                "earnedDescription": "Long night.", "points": 5,
                "rule": ["kind": "counter", "event": "hand.played", "target": 3, "allOrNothing": true],
            ]
            let counted: JSONValue = [
                "id": "com.example.blackjack.counted", "title": "Counted", "description": "Play 10 hands.",
                "earnedDescription": "Ten.", "points": 5,
                "rule": ["kind": "counter", "event": "hand.played", "target": 10],
            ]
            #expect(try await Self.define(operatorClient, marathon).type == .reply)
            #expect(try await Self.define(operatorClient, counted).type == .reply)
            try await player.play("blackjack", [Self.hand("s", bet: 5), Self.hand("s", bet: 5)])
            let partial = try await player.waitForAchievements("blackjack") { $0.status("counted")?.steps == 2 }
            #expect(partial.status("marathon")?.steps == 0 && partial.status("marathon")?.percentComplete == 0)
            #expect(partial.status("marathon")?.earned == false)
            try await player.play("blackjack", [Self.hand("s", bet: 5)])
            let done = try await player.waitForAchievements("blackjack") { $0.status("marathon")?.earned == true }
            #expect(done.status("marathon")?.steps == 1 && done.status("marathon")?.percentComplete == 100)
        }
    }

    @Test("achievement.admin.define refuses a where the language cannot compare, naming it, and changes nothing")
    func defineRefusal() async throws {
        try await withPodiumStack(.init(adminKey: Self.admin)) { stack in
            let (player, _) = try await stack.player("watcher")
            let operatorClient = try TestClient(endpoint: stack.endpoints.requests)
            operatorClient.use(.adminKey(Self.admin))
            defer {
                Task {
                    await player.close()
                    await operatorClient.close()
                }
            }
            func exotic(_ condition: JSONValue, title: String = "Exotic") -> JSONValue {
                [
                    "id": "com.example.blackjack.exotic", "title": .string(title), "description": "d",
                    "earnedDescription": "e",
                    "points": 5, "rule": ["kind": "event", "event": "hand.played", "where": ["variant": condition]],
                ]
            }
            #expect(try await Self.define(operatorClient, exotic(["in": ["vegas"]])).type == .reply)
            let bad: [(JSONValue, String)] = [
                (["vegas", "spanish"], "a list cannot be compared"),
                (["in": []], "'in' needs a list"),
                (["gte": "a"], "'gte' needs a number"),
                (["like": "veg%"], "unknown operator 'like'"),
            ]
            for (condition, reason) in bad {
                let reply = try await Self.define(operatorClient, exotic(condition, title: "Broken"))
                let error = try reply.decodePayload(as: ErrorReply.self)
                #expect(reply.errorCode == .invalidField && error.field == "payload.definition")
                #expect(error.message.contains(reason), "\(error.message)")
                #expect(
                    error.message.contains("com.example.blackjack.exotic") && error.message.contains("blackjack")
                        && error.message.contains("attribute 'variant'"), "\(error.message)")
            }
            let list = try await player.achievements("blackjack")
            #expect(list.status("exotic")?.title == "Exotic", "the refused definitions changed nothing")
            try await player.play("blackjack", [Self.hand("s", bet: 1, variant: "vegas")])
            #expect(
                try await player.waitForAchievements("blackjack") { $0.status("exotic")?.earned == true }.status(
                    "exotic")?.earned == true)
        }
    }

    @Test(
        "a rebuild replays the log through new-language rules: events lists, numeric where, measured attribute, all or nothing"
    )
    func rebuild() async throws {
        try await withPodiumStack(.init(adminKey: Self.admin)) { stack in
            let (player, _) = try await stack.player("replayed")
            let operatorClient = try TestClient(endpoint: stack.endpoints.requests)
            operatorClient.use(.adminKey(Self.admin))
            defer {
                Task {
                    await player.close()
                    await operatorClient.close()
                }
            }
            try await player.play(
                "blackjack",
                [
                    Self.hand("s1", bet: 100, won: false), Self.hand("s1", bet: 200, won: false),
                    Self.hand("s1", bet: 300, won: false),
                    ("balance", 40, ["sessionId": "s1"]),
                ])
            _ = try await player.waitForAchievements("blackjack") { $0.status("connoisseur")?.steps == 3 }
            let bettor: JSONValue = [
                "id": "com.example.blackjack.bettor", "title": "Bettor", "description": "Bet 500 in bets above 100.",
                "earnedDescription": "Bold bets.", "points": 5,
                "rule": [
                    "kind": "counter", "event": "hand.played", "where": ["bet": ["gt": 100]], "measureAttribute": "bet",
                    "target": 500,
                ],
            ]
            let busy: JSONValue = [
                "id": "com.example.blackjack.busy", "title": "Busy", "description": "Four things at a table.",
                "earnedDescription": "Busy.", "points": 5,
                "rule": ["kind": "counter", "events": ["hand.played", "balance"], "target": 4, "allOrNothing": true],
            ]
            #expect(try await Self.define(operatorClient, bettor).type == .reply)
            #expect(try await Self.define(operatorClient, busy).type == .reply)
            #expect(
                try await player.achievements("blackjack").status("bettor")?.steps == 0, "rules only see new events")

            let dry = try await operatorClient.call(
                AchievementRequests.rebuild, RebuildRequest(gameId: "blackjack", dryRun: true))
            #expect(dry.eventsReplayed == 4 && dry.newlyEarned == 2)
            #expect(
                Set(dry.changes.map(\.achievementId)) == ["com.example.blackjack.bettor", "com.example.blackjack.busy"])
            let report = try await operatorClient.call(AchievementRequests.rebuild, RebuildRequest(gameId: "blackjack"))
            #expect(!report.dryRun && report.newlyEarned == 2)
            let after = try await player.achievements("blackjack")
            #expect(
                after.status("bettor")?.earned == true && after.status("bettor")?.steps == 500,
                "200 + 300; 100 is not above 100")
            #expect(after.status("busy")?.earned == true && after.status("busy")?.steps == 1)
            #expect(after.status("connoisseur")?.steps == 3, "replayed progress equals live progress")
        }
    }
}
