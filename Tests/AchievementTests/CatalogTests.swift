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
    }

    @Test("bad configurations are refused with a message that says why")
    func refusals() {
        let cases: [(GameConfiguration, String)] = [
            (Self.game([Self.achievement("a", points: 0)]), "points must be 1-100"),
            (Self.game([Self.achievement("a", points: 101)]), "points must be 1-100"),
            (Self.game((0..<11).map { Self.achievement("a\($0)", points: 100) }), "1100 points"),
            (Self.game([Self.achievement("a", rule: AchievementRule(kind: .event, event: "jump"))]), "does not declare"),
            (Self.game([Self.achievement("a", rule: AchievementRule(kind: .threshold, event: "hit", groupBy: "round", target: 3))]), "no attribute 'round'"),
            (Self.game([Self.achievement("a", rule: AchievementRule(kind: .counter, event: "hit", target: 0))]), "can never complete"),
            (Self.game([Self.achievement("a", rule: AchievementRule(kind: .window, event: "hit", count: 5))]), "can never complete"),
            (Self.game([Self.achievement("a", rule: AchievementRule(kind: .perValue, event: "hit", target: 1, attribute: "matchId", values: []))]), "can never complete"),
            (Self.game([Self.achievement("a", rule: AchievementRule(kind: .threshold, event: "hit", aggregate: .max, groupBy: "matchId", target: 2))]), "can never complete"),
            (Self.game([Self.achievement("a"), Self.achievement("a")]), "defined twice"),
        ]
        for (game, reason) in cases {
            let refusal = Self.refusal(game)
            #expect(refusal?.contains(reason) == true, "expected '\(reason)', got \(refusal ?? "acceptance")")
        }
        #expect(Self.refusal(Self.game((0..<10).map { Self.achievement("a\($0)", points: 100) })) == nil, "exactly 1,000 points is allowed")
    }
}
