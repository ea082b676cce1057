import Foundation
import PodiumMessages

/// The games' configuration files: every `*.json` in a directory (docs/GAME-CONFIG.md).
public enum GameFiles {
    /// `PODIUM_GAMES_DIR`, default `./games`.
    public static func configuredDirectory() -> URL {
        URL(fileURLWithPath: RuntimeSettings.environmentReader().string(forKey: "podium.games.dir", default: "./games"))
    }

    /// Games by id, each validated; a game configured twice is refused.
    public static func index(_ games: [GameConfiguration], validate: (GameConfiguration) throws -> Void) throws
        -> [String: GameConfiguration]
    {
        var byID: [String: GameConfiguration] = [:]
        for game in games {
            try validate(game)
            guard byID[game.gameId] == nil else {
                throw ConfigurationProblem("game \(game.gameId) is configured twice")
            }
            byID[game.gameId] = game
        }
        return byID
    }

    /// Parses every file, in name order; a missing directory means no games.
    public static func load(from directory: URL) throws -> [GameConfiguration] {
        let files = (try? FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: nil)) ?? []
        return try files.filter { $0.pathExtension == "json" }.sorted { $0.path < $1.path }.map { file in
            guard let data = FileManager.default.contents(atPath: file.path) else {
                throw ConfigurationProblem("cannot read game configuration \(file.path)")
            }
            do {
                return try WireCodec.decode(GameConfiguration.self, from: data)
            } catch {
                throw ConfigurationProblem("game configuration \(file.lastPathComponent) is not valid: \(error)")
            }
        }
    }
}
