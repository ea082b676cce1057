import ArgumentParser
import PodiumMessages

/// `podium challenges`: a player's challenges and challenge inbox in one game.
struct ChallengesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "challenges",
        abstract: "Issue, start, decline and list challenges, and read the challenge inbox, in one game.",
        discussion: """
            With the stored session (or --token) these are the logged-in player's challenges. \
            With --server-key or --admin-key name the player with --player. Receivers are player ids; \
            unless the game is open to everyone (PODIUM_CHALLENGE_OPEN_GAMES) they must be friends.
            """,
        subcommands: [
            ChallengeIssueCommand.self, ChallengeStartCommand.self, ChallengeRematchCommand.self,
            ChallengeDeclineCommand.self,
            ChallengeReceivedCommand.self, ChallengeIssuedCommand.self, ChallengeShowCommand.self,
            ChallengeCandidatesCommand.self,
            ChallengeInboxCommand.self, ChallengeReadCommand.self, ChallengeInviteCommand.self,
            ChallengeJoinCommand.self,
            ChallengeDefinitionsCommand.self, ChallengeStandingsCommand.self,
        ])
}

/// The options every challenges subcommand shares.
typealias ChallengesOptions = GameCommandOptions

extension GameCommandOptions {
    /// Sends a request whose reply is one challenge and prints it.
    func showChallenge<Payload>(_ definition: RequestDefinition<Payload, ChallengeDetail>, _ payload: Payload) throws {
        let (challenge, _) = try send(definition, payload)
        if json { return }
        emit(ChallengeText.table(challenge))
    }
}

/// Minutes given on the command line, as the protocol's milliseconds.
enum ChallengeMinutes {
    static func milliseconds(_ minutes: Int64, flag: String) throws -> Int64 {
        let (product, overflow) = minutes.multipliedReportingOverflow(by: 60_000)
        guard !overflow else { throw ValidationError("\(flag) is far too large") }
        return product
    }
}
