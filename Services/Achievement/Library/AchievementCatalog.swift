import Foundation
import PodiumMessages
import PodiumRuntime

/// The games' achievements, from the same configuration files as the leaderboards, validated
/// as a whole: points, totals, and rules against the events the game declares.
public struct AchievementCatalog: Sendable {
    public private(set) var games: [String: GameConfiguration]

    /// A game's achievement points may add up to at most this.
    public static let maximumTotalPoints = 1000

    public init(_ games: [GameConfiguration]) throws {
        self.games = try GameFiles.index(games, validate: Self.validate)
    }

    /// Reads every `*.json` file in `directory` (a missing directory means no games).
    public init(directory: URL) throws {
        try self.init(GameFiles.load(from: directory))
    }

    func achievements(of gameId: String?) throws(ErrorReply) -> [AchievementDefinition] {
        guard let gameId, let game = games[gameId] else {
            throw ErrorReply(code: .unknownGame, message: "this server has no game '\(gameId ?? "")'", field: "gameId")
        }
        return game.achievements ?? []
    }

    func achievement(gameId: String?, id: String) throws(ErrorReply) -> AchievementDefinition {
        guard let found = try achievements(of: gameId).first(where: { $0.id == id }) else {
            throw ErrorReply(
                code: .unknownAchievement, message: "game '\(gameId ?? "")' has no achievement '\(id)'",
                field: "payload.achievementId")
        }
        return found
    }

    /// Adds or replaces one achievement (an operator's change), validating the game as a whole.
    mutating func define(_ achievement: AchievementDefinition, gameId: String) throws {
        var game = games[gameId] ?? GameConfiguration(gameId: gameId)
        var list = game.achievements ?? []
        list.removeAll { $0.id == achievement.id }
        list.append(achievement)
        game.achievements = list
        try Self.validate(game)
        games[gameId] = game
    }

    /// Largest target (and per-value target) a rule or direct report may have.
    static let maximumTarget: Int64 = 1_000_000_000_000

    static func validate(_ game: GameConfiguration) throws {
        guard Identifiers.isValidID(game.gameId) else {
            throw ConfigurationProblem("game id '\(game.gameId)' is not valid")
        }
        for event in game.events ?? [] where !Identifiers.isValidEventName(event.name) {
            throw ConfigurationProblem(
                "game \(game.gameId): event name '\(event.name)' is not valid (see the event.publish rules)")
        }
        let achievements = game.achievements ?? []
        var seen = Set<String>()
        var total = 0
        let events = Dictionary(
            (game.events ?? []).map { ($0.name, Set($0.attributes ?? [])) }, uniquingKeysWith: { a, b in a.union(b) })
        for achievement in achievements {
            let place = "achievement '\(achievement.id)' of game \(game.gameId)"
            guard !achievement.id.isEmpty, achievement.id.count <= 100,
                achievement.id.allSatisfy({ $0.isLetter || $0.isNumber || "._-".contains($0) })
            else { throw ConfigurationProblem("\(place): the id must be 1-100 characters, reverse-DNS style") }
            guard seen.insert(achievement.id).inserted else { throw ConfigurationProblem("\(place) is defined twice") }
            guard (1...100).contains(achievement.points) else {
                throw ConfigurationProblem("\(place): points must be 1-100 (it has \(achievement.points))")
            }
            total += achievement.points
            guard !achievement.title.isEmpty, !achievement.description.isEmpty, !achievement.earnedDescription.isEmpty
            else {
                throw ConfigurationProblem("\(place) needs a title, a description and an earned description")
            }
            if let target = achievement.target, !(1...maximumTarget).contains(target) {
                throw ConfigurationProblem("\(place): target must be 1-\(maximumTarget)")
            }
            if let rule = achievement.rule { try validate(rule, place: place, events: events) }
        }
        guard total <= maximumTotalPoints else {
            throw ConfigurationProblem(
                "game \(game.gameId): achievements add up to \(total) points; the most a game may have is \(maximumTotalPoints)"
            )
        }
    }
}
