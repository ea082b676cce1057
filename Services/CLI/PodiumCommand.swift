import ArgumentParser

/// `podium`: the command-line client for the people who run and test a Podium deployment.
@main
struct PodiumCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "podium",
        abstract: "Talk to a Podium gateway: publish events, watch notifications, send requests, check health.",
        subcommands: [PublishCommand.self, SubscribeCommand.self, RequestCommand.self, HealthCommand.self])
}
