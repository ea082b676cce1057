import Foundation
import PodiumMessages
import PodiumRuntime

/// The challenges studios define, from the games' configuration files (docs/GAME-CONFIG.md,
/// "Challenges"), validated as a whole: a file whose definitions break a rule stops the service
/// with a message that names the game, the challenge and the rule. Operators' changes
/// (`challenge.admin.define|remove`) go on top, checked by the same rules.
public struct ChallengeCatalog: Sendable {
    /// Definitions by game, then by id, in file order (operators' additions after).
    public private(set) var games: [String: [ChallengeDefinition]]
    /// The events each game's file declares (games that declare none are absent): a run event
    /// must be one of them.
    private var declaredEvents: [String: [EventDeclaration]] = [:]

    public static let maximumDurations = 10
    public static let durations: ClosedRange<Int64> = 60_000...(30 * 86_400_000)

    /// No games, no definitions.
    public static let empty = ChallengeCatalog(games: [:])

    private init(games: [String: [ChallengeDefinition]]) { self.games = games }

    public init(_ games: [GameConfiguration]) throws {
        var byGame: [String: [ChallengeDefinition]] = [:]
        var events: [String: [EventDeclaration]] = [:]
        for game in try GameFiles.index(games, validate: Self.validate).values {
            byGame[game.gameId] = game.challenges ?? []
            events[game.gameId] = game.events
        }
        self.games = byGame
        declaredEvents = events
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

    /// The game's definitions whose runs include events named `eventName`.
    public func definitions(runEvent eventName: String, gameId: String) -> [ChallengeDefinition] {
        definitions(of: gameId).filter { $0.runEvent?.name == eventName }
    }

    // MARK: Operators' changes

    /// Checks a definition an operator sends for `gameId`, whose leaderboards are `boards`
    /// (asked of the leaderboard service: operators' boards count).
    public func check(_ definition: ChallengeDefinition, gameId: String, boards: Set<String>) throws {
        try Self.validate(
            definition, boards: boards, events: declaredEvents[gameId],
            place: "challenge '\(definition.id)' of game \(gameId)")
    }

    /// Adds a definition, or replaces the one with its id (in its place).
    public mutating func define(_ definition: ChallengeDefinition, gameId: String) {
        var list = games[gameId] ?? []
        if let index = list.firstIndex(where: { $0.id == definition.id }) {
            list[index] = definition
        } else {
            list.append(definition)
        }
        games[gameId] = list
    }

    /// Removes a definition; false when the game has none with that id.
    @discardableResult
    public mutating func remove(_ definitionId: String, gameId: String) -> Bool {
        guard let index = games[gameId]?.firstIndex(where: { $0.id == definitionId }) else { return false }
        games[gameId]?.remove(at: index)
        return true
    }

    /// Applies the changes operators made before (kept by the store), in order.
    public mutating func apply(_ changes: [OperatorDefinition]) {
        for change in changes {
            if let definition = change.definition {
                define(definition, gameId: change.gameId)
            } else {
                remove(change.definitionId, gameId: change.gameId)
            }
        }
    }

    static func validate(_ game: GameConfiguration) throws {
        let boards = Set(game.leaderboards.map(\.id))
        var seen = Set<String>()
        for definition in game.challenges ?? [] {
            try validate(
                definition, boards: boards, events: game.events,
                place: "challenge '\(definition.id)' of game \(game.gameId)")
            guard seen.insert(definition.id).inserted else {
                throw ConfigurationProblem("challenge '\(definition.id)' of game \(game.gameId) is defined twice")
            }
        }
    }

    /// The rules of one definition; `boards` are the leaderboards it may be played on, `events`
    /// the events the game declares (nil: it declares none, so any valid name may be a run).
    static func validate(
        _ definition: ChallengeDefinition, boards: Set<String>, events: [EventDeclaration]?, place: String
    ) throws {
        guard (1...100).contains(definition.id.count),
            definition.id.allSatisfy({ $0.isLetter || $0.isNumber || "._-".contains($0) })
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
        guard (1...maximumDurations).contains(definition.durations.count),
            Set(definition.durations).count == definition.durations.count,
            definition.durations.allSatisfy({ durations.contains($0) })
        else {
            throw ConfigurationProblem(
                "\(place): durations are 1-\(maximumDurations) different values, each 1 minute to 30 days (60000-2592000000 ms)"
            )
        }
        switch definition.attempts {
        case .limited(1), .limited(3), .unlimited: break
        case .limited(let other):
            throw ConfigurationProblem("\(place): attempts is 1, 3 or \"unlimited\" (it is \(other))")
        }
        if let run = definition.runEvent { try validate(run, events: events, place: place) }
    }

    /// A run event names a valid event (one the game declares, if it declares any) and, to
    /// measure, an attribute of 1-64 bytes (one the event declares, if it declares any).
    static func validate(_ run: ChallengeDefinition.RunEvent, events: [EventDeclaration]?, place: String) throws {
        guard Identifiers.isValidEventName(run.name) else {
            throw ConfigurationProblem(
                "\(place): runEvent.name must be 1-64 characters of a-z, 0-9, '.', '_' or '-', starting with a letter")
        }
        let declared = events?.first { $0.name == run.name }
        if let events, declared == nil {
            throw ConfigurationProblem(
                "\(place): runEvent.name '\(run.name)' is not one of the game's events (\(events.map(\.name).joined(separator: ", ")))"
            )
        }
        if let attribute = run.measureAttribute {
            guard (1...GameEvent.maximumAttributeKeyLength).contains(attribute.utf8.count) else {
                throw ConfigurationProblem("\(place): runEvent.measureAttribute must be 1-64 bytes")
            }
            if let attributes = declared?.attributes, !attributes.contains(attribute) {
                throw ConfigurationProblem("\(place): event '\(run.name)' has no attribute '\(attribute)' to measure")
            }
        }
    }

    private static func hasControl(_ text: String, newlines: Bool = false) -> Bool {
        text.unicodeScalars.contains { $0.properties.generalCategory == .control && !(newlines && $0 == "\n") }
    }
}
