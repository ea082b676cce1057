import ArgumentParser
import PodiumMessages

/// `podium admin lookup`: a player's account, devices, sessions, friends and ban.
struct AdminLookupCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lookup", abstract: "Look a player up by id, username or device (auth.admin.lookup).")

    @OptionGroup var options: AdminOptions

    @Option(name: .customLong("player-id"), help: "The player's id.")
    var playerId: String?

    @Option(help: "The player's username.")
    var username: String?

    @Option(name: .customLong("device-id"), help: "A device linked to the player.")
    var deviceId: String?

    func validate() throws {
        guard [playerId, username, deviceId].compactMap({ $0 }).count == 1 else {
            throw ValidationError("give exactly one of --player-id, --username and --device-id")
        }
    }

    func run() throws {
        let record = try options.send(
            AuthRequests.lookup, PlayerLookup(playerId: playerId, username: username, deviceId: deviceId))
        if options.json { return }
        emit(Self.text(record))
    }

    static func text(_ record: PlayerRecord) -> String {
        var lines = [
            "player    \(record.playerId)",
            "name      \(record.displayName)" + (record.username.map { " (username \($0))" } ?? ""),
            "created   \(Timestamp.text(record.createdAt))",
            "friends   \(record.friends)",
            "ban       "
                + (record.ban.map { ban in
                    "since \(Timestamp.text(ban.bannedAt)), "
                        + (ban.until.map { "until \(Timestamp.text($0))" } ?? "until unbanned")
                        + ": \(ban.reason)"
                } ?? "none"),
        ]
        lines.append(record.devices.isEmpty ? "devices   none" : "devices")
        for device in record.devices { lines.append("  \(device.deviceId)  linked \(Timestamp.text(device.linkedAt))") }
        lines.append(record.sessions.isEmpty ? "sessions  none active" : "sessions")
        for session in record.sessions {
            lines.append(
                "  \(session.sessionId)  since \(Timestamp.text(session.createdAt))  until \(Timestamp.text(session.expiresAt))"
            )
        }
        return lines.joined(separator: "\n")
    }
}
