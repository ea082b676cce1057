import ArgumentParser
import PodiumMessages

/// `podium login`: logs in with a username and password, or as a device's anonymous player.
struct LoginCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "login",
        abstract: "Log in and keep the session for the other commands.",
        discussion: """
            With --username, logs in with a password (from --password-stdin, --password or a prompt). \
            With --device, logs in as that device's anonymous player, creating the account the first time. \
            The session replaces the one in the session file (mode 0600).
            """)

    @OptionGroup var gateway: GatewayOptions
    @OptionGroup var session: SessionFileOptions
    @OptionGroup var passwordOptions: PasswordOptions

    @Option(help: "The account's username.")
    var username: String?

    @Option(
        name: .customLong("device"),
        help: ArgumentHelp("A device id (8-128 printable characters) to log in anonymously.", valueName: "device-id"))
    var deviceId: String?

    @Option(name: .customLong("display-name"), help: "With --device: the name of a new account.")
    var displayName: String?

    func validate() throws {
        switch (username, deviceId) {
        case (nil, nil): throw ValidationError("give --username (password login) or --device (device login)")
        case (.some, .some): throw ValidationError("give either --username or --device, not both")
        default: break
        }
        if deviceId != nil && (passwordOptions.password != nil || passwordOptions.fromStandardInput) {
            throw ValidationError("a device login takes no password")
        }
        if username != nil && displayName != nil {
            throw ValidationError(
                "--display-name is for a new device account; use podium request --type auth.display-name to rename")
        }
    }

    func run() throws {
        let grant: SessionGrant
        if let deviceId {
            grant = try SessionStart.request(
                AuthRequests.deviceLogin, payload: DeviceLogin(deviceId: deviceId, displayName: displayName),
                gateway: gateway, file: session.file)
        } else if let username {
            let login = PasswordLogin(username: username, password: try passwordOptions.read(confirm: false))
            grant = try SessionStart.request(AuthRequests.login, payload: login, gateway: gateway, file: session.file)
        } else {
            throw CommandFailure("give --username (password login) or --device (device login)")
        }
        emit((grant.created ? "created and logged in: " : "logged in: ") + grant.summary(savedIn: session.file.path))
    }
}
