import ArgumentParser
import PodiumMessages

/// `podium refresh`: trades the stored refresh token for new tokens now (`auth.refresh`).
struct RefreshCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "refresh",
        abstract: "Renew the stored session now (auth.refresh) and save the new tokens.",
        discussion: "Other commands do this themselves when the session token has expired.")

    @OptionGroup var gateway: GatewayOptions
    @OptionGroup var session: SessionFileOptions

    func run() throws {
        let file = session.file
        guard let grant = try file.load() else {
            throw CommandFailure("not logged in: there is no session file \(file.path)")
        }
        let connection = try GatewayConnection(gateway)
        let renewed = try SessionRenewal(file: file, connection: connection, gateway: gateway).renew(grant)
        emit("refreshed: " + renewed.summary(savedIn: file.path))
    }
}
