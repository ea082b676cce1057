import Foundation
import PodiumMessages
import PodiumRuntime
import Testing

@testable import Achievement

@Suite("Achievement configuration")
struct CatalogTests {
    static let events = [EventDeclaration(name: "hit", attributes: ["matchId"])]

    static func game(_ achievements: [AchievementDefinition]) -> GameConfiguration {
        GameConfiguration(gameId: "g", events: events, achievements: achievements)
    }

    static func achievement(_ id: String, points: Int = 10, rule: AchievementRule? = nil) -> AchievementDefinition {
        AchievementDefinition(id: id, title: "T", description: "d", earnedDescription: "e", points: points, rule: rule)
    }

    static func refusal(_ game: GameConfiguration) -> String? {
        do {
            _ = try AchievementCatalog([game])
            return nil
        } catch {
            return "\(error)"
        }
    }

    @Test("the example games are valid")
    func examples() throws {
        let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("docs/examples/games")
        let catalog = try AchievementCatalog(directory: directory)
        #expect(catalog.games["whackacac"]?.achievements?.count == 7)
        #expect(catalog.games["blackjack"]?.achievements?.count == 7)
        let quick = catalog.games["whackacac"]?.achievements?.first { $0.id == "com.dragonforged.whackacac.hit5Fast" }
        #expect(quick?.title == "Hit 5 Quick" && quick?.hidden == true && quick?.rule?.allOrNothing == true)
        #expect(quick?.rule?.kind == .window && quick?.rule?.count == 5 && quick?.rule?.withinMilliseconds == 1000)
    }

    @Test("bad configurations are refused with a message that says why")
    func refusals() {
        let cases: [(GameConfiguration, String)] = [
            (Self.game([Self.achievement("a", points: 0)]), "points must be 1-100"),
            (Self.game([Self.achievement("a", points: 101)]), "points must be 1-100"),
            (Self.game((0..<11).map { Self.achievement("a\($0)", points: 100) }), "1100 points"),
            (
                Self.game([Self.achievement("a", rule: AchievementRule(kind: .event, event: "jump"))]),
                "does not declare"
            ),
            (
                Self.game([
                    Self.achievement(
                        "a", rule: AchievementRule(kind: .threshold, event: "hit", groupBy: "round", target: 3))
                ]), "no attribute 'round'"
            ),
            (
                Self.game([Self.achievement("a", rule: AchievementRule(kind: .counter, event: "hit", target: 0))]),
                "can never complete"
            ),
            (
                Self.game([Self.achievement("a", rule: AchievementRule(kind: .window, event: "hit", count: 5))]),
                "can never complete"
            ),
            (
                Self.game([
                    Self.achievement(
                        "a",
                        rule: AchievementRule(
                            kind: .perValue, event: "hit", target: 1, attribute: "matchId", values: []))
                ]), "can never complete"
            ),
            (
                Self.game([
                    Self.achievement(
                        "a",
                        rule: AchievementRule(
                            kind: .threshold, event: "hit", aggregate: .max, groupBy: "matchId", target: 2))
                ]), "can never complete"
            ),
            (Self.game([Self.achievement("a"), Self.achievement("a")]), "defined twice"),
        ]
        for (game, reason) in cases {
            let refusal = Self.refusal(game)
            #expect(refusal?.contains(reason) == true, "expected '\(reason)', got \(refusal ?? "acceptance")")
        }
        #expect(
            Self.refusal(Self.game((0..<10).map { Self.achievement("a\($0)", points: 100) })) == nil,
            "exactly 1,000 points is allowed")
    }

    /// A game whose `hit` carries a match, a score and a mode, and whose `miss` carries only the match.
    static func richGame(_ rule: AchievementRule) -> GameConfiguration {
        GameConfiguration(
            gameId: "g",
            events: [
                EventDeclaration(name: "hit", attributes: ["matchId", "score", "mode"]),
                EventDeclaration(name: "miss", attributes: ["matchId"]),
            ],
            achievements: [Self.achievement("a", rule: rule)])
    }

    @Test("the richer rule language is accepted in its documented forms")
    func languageAccepted() {
        let rules = [
            AchievementRule(
                kind: .event, event: "hit",
                where: ["score": ["gte": 100, "lt": 200.5], "mode": ["in": ["ranked", "duel", 3, true]]]),
            AchievementRule(
                kind: .event, event: "hit", where: ["mode": ["present": false], "score": ["present": true, "gt": 0]]),
            AchievementRule(kind: .event, event: "hit", where: ["mode": "ranked", "score": 3, "matchId": .null]),
            AchievementRule(
                kind: .counter, events: ["hit", "miss"], where: ["matchId": ["present": true]], target: 5,
                allOrNothing: true),
            AchievementRule(
                kind: .threshold, event: "hit", measureAttribute: "score", aggregate: .max, groupBy: "matchId",
                target: 500),
        ]
        for rule in rules {
            #expect(Self.refusal(Self.richGame(rule)) == nil, "\(rule) was refused")
        }
    }

    @Test(
        "a where the language cannot compare, and other misuses of the new fields, are refused naming game, achievement and attribute"
    )
    func languageRefusals() {
        let cases: [(AchievementRule, String)] = [
            (
                AchievementRule(kind: .event, event: "hit", where: ["mode": ["ranked", "duel"]]),
                "attribute 'mode': a list cannot be compared"
            ),
            (
                AchievementRule(kind: .event, event: "hit", where: ["score": ["gte": "100"]]),
                "attribute 'score': 'gte' needs a number"
            ),
            (
                AchievementRule(kind: .event, event: "hit", where: ["score": ["lt": true]]),
                "attribute 'score': 'lt' needs a number"
            ),
            (
                AchievementRule(kind: .event, event: "hit", where: ["mode": ["in": []]]),
                "attribute 'mode': 'in' needs a list"
            ),
            (
                AchievementRule(kind: .event, event: "hit", where: ["mode": ["in": "ranked"]]),
                "attribute 'mode': 'in' needs a list"
            ),
            (
                AchievementRule(kind: .event, event: "hit", where: ["mode": ["in": ["a", ["b"]]]]),
                "attribute 'mode': 'in' lists a list"
            ),
            (
                AchievementRule(kind: .event, event: "hit", where: ["mode": ["in": [.null]]]),
                "attribute 'mode': 'in' lists null"
            ),
            (
                AchievementRule(kind: .event, event: "hit", where: ["score": ["atLeast": 1]]),
                "attribute 'score': unknown operator 'atLeast'"
            ),
            (
                AchievementRule(kind: .event, event: "hit", where: ["score": [:]]),
                "attribute 'score': an empty condition"
            ),
            (
                AchievementRule(kind: .event, event: "hit", where: ["mode": ["present": "no"]]),
                "attribute 'mode': 'present' needs true or false"
            ),
            (
                AchievementRule(kind: .event, event: "hit", where: ["score": ["present": false, "gte": 1]]),
                "attribute 'score': 'present': false cannot be combined"
            ),
            (
                AchievementRule(kind: .event, event: "hit", where: ["level": ["gte": 1]]),
                "event 'hit' has no attribute 'level'"
            ),
            (AchievementRule(kind: .counter, target: 1), "needs \"event\" (one name) or \"events\""),
            (
                AchievementRule(kind: .counter, event: "hit", events: ["miss"], target: 1),
                "both \"event\" and \"events\""
            ),
            (AchievementRule(kind: .counter, events: [], target: 1), "\"events\" is empty"),
            (AchievementRule(kind: .counter, events: ["hit", "hit"], target: 1), "names an event twice"),
            (
                AchievementRule(kind: .counter, events: ["hit", "jump"], target: 1),
                "event 'jump', which the game does not declare"
            ),
            (
                AchievementRule(kind: .counter, events: ["hit", "miss"], where: ["score": ["gte": 1]], target: 1),
                "event 'miss' has no attribute 'score'"
            ),
            (
                AchievementRule(kind: .counter, events: ["hit", "miss"], measureAttribute: "score", target: 1),
                "event 'miss' has no attribute 'score'"
            ),
            (
                AchievementRule(kind: .counter, event: "hit", measure: .value, measureAttribute: "score", target: 1),
                "either measure or measureAttribute"
            ),
            (AchievementRule(kind: .counter, event: "hit", target: 0, allOrNothing: true), "can never complete"),
        ]
        for (rule, reason) in cases {
            let refusal = Self.refusal(Self.richGame(rule))
            #expect(refusal?.contains(reason) == true, "expected '\(reason)', got \(refusal ?? "acceptance")")
            #expect(
                refusal?.contains("achievement 'a' of game g") == true, "the message names the achievement and game")
        }
    }
}
