import ArgumentParser
import Foundation
import PodiumClient
import PodiumMessages

/// `podium admin define-challenge` and `remove-challenge`: an operator's challenge definitions
/// (the same shape as in a game file's `challenges`, docs/GAME-CONFIG.md).
struct AdminDefineChallengeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "define-challenge",
        abstract: "Add or change a challenge definition from a JSON file (challenge.admin.define).",
        discussion: "Challenges already started keep the board, attempts and duration they started with.")

    @OptionGroup var options: AdminOptions

    @Option(name: .customLong("game"), help: "The game id.")
    var gameId: String

    @Argument(help: "A JSON file with one challenge definition.")
    var file: String

    func run() throws {
        let definition = try AdminDefinitionFile.read(file)
        let reply = try options.send(
            ChallengeRequests.define.withPayload(DefinitionFile.self), definition, gameId: gameId)
        if options.json { return }
        emit("defined challenge \(reply.definition.id) in game \(gameId)")
    }
}

struct AdminRemoveChallengeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "remove-challenge",
        abstract: "Remove a challenge definition (challenge.admin.remove).",
        discussion: "Running challenges of it run to their end; a game file's definition stays removed.")

    @OptionGroup var options: AdminOptions

    @Option(name: .customLong("game"), help: "The game id.")
    var gameId: String

    @Argument(help: "The definition's id.")
    var definitionId: String

    func run() throws {
        _ = try options.send(
            ChallengeRequests.remove, ChallengeDefinitionTarget(definitionId: definitionId), gameId: gameId)
        if options.json { return }
        emit("removed challenge definition \(definitionId) from game \(gameId)")
    }
}
