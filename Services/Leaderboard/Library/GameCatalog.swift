import Foundation
import PodiumMessages
import PodiumRuntime

/// The games this server knows and their leaderboards, from one JSON file per game.
public struct GameCatalog: Sendable {
    public private(set) var games: [String: GameConfiguration]

    public init(_ games: [GameConfiguration]) throws {
        self.games = try GameFiles.index(games, validate: Self.validate)
    }

    /// Reads every `*.json` file in `directory` (a missing directory means no games).
    public init(directory: URL) throws {
        try self.init(GameFiles.load(from: directory))
    }

    /// The board, or `unknown_game` / `unknown_board`.
    public func board(gameId: String?, boardId: String) throws(ErrorReply) -> LeaderboardDefinition {
        guard let gameId, let game = games[gameId] else {
            throw ErrorReply(code: .unknownGame, message: "this server has no game '\(gameId ?? "")'", field: "gameId")
        }
        guard let board = game.leaderboards.first(where: { $0.id == boardId }) else {
            throw ErrorReply(
                code: .unknownBoard, message: "game '\(gameId)' has no leaderboard '\(boardId)'",
                field: "payload.boardId")
        }
        return board
    }

    static func validate(_ game: GameConfiguration) throws {
        guard Identifiers.isValidID(game.gameId) else {
            throw ConfigurationProblem("game id '\(game.gameId)' is not valid")
        }
        var seen = Set<String>()
        for board in game.leaderboards {
            guard !board.id.isEmpty, board.id.count <= 100,
                board.id.allSatisfy({ $0.isLetter || $0.isNumber || "._-".contains($0) })
            else {
                throw ConfigurationProblem(
                    "leaderboard id '\(board.id)' of game \(game.gameId) must be 1-100 characters, reverse-DNS style")
            }
            guard seen.insert(board.id).inserted else {
                throw ConfigurationProblem("leaderboard '\(board.id)' of game \(game.gameId) is defined twice")
            }
            if let minimum = board.minimum, let maximum = board.maximum, minimum > maximum {
                throw ConfigurationProblem("leaderboard '\(board.id)' of game \(game.gameId) has minimum > maximum")
            }
            if let recurrence = board.recurrence, recurrence.durationMilliseconds < 60_000 {
                throw ConfigurationProblem(
                    "recurring leaderboard '\(board.id)' of game \(game.gameId) needs periods of at least a minute")
            }
            guard !board.title.isEmpty, board.title.count <= 200 else {
                throw ConfigurationProblem(
                    "leaderboard '\(board.id)' of game \(game.gameId) needs a title of 1-200 characters")
            }
        }
        for set in game.leaderboardSets ?? [] {
            for id in set.leaderboardIds where !seen.contains(id) {
                throw ConfigurationProblem(
                    "leaderboard set '\(set.id)' of game \(game.gameId) names unknown leaderboard '\(id)'")
            }
        }
    }

    /// Adds or replaces one board (an operator's change); validates the game as a whole.
    mutating func define(_ board: LeaderboardDefinition, gameId: String) throws {
        var game = games[gameId] ?? GameConfiguration(gameId: gameId, leaderboards: [])
        game.leaderboards.removeAll { $0.id == board.id }
        game.leaderboards.append(board)
        try Self.validate(game)
        games[gameId] = game
    }

    /// Removes one board (and it from any set).
    mutating func remove(boardId: String, gameId: String) {
        guard var game = games[gameId] else { return }
        game.leaderboards.removeAll { $0.id == boardId }
        game.leaderboardSets = game.leaderboardSets?.map { set in
            var set = set
            set.leaderboardIds.removeAll { $0 == boardId }
            return set
        }
        games[gameId] = game
    }
}
