import ArgumentParser

/// `podium-data`: moves a deployment's data between storage backends (docs/POSTGRESQL.md,
/// "Moving from SQLite to PostgreSQL"). It works on the stores themselves, not through the
/// gateway, so it runs where the data is (beside the services, in their image) and carries every
/// service's storage code; the game-facing `podium` client carries none of it.
@main
struct PodiumDataCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "podium-data",
        abstract: "Move a Podium deployment's data: export its SQLite stores to a dump, import a dump into PostgreSQL.",
        subcommands: [ExportCommand.self, ImportCommand.self])
}

/// A failure the command reports in one sentence on standard error (`Error: …`), exiting 1.
struct CommandFailure: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) { self.description = description }
}
