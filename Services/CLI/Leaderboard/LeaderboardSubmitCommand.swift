import ArgumentParser
import Foundation
import PodiumMessages

/// `podium leaderboard submit <boardId> <value>`.
struct LeaderboardSubmitCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "submit",
        abstract: "Submit a score and print the entry it leaves (leaderboard.submit).",
        discussion: """
            Prints the entry's all-time rank and value, whether it improved (and from what), and the \
            scopes (today, week, allTime) in which the score beat the player's previous standing. \
            A negative value goes after --: podium leaderboard submit B --game G -- -5.
            """)

    @OptionGroup var options: LeaderboardOptions

    @Argument(help: "The board id.")
    var boardId: String

    @Argument(help: "The score, a 64-bit integer.")
    var value: Int64

    @Option(help: "A 64-bit number the game attaches (a level, a seed).")
    var context: Int64?

    @Option(help: "A JSON object of at most 1024 bytes, such as '{\"car\":\"red\"}'.")
    var metadata: String?

    @Option(name: .customLong("challenge"), help: "A defined challenge this score is a run of (counts as one attempt).")
    var challengeId: String?

    func validate() throws {
        _ = try metadataObject()
    }

    func run() throws {
        let submission = ScoreSubmission(
            boardId: boardId, value: value, context: context, metadata: try metadataObject(), challengeId: challengeId)
        let (receipt, _) = try options.send(LeaderboardRequests.submit, submission)
        if options.json { return }
        emit(LeaderboardText.receipt(receipt))
    }

    /// `--metadata` parsed: a JSON object no larger than the service takes.
    private func metadataObject() throws -> [String: JSONValue]? {
        guard let metadata else { return nil }
        guard let parsed = try? WireCodec.decode(JSONValue.self, from: Data(metadata.utf8)) else {
            throw ValidationError("--metadata is not JSON: \(metadata)")
        }
        guard let object = parsed.objectValue else {
            throw ValidationError("--metadata must be a JSON object, such as '{\"car\":\"red\"}'")
        }
        let size = try WireCodec.encode(object).count
        guard size <= LeaderboardBounds.metadataBytes else {
            throw ValidationError("--metadata is \(size) bytes of JSON; at most \(LeaderboardBounds.metadataBytes)")
        }
        return object
    }
}
