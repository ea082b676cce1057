import Foundation
import PodiumClient
import PodiumMessages

/// Trades the stored refresh token for new tokens (`auth.refresh`) and stores the new grant.
///
/// Each refresh token works once. When two commands refresh the same file at the same time,
/// the loser's refresh fails; it then finds the winner's grant in the file and uses that.
struct SessionRenewal {
    let file: SessionFile
    let connection: GatewayConnection
    let gateway: GatewayOptions

    /// A session token this close to its expiry counts as expired: it could expire on the way.
    static let marginMilliseconds: Int64 = 10_000

    /// Why a renewal failed: the server refused it (`refusal`) or could not be asked.
    struct Failure: Error, CustomStringConvertible {
        let refusal: ErrorReply?
        let description: String
    }

    /// Milliseconds since the epoch, the unit of the grant's expiry fields.
    static func now() -> Int64 { Int64((Date().timeIntervalSince1970 * 1000).rounded()) }

    /// Whether the grant's session token can still be sent.
    static func isCurrent(_ grant: SessionGrant, now: Int64 = now()) -> Bool {
        grant.sessionExpiresAt - marginMilliseconds > now
    }

    /// Whether the grant's refresh token can still be traded.
    static func canRefresh(_ grant: SessionGrant, now: Int64 = now()) -> Bool {
        grant.refreshExpiresAt - marginMilliseconds > now
    }

    /// A grant whose session token is current: `grant` itself, or a refreshed one (then stored).
    func current(_ grant: SessionGrant) throws -> SessionGrant {
        if Self.isCurrent(grant) { return grant }
        return try renew(grant)
    }

    /// Refreshes the grant now, whatever its session token's expiry, and stores the result.
    func renew(_ grant: SessionGrant) throws -> SessionGrant {
        guard Self.canRefresh(grant) else {
            throw Failure(
                refusal: nil,
                description: "the session in \(file.path) has expired (refresh token too, on "
                    + "\(Timestamp.text(grant.refreshExpiresAt))); log in again: podium login")
        }
        let reply: PodiumReply<SessionGrant>
        do {
            reply = try connection.client.exchange(
                AuthRequests.refresh, SessionRefresh(refreshToken: grant.refreshToken))
        } catch let error as PodiumClientError where error.kind == .noReply {
            throw Failure(
                refusal: nil,
                description: "could not refresh the session: no reply from \(gateway.endpoint) "
                    + "within \(gateway.timeout) s")
        }
        guard reply.isSuccess, let renewed = try? reply.value() else {
            if let winner = try? file.load(), winner.refreshToken != grant.refreshToken, Self.isCurrent(winner) {
                return winner
            }
            let failure = ReplyFailure(reply.received)
            let reason = failure.error.map { "\($0.code): \($0.message)" } ?? failure.text
            throw Failure(
                refusal: failure.error,
                description:
                    "could not refresh the session in \(file.path): \(reason)\n  hint: log in again: podium login")
        }
        try file.save(renewed)
        return renewed
    }
}
