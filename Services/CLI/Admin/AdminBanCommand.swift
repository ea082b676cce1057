import ArgumentParser
import Foundation
import PodiumMessages

/// `podium admin ban`: bars a player; every session of theirs ends at once.
struct AdminBanCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ban",
        abstract: "Ban a player (auth.admin.ban): every session ends now; requests and logins get player_banned.",
        discussion: """
            Without --until or --for the ban lasts until `podium admin unban`. --until takes an ISO 8601 \
            time (2026-12-31T00:00:00Z) or Unix milliseconds; --for a duration such as 30m, 12h or 7d.
            """)

    @OptionGroup var options: AdminOptions

    @Argument(help: "The player's id.")
    var playerId: String

    @Option(help: "Why (1-500 characters); the player sees it.")
    var reason: String

    @Option(help: "When the ban ends: ISO 8601 or Unix milliseconds.")
    var until: String?

    @Option(name: .customLong("for"), help: "How long the ban lasts: <n>m, <n>h or <n>d.")
    var duration: String?

    func validate() throws {
        if until != nil && duration != nil { throw ValidationError("give --until or --for, not both") }
    }

    func run() throws {
        let request = BanRequest(
            playerId: playerId, reason: reason, until: try Self.end(until: until, duration: duration, now: Date()))
        let ban = try options.send(AuthRequests.ban, request)
        if options.json { return }
        let end = ban.until.map { "until \(Timestamp.text($0))" } ?? "until unbanned"
        emit("banned \(ban.playerId) \(end): \(ban.reason); \(ban.revokedSessions) session(s) revoked")
    }

    /// The ban's end in Unix milliseconds, from --until or --for.
    static func end(until: String?, duration: String?, now: Date) throws -> Int64? {
        if let until {
            if let milliseconds = Int64(until) { return milliseconds }
            guard let date = ISO8601DateFormatter().date(from: until) else {
                throw CommandFailure(
                    "--until must be an ISO 8601 time such as 2026-12-31T00:00:00Z, or Unix milliseconds")
            }
            return Int64(date.timeIntervalSince1970 * 1000)
        }
        guard let duration else { return nil }
        let units: [Character: Int64] = ["m": 60_000, "h": 3_600_000, "d": 86_400_000]
        guard let unit = duration.last.flatMap({ units[$0] }), let count = Int64(duration.dropLast()), count > 0 else {
            throw CommandFailure("--for must be a positive number of minutes, hours or days: 30m, 12h, 7d")
        }
        return Int64(now.timeIntervalSince1970 * 1000) + count * unit
    }
}

/// `podium admin unban`: ends a player's ban now.
struct AdminUnbanCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "unban", abstract: "Lift a player's ban (auth.admin.unban).")

    @OptionGroup var options: AdminOptions

    @Argument(help: "The player's id.")
    var playerId: String

    func run() throws {
        let receipt = try options.send(AuthRequests.unban, PlayerTarget(playerId: playerId))
        if options.json { return }
        emit(receipt.unbanned ? "unbanned \(receipt.playerId)" : "\(receipt.playerId) was not banned")
    }
}
