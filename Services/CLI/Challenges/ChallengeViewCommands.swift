import ArgumentParser
import PodiumClient
import PodiumMessages

/// A receiver state `podium challenges received --state` filters on.
enum ReceiverStateFilter: String, ExpressibleByArgument, CaseIterable {
    case pending, completed, declined, invalid
}

/// `podium challenges received`.
struct ChallengeReceivedCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "received",
        abstract: "List the challenges you received, newest first (challenge.received).",
        discussion: "At most 200. --state keeps those in which your own state is the one given.")

    @OptionGroup var options: ChallengesOptions

    @Option(help: "Only challenges in which your state is pending, completed, declined or invalid.")
    var state: ReceiverStateFilter?

    func run() throws {
        let (list, _) = try options.send(ChallengeRequests.received, ChallengeFilter(state: state?.rawValue))
        if options.json { return }
        emit(
            ChallengeText.list(
                list.challenges, empty: "no challenges received" + (state.map { " in state \($0.rawValue)" } ?? "")))
    }
}

/// `podium challenges issued`.
struct ChallengeIssuedCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "issued",
        abstract: "List the challenges you issued or started, newest first (challenge.issued).",
        discussion: "At most 200.")

    @OptionGroup var options: ChallengesOptions

    func run() throws {
        let (list, _) = try options.send(ChallengeRequests.issued, ChallengeFilter())
        if options.json { return }
        emit(ChallengeText.list(list.challenges, empty: "no challenges issued"))
    }
}

/// `podium challenges show <challengeId>`.
struct ChallengeShowCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: "Show one challenge you issued or received (challenge.detail).")

    @OptionGroup var options: ChallengesOptions

    @Argument(help: "The challenge.")
    var challengeId: String

    func run() throws {
        try options.showChallenge(ChallengeRequests.detail, ChallengeTarget(challengeId: challengeId))
    }
}

/// `podium challenges candidates`.
struct ChallengeCandidatesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "candidates",
        abstract: "List the friends worth challenging (challenge.candidates).",
        discussion: """
            --achievement A: friends who have not earned A (all friends if it is repeatable). \
            --board B --score S: friends without a score on B that is as good as S or better.
            """)

    @OptionGroup var options: ChallengesOptions

    @Option(name: .customLong("achievement"), help: "The achievement.")
    var achievementId: String?

    @Option(name: .customLong("board"), help: "The board.")
    var boardId: String?

    @Option(help: "The score on --board.")
    var score: Int64?

    func validate() throws {
        switch (achievementId, boardId, score) {
        case (.some, nil, nil), (nil, .some, .some): break
        case (.some, _, _): throw ValidationError("give either --achievement or --board with --score, not both")
        default: throw ValidationError("give --achievement, or --board with --score")
        }
    }

    func run() throws {
        let query =
            achievementId.map { CandidateQuery(achievementId: $0) }
            ?? CandidateQuery(boardId: boardId ?? "", score: score ?? 0)
        let (candidates, _) = try options.send(ClientRequests.challengeCandidates, query)
        if options.json { return }
        emit(candidates.playerIds.isEmpty ? "no friends to challenge" : candidates.playerIds.joined(separator: "\n"))
    }
}

/// `podium challenges inbox`.
struct ChallengeInboxCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "inbox",
        abstract: "Show the challenge notifications kept for you, newest first (challenge.inbox).",
        discussion: "At most 200; * marks the unread ones. Mark them read with podium challenges read <inboxId>...")

    @OptionGroup var options: ChallengesOptions

    @Flag(help: "Only the unread ones.")
    var unread = false

    func run() throws {
        let (inbox, _) = try options.send(ChallengeRequests.inbox, InboxQuery(unreadOnly: unread ? true : nil))
        if options.json { return }
        emit(ChallengeText.inbox(inbox.items, unreadOnly: unread))
    }
}

/// `podium challenges read <inboxId>...`.
struct ChallengeReadCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "read",
        abstract: "Mark challenge inbox items read (challenge.inbox.read).",
        discussion: "Up to 200 ids. Ids that are not yours, unknown or already read are not counted.")

    @OptionGroup var options: ChallengesOptions

    @Argument(help: "The inbox item ids (from podium challenges inbox).")
    var ids: [String]

    func run() throws {
        let (marked, _) = try options.send(ChallengeRequests.inboxRead, InboxMarkRead(ids: ids))
        if options.json { return }
        emit("marked \(marked.marked) of \(ids.count) as read")
    }
}

/// `podium challenges definitions`: the challenges the game defines.
struct ChallengeDefinitionsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "definitions", abstract: "List the challenges the game defines (challenge.definitions).",
        discussion: "Start one with podium challenges start --definition ID --minutes M --to PLAYER...")

    @OptionGroup var options: ChallengesOptions

    func run() throws {
        let (list, _) = try options.send(ChallengeRequests.definitions)
        if options.json { return }
        guard !list.definitions.isEmpty else { return emit("the game defines no challenges") }
        emit(
            TextColumns.render(
                header: ["ID", "TITLE", "BOARD", "MINUTES", "ATTEMPTS", "REPEATABLE"],
                rows: list.definitions.map { definition in
                    [
                        definition.id, definition.title, definition.leaderboardId,
                        definition.durations.map { String($0 / 60_000) }.joined(separator: "/"),
                        definition.attempts.limit.map(String.init) ?? "unlimited", definition.repeatable ? "yes" : "no",
                    ]
                }))
    }
}

/// `podium challenges standings <challengeId>`: the live order of a time-boxed challenge.
struct ChallengeStandingsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "standings",
        abstract: "Show the live order of a time-boxed challenge you take part in (challenge.standings).")

    @OptionGroup var options: ChallengesOptions

    @Argument(help: "The challenge.")
    var challengeId: String

    func run() throws {
        let (reply, _) = try options.send(ChallengeRequests.standings, ChallengeTarget(challengeId: challengeId))
        if options.json { return }
        var text =
            "\(reply.challengeId): \(reply.state.rawValue)"
            + (reply.endsAt.map { ", ends \(Timestamp.text($0))" } ?? "")
        if reply.standings.isEmpty {
            text += "\nnobody has scored yet"
        } else {
            text +=
                "\n"
                + TextColumns.render(
                    header: ["RANK", "PLAYER", "VALUE", "RUNS"],
                    rows: reply.standings.map {
                        ["\($0.rank)", $0.playerId, "\($0.value)", $0.attempts.map(String.init) ?? "-"]
                    })
        }
        emit(text)
    }
}
