import ArgumentParser

/// `--session-file`: where the logged-in player's session is kept.
struct SessionFileOptions: ParsableArguments {
    @Option(
        name: .customLong("session-file"),
        help: "The session file (default: $PODIUM_SESSION_FILE or ~/.podium/session.json).")
    var path: String?

    var file: SessionFile { SessionFile(path: path ?? SessionFile.defaultPath()) }

    func validate() throws {
        if let path, path.isEmpty { throw ValidationError("--session-file must not be empty") }
    }
}
