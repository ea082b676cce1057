import ArgumentParser
import Foundation
import PodiumClient
import PodiumMessages

/// `podium admin define-board` and `define-achievement`: add or change a definition from a JSON
/// file (the same shape as in a game file, docs/GAME-CONFIG.md).
struct AdminDefineBoardCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "define-board",
        abstract: "Add or change a leaderboard from a JSON file (leaderboard.admin.define).",
        discussion: "A board that has scores cannot change its sort order or periods (conflict).")

    @OptionGroup var options: AdminOptions

    @Option(name: .customLong("game"), help: "The game id.")
    var gameId: String

    @Argument(help: "A JSON file with one leaderboard definition.")
    var file: String

    func run() throws {
        let definition = try AdminDefinitionFile.read(file)
        let reply = try options.send(
            LeaderboardRequests.define.withPayload(DefinitionFile.self), definition, gameId: gameId)
        if options.json { return }
        emit("defined board \(reply.definition.id) in game \(gameId)")
    }
}

struct AdminDefineAchievementCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "define-achievement",
        abstract: "Add or change an achievement from a JSON file (achievement.admin.define).")

    @OptionGroup var options: AdminOptions

    @Option(name: .customLong("game"), help: "The game id.")
    var gameId: String

    @Argument(help: "A JSON file with one achievement definition.")
    var file: String

    func run() throws {
        let definition = try AdminDefinitionFile.read(file)
        _ = try options.send(AchievementRequests.define.withPayload(DefinitionFile.self), definition, gameId: gameId)
        if options.json { return }
        emit("defined achievement \(definition.definition["id"]?.stringValue ?? "?") in game \(gameId)")
    }
}

enum AdminDefinitionFile {
    static func read(_ path: String) throws -> DefinitionFile {
        guard let data = FileManager.default.contents(atPath: path) else { throw CommandFailure("cannot read \(path)") }
        guard let value = try? JSONParser.parse(data), case .object = value else {
            throw CommandFailure("\(path) is not a JSON object")
        }
        return DefinitionFile(definition: value)
    }
}

/// The payload of the `*.admin.define` requests with the definition as the file has it: the
/// service checks it and names a bad field (`payload.definition.sortOrder`), which a definition
/// decoded here first could not.
struct DefinitionFile: Codable, Sendable {
    var definition: JSONValue
}

/// `podium admin challenges`: a game's challenges, newest first.
struct AdminChallengesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "challenges", abstract: "List a game's challenges, newest first (challenge.admin.list).")

    @OptionGroup var options: AdminOptions

    @Option(name: .customLong("game"), help: "The game id.")
    var gameId: String

    @Flag(help: "Only open ones: running time-boxed challenges and those with a receiver still pending.")
    var open = false

    @Option(help: "How many, 1-200.")
    var limit: Int = 50

    func run() throws {
        let reply = try options.send(
            ChallengeRequests.list, ChallengeListing(openOnly: open, limit: limit), gameId: gameId)
        if options.json { return }
        let list = reply.challenges
        guard !list.isEmpty else { return emit("no challenges") }
        var table = TextTable([.left, .left, .left, .left, .left, .left])
        table.append(["id", "created", "kind", "issuer", "state", "ends"])
        for challenge in list {
            table.append([
                challenge.challengeId, Timestamp.text(challenge.createdAt), challenge.kind.rawValue, challenge.issuerId,
                challenge.state?.rawValue ?? challenge.receivers.map(\.state.rawValue).joined(separator: ","),
                (challenge.endsAt ?? challenge.expiresAt).map(Timestamp.text) ?? "-",
            ])
        }
        emit(table.text)
    }
}
