import ArgumentParser
import PodiumMessages

/// `podium register`: creates an account with a username and password and logs in.
struct RegisterCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "register",
        abstract: "Create an account and keep its session for the other commands.",
        discussion: """
            The session (never the password) is saved in the session file with mode 0600; publish, \
            subscribe, request, friends, achievements and whoami then send it automatically.
            """)

    @OptionGroup var gateway: GatewayOptions
    @OptionGroup var session: SessionFileOptions
    @OptionGroup var passwordOptions: PasswordOptions

    @Option(help: "The username to log in with.")
    var username: String

    @Option(name: .customLong("display-name"), help: "The name other players see (default: the username).")
    var displayName: String?

    func run() throws {
        let registration = Registration(
            username: username, password: try passwordOptions.read(confirm: true), displayName: displayName)
        let grant = try SessionStart.request(
            AuthRequests.register, payload: registration, gateway: gateway, file: session.file)
        emit("registered: " + grant.summary(savedIn: session.file.path))
    }
}
