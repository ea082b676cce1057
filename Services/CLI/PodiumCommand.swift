import ArgumentParser

/// `podium`: the command-line client for the people who run and test a Podium deployment.
@main
struct PodiumCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "podium",
        abstract:
            "Talk to a Podium gateway: log in, publish events, submit scores, challenge friends, watch notifications, send requests, check health.",
        discussion: """
            register or login first: the session they keep (in $PODIUM_SESSION_FILE or ~/.podium/session.json) \
            is sent with every other command. --server-key and --admin-key replace it. \
            With a CURVE gateway, give its public key: --server-public-key or $PODIUM_SERVER_PUBLIC_KEY (podium keygen makes the keys).
            """,
        subcommands: [
            RegisterCommand.self, LoginCommand.self, LogoutCommand.self, WhoamiCommand.self, RefreshCommand.self,
            DeleteAccountCommand.self, ExportCommand.self,
            FriendsCommand.self, LeaderboardCommand.self, AchievementsCommand.self, ChallengesCommand.self,
            InboxCommand.self, PublishCommand.self, SubscribeCommand.self, RequestCommand.self,
            HealthCommand.self, KeygenCommand.self, AdminCommand.self,
        ])
}
