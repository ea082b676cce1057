import Foundation
import PodiumMessages
import PodiumRuntime
import Testing

@testable import Challenge

/// The rules of challenge definitions (docs/GAME-CONFIG.md, "Challenges"), without sockets.
@Suite("Challenge definitions")
struct ChallengeCatalogTests {
    static func game(_ challenges: [ChallengeDefinition]) -> GameConfiguration {
        GameConfiguration(
            gameId: "dash", leaderboards: [LeaderboardDefinition(id: "dash.highscore", title: "High score")],
            challenges: challenges)
    }

    static let sprint = ChallengeDefinition(
        id: "dash.sprint", title: "Sprint", details: "Best run in the time you pick.", leaderboardId: "dash.highscore",
        durations: [3_600_000, 86_400_000], attempts: .limited(3), repeatable: true)

    @Test("a valid definition loads; attempts are 1, 3 or unlimited, and absent fields take their defaults")
    func loads() throws {
        let catalog = try ChallengeCatalog([Self.game([Self.sprint])])
        #expect(catalog.definition("dash.sprint", gameId: "dash") == Self.sprint)
        #expect(catalog.definitions(of: "other").isEmpty)
        let json = #"{"id":"d","title":"T","details":"D","leaderboardId":"b","durations":[60000]}"#
        let decoded = try WireCodec.decode(ChallengeDefinition.self, from: Data(json.utf8))
        #expect(decoded.attempts == .limited(1) && !decoded.repeatable && decoded.releaseState == .released)
        let unlimited = try WireCodec.decode(
            ChallengeDefinition.self,
            from: Data(
                #"{"id":"d","title":"T","details":"D","leaderboardId":"b","durations":[60000],"attempts":"unlimited"}"#
                    .utf8))
        #expect(unlimited.attempts == .unlimited && unlimited.attempts.limit == nil)
        #expect(String(decoding: try WireCodec.encode(unlimited), as: UTF8.self).contains(#""attempts":"unlimited""#))
    }

    @Test("definitions that break a rule are refused, naming the game, the challenge and the rule")
    func refused() {
        var cases: [(String, ChallengeDefinition)] = []
        func with(_ label: String, _ change: (inout ChallengeDefinition) -> Void) {
            var definition = Self.sprint
            change(&definition)
            cases.append((label, definition))
        }
        with("no such board") { $0.leaderboardId = "dash.nope" }
        with("no durations") { $0.durations = [] }
        with("a duration under a minute") { $0.durations = [59_999] }
        with("a duration over 30 days") { $0.durations = [2_592_000_001] }
        with("the same duration twice") { $0.durations = [60_000, 60_000] }
        with("eleven durations") { $0.durations = (1...11).map { Int64($0) * 60_000 } }
        with("two attempts") { $0.attempts = .limited(2) }
        with("no title") { $0.title = "" }
        with("a control character") { $0.details = "bell\u{7}" }
        with("a bad id") { $0.id = "has space" }
        with("an image that is not a URL") { $0.image = "cat.png" }
        for (label, definition) in cases {
            #expect(throws: ConfigurationProblem.self, "\(label)") { try ChallengeCatalog([Self.game([definition])]) }
            do {
                _ = try ChallengeCatalog([Self.game([definition])])
            } catch {
                #expect("\(error)".contains("game dash"), "\(label): \(error)")
            }
        }
        #expect(throws: ConfigurationProblem.self, "twice") {
            try ChallengeCatalog([Self.game([Self.sprint, Self.sprint])])
        }
    }

    @Test("the example games' definitions load")
    func examples() throws {
        let examples = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("docs/examples/games")
        _ = try ChallengeCatalog(directory: examples)
    }
}
