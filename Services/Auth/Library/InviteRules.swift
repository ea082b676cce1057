import PodiumMessages

/// The rules of invite codes (docs/PROTOCOL.md 9.5): lifetimes, the states a code can be in, and
/// how guessing is slowed.
enum InviteRules {
    static let defaultLifetime: Int64 = 86_400_000
    static let lifetimes: ClosedRange<Int64> = 60_000...(30 * 86_400_000)
    /// Codes a player may hold that still work.
    static let maximumLive = 50

    static func lifetime(_ requested: Int64?) throws(ErrorReply) -> Int64 {
        let lifetime = requested ?? defaultLifetime
        guard lifetimes.contains(lifetime) else {
            throw ErrorReply(
                code: .invalidField, message: "expiresInMilliseconds must be 1 minute to 30 days (60000-2592000000)",
                field: "payload.expiresInMilliseconds")
        }
        return lifetime
    }

    /// The code as entered, or `unknown_invite` when it cannot be a code.
    static func entered(_ text: String) throws(ErrorReply) -> InviteCode {
        guard let code = InviteCode(entered: text) else {
            throw ErrorReply(
                code: .unknownInvite, message: "that is not an invite code (ten letters and digits, XXXXX-XXXXX)",
                field: "payload.code")
        }
        return code
    }

    /// Refuses a code that no longer works: revoked before expired, since the owner's act is what
    /// the player should hear of.
    static func check(_ invite: Invite, now: Int64) throws(ErrorReply) {
        if invite.revokedAt != nil {
            throw ErrorReply(
                code: .inviteRevoked, message: "this invite code was revoked by whoever shared it",
                field: "payload.code")
        }
        if invite.expiresAt <= now {
            throw ErrorReply(
                code: .inviteExpired, message: "this invite code has expired; ask for a new one", field: "payload.code")
        }
    }
}

/// Counts wrong codes per player and per address, so that guessing stays hopeless: with 30^10
/// codes, a million live codes and the default 10 wrong codes per player (100 per address) in 15
/// minutes, one account finds a live code with a chance of about 1.6 in a million per day.
struct InviteGuessing: Sendable {
    var players = LoginThrottle(limit: 10, windowMilliseconds: 900_000)
    var addresses = LoginThrottle(limit: 100, windowMilliseconds: 900_000)

    /// How long the player (or their address) must wait before entering another code.
    mutating func retryAfter(player: String, address: String, now: Int64) -> Int64? {
        [players.retryAfter(player, now: now), addresses.retryAfter(address, now: now)].compactMap { $0 }.max()
    }

    mutating func recordWrong(player: String, address: String, now: Int64) {
        players.recordFailure(player, now: now)
        addresses.recordFailure(address, now: now)
    }

    /// The counts as the shared marks (``ThrottleLedger``) make them.
    init(marks: [ThrottleMark]) {
        for mark in marks.sorted(by: { $0.at < $1.at }) {
            switch mark.kind {
            case .invitePlayer: players.recordFailure(mark.account, now: mark.at)
            case .inviteAddress: addresses.recordFailure(mark.address, now: mark.at)
            default: continue
            }
        }
    }

    init() {}

    /// The marks one wrong code adds to the shared table.
    static func wrongMarks(player: String, address: String, now: Int64) -> [ThrottleMark] {
        [
            ThrottleMark(.invitePlayer, account: player, at: now),
            ThrottleMark(.inviteAddress, address: address, at: now),
        ]
    }

    /// How far back the counts look.
    var windowMilliseconds: Int64 { max(players.windowMilliseconds, addresses.windowMilliseconds) }
}
