import ArgumentParser
import PodiumMessages

/// `podium challenges issue`: challenge players to beat the player's score or earn an achievement.
struct ChallengeIssueCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "issue",
        abstract: "Challenge players to beat your score on a board or to earn an achievement (challenge.issue).",
        discussion: """
            --board B challenges them to beat your current score on B (you need one); --achievement A \
            to earn A (you need to have earned it). --to takes 1-20 player ids; --message at most 280 \
            characters. With --expires-in-minutes the challenge becomes invalid for those who have not \
            completed it by then. Prints the challenge.
            """)

    @OptionGroup var options: ChallengesOptions

    @Option(name: .customLong("board"), help: "The board whose score to beat.")
    var boardId: String?

    @Option(name: .customLong("achievement"), help: "The achievement to earn.")
    var achievementId: String?

    @Option(name: .customLong("to"), parsing: .upToNextOption, help: "The receivers' player ids.")
    var receivers: [String] = []

    @Option(help: "A message for the receivers.")
    var message: String?

    @Option(name: .customLong("expires-in-minutes"), help: "Minutes until the challenge expires (up to 30 days).")
    var expiresInMinutes: Int64?

    func validate() throws {
        switch (boardId, achievementId) {
        case (nil, nil): throw ValidationError("give --board or --achievement")
        case (.some, .some): throw ValidationError("give either --board or --achievement, not both")
        default: break
        }
        guard !receivers.isEmpty else { throw ValidationError("give the receivers with --to") }
    }

    func run() throws {
        let issue = ChallengeIssue(
            kind: boardId != nil ? .score : .achievement, boardId: boardId, achievementId: achievementId,
            receivers: receivers,
            message: message,
            expiresInMilliseconds: try expiresInMinutes.map {
                try ChallengeMinutes.milliseconds($0, flag: "--expires-in-minutes")
            })
        try options.showChallenge(ChallengeRequests.issue, issue)
    }
}

/// `podium challenges start`: a time-boxed challenge on a board.
struct ChallengeStartCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "start",
        abstract:
            "Start a time-boxed challenge: the best score on a board in the next N minutes wins (challenge.start).",
        discussion: """
            --minutes is 1 minute to 30 days. Everyone taking part (you and the --to players) hears the \
            standings when it ends. Prints the challenge.
            """)

    @OptionGroup var options: ChallengesOptions

    @Option(name: .customLong("board"), help: "The board to play (not needed with --definition).")
    var boardId: String?

    @Option(
        name: .customLong("definition"),
        help: "A challenge the game defines (podium challenges definitions): its board, lengths and attempts.")
    var definitionId: String?

    @Option(help: "How long the challenge runs, in minutes.")
    var minutes: Int64

    @Option(name: .customLong("to"), parsing: .upToNextOption, help: "The other participants' player ids.")
    var receivers: [String] = []

    @Option(help: "A message for the participants.")
    var message: String?

    func validate() throws {
        guard !receivers.isEmpty else { throw ValidationError("give the other participants with --to") }
        guard boardId != nil || definitionId != nil else { throw ValidationError("give --board or --definition") }
    }

    func run() throws {
        let start = TimedChallengeStart(
            boardId: boardId, definitionId: definitionId,
            durationMilliseconds: try ChallengeMinutes.milliseconds(minutes, flag: "--minutes"), receivers: receivers,
            message: message)
        try options.showChallenge(ChallengeRequests.start, start)
    }
}

/// `podium challenges rematch <challengeId>`.
struct ChallengeRematchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rematch",
        abstract:
            "Start an ended time-boxed challenge again with the same players, board and length (challenge.rematch).")

    @OptionGroup var options: ChallengesOptions

    @Argument(help: "The ended time-boxed challenge.")
    var challengeId: String

    func run() throws {
        try options.showChallenge(ChallengeRequests.rematch, ChallengeTarget(challengeId: challengeId))
    }
}

/// `podium challenges decline <challengeId>`.
struct ChallengeDeclineCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "decline",
        abstract: "Decline a pending score or achievement challenge you received (challenge.decline).")

    @OptionGroup var options: ChallengesOptions

    @Argument(help: "The challenge.")
    var challengeId: String

    func run() throws {
        try options.showChallenge(ChallengeRequests.decline, ChallengeTarget(challengeId: challengeId))
    }
}

/// `podium challenges invite <challengeId>`: a code that lets others join your time-boxed challenge.
struct ChallengeInviteCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "invite",
        abstract: "Make a code that lets others join a running time-boxed challenge (challenge.invite).")

    @OptionGroup var options: ChallengesOptions

    @Argument(help: "The challenge (one you take part in, still running).")
    var challengeId: String

    @Option(help: "How long the code works, in minutes (1-43200, default 1440).")
    var minutes: Int64?

    func validate() throws {
        if let minutes, !(1...43_200).contains(minutes) {
            throw ValidationError("--minutes must be between 1 and 43200 (30 days)")
        }
    }

    func run() throws {
        let request = ChallengeInviteRequest(
            challengeId: challengeId, expiresInMilliseconds: minutes.map { $0 * 60_000 })
        let (invite, _) = try options.send(ChallengeRequests.invite, request)
        if options.json { return }
        emit("\(invite.code)  (works until \(Timestamp.text(invite.expiresAt)))")
    }
}

/// `podium challenges join CODE`.
struct ChallengeJoinCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "join", abstract: "Join a time-boxed challenge with a code someone shared (challenge.join).")

    @OptionGroup var options: ChallengesOptions

    @Argument(help: "The code (XXXXX-XXXXX; case and hyphen do not matter).")
    var code: String

    func run() throws {
        try options.showChallenge(ChallengeRequests.join, InviteEntry(code: code))
    }
}
