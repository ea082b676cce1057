import Foundation
import PodiumMessages
import PodiumRuntime

/// The challenges studios define, from the games' configuration files (docs/GAME-CONFIG.md,
/// "Challenges"), validated as a whole: a file whose definitions break a rule stops the service
/// with a message that names the game, the challenge and the rule.
public struct ChallengeCatalog: Sendable {
    /// Definitions by game, then by id, in file order.
    public private(set) var games: [String: [ChallengeDefinition]]

    public static let maximumDurations = 10
    public static let durations: ClosedRange<Int64> = 60_000...(30 * 86_400_000)

    /// No games, no definitions.
    public static let empty = ChallengeCatalog(games: [:])

    private init(games: [String: [ChallengeDefinition]]) { self.games = games }

    public init(_ games: [GameConfiguration]) throws {
        var byGame: [String: [ChallengeDefinition]] = [:]
        for game in try GameFiles.index(games, validate: Self.validate).values {
            byGame[game.gameId] = game.challenges ?? []
        }
        self.games = byGame
    }

    /// Reads every `*.json` file in `directory` (a missing directory means no games).
    public init(directory: URL) throws {
        try self.init(GameFiles.load(from: directory))
    }

    /// A game's definitions (none for a game without configuration).
    public func definitions(of gameId: String) -> [ChallengeDefinition] {
        games[gameId] ?? []
    }

    public func definition(_ id: String, gameId: String) -> ChallengeDefinition? {
        definitions(of: gameId).first { $0.id == id }
    }

    static func validate(_ game: GameConfiguration) throws {
        let boards = Set(game.leaderboards.map(\.id))
        var seen = Set<String>()
        for definition in game.challenges ?? [] {
            try validate(definition, boards: boards, place: "challenge '\(definition.id)' of game \(game.gameId)")
            guard seen.insert(definition.id).inserted else {
                throw ConfigurationProblem("challenge '\(definition.id)' of game \(game.gameId) is defined twice")
            }
        }
    }

    /// The rules of one definition; `boards` are the leaderboards it may be played on.
    static func validate(_ definition: ChallengeDefinition, boards: Set<String>, place: String) throws {
        guard (1...100).contains(definition.id.count), definition.id.allSatisfy({ $0.isLetter || $0.isNumber || "._-".contains($0) })
        else { throw ConfigurationProblem("\(place): the id must be 1-100 characters, reverse-DNS style") }
        guard (1...100).contains(definition.title.count), !Self.hasControl(definition.title) else {
            throw ConfigurationProblem("\(place): the title must be 1-100 characters without control characters")
        }
        guard (1...1000).contains(definition.details.count), !Self.hasControl(definition.details, newlines: true) else {
            throw ConfigurationProblem("\(place): the details must be 1-1000 characters without control characters")
        }
        if let image = definition.image {
            guard image.count <= 2048, image.hasPrefix("https://") || image.hasPrefix("http://") else {
                throw ConfigurationProblem("\(place): the image must be an http(s) URL of at most 2048 characters")
            }
        }
        guard boards.contains(definition.leaderboardId) else {
            throw ConfigurationProblem("\(place): the game has no leaderboard '\(definition.leaderboardId)'")
        }
        guard (1...maximumDurations).contains(definition.durations.count), Set(definition.durations).count == definition.durations.count,
            definition.durations.allSatisfy({ durations.contains($0) })
        else {
            throw ConfigurationProblem(
                "\(place): durations are 1-\(maximumDurations) different values, each 1 minute to 30 days (60000-2592000000 ms)")
        }
        switch definition.attempts {
        case .limited(1), .limited(3), .unlimited: break
        case .limited(let other): throw ConfigurationProblem("\(place): attempts is 1, 3 or \"unlimited\" (it is \(other))")
        }
    }

    private static func hasControl(_ text: String, newlines: Bool = false) -> Bool {
        text.unicodeScalars.contains { $0.properties.generalCategory == .control && !(newlines && $0 == "\n") }
    }
}
