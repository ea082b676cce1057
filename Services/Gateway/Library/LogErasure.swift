import Logging
import PodiumMessages
import PodiumRuntime

/// The gateway's step of an account deletion (docs/PROTOCOL.md 8.14): it asks the auth service
/// for deletions whose logs are not yet pseudonymised (`auth.deletions.pending`), rewrites the
/// player's events and audit entries with the deletion's pseudonym, and then marks them done
/// (`auth.deletions.erased`). The auth service keeps each deletion pending until a gateway did
/// so, so a gateway that stops halfway (or is down when the deletion happens) finishes it when
/// it runs again; the rewriting is idempotent, so two gateways doing it at once is harmless.
struct LogErasure: Sendable {
    let router: ServiceRouter
    let eventLog: any EventLogStore
    let audit: any AuditStore
    let clock: any PodiumClock
    let logger: Logger
    /// How often the auth service is asked.
    var interval: Duration = .seconds(2)
    /// How old a deletion is before its logs are rewritten (ms).
    static let settleMilliseconds: Int64 = 3_000

    /// Erases until cancelled.
    func run() async {
        while !Task.isCancelled {
            await erasePending()
            try? await clock.sleep(for: interval)
        }
    }

    /// One round: every pending deletion the auth service names; how many were finished.
    @discardableResult
    func erasePending() async -> Int {
        let answer = await router.ask(AuthRequests.pendingErasures.type, timeout: .seconds(5))
        guard answer.type == .reply, let pending = try? answer.decodePayload(as: PendingErasures.self) else {
            return 0
        }
        var finished = 0
        // A deletion's own audit entry is written just after auth committed it: a round leaves
        // deletions younger than a few seconds for the next one, so that entry is rewritten too.
        let settled = clock.nowMilliseconds - Self.settleMilliseconds
        for erasure in pending.erasures where erasure.deletedAt <= settled {
            do {
                let events = try await eventLog.pseudonymise(playerId: erasure.playerId, as: erasure.pseudonym)
                let entries = try await audit.pseudonymise(playerId: erasure.playerId, as: erasure.pseudonym)
                let done = await router.ask(
                    AuthRequests.erasureDone.type,
                    payload: try WireCodec.jsonValue(ErasureDone(playerId: erasure.playerId)), timeout: .seconds(5))
                guard done.type == .reply else { return finished }
                finished += 1
                logger.notice(
                    "deleted player's logs pseudonymised",
                    metadata: [
                        "player.id": "\(erasure.playerId)", "events": "\(events)", "audit_entries": "\(entries)",
                    ])
            } catch {
                logger.error(
                    "deleted player's logs not pseudonymised; retrying",
                    metadata: ["player.id": "\(erasure.playerId)", "error": "\(error)"])
                return finished
            }
        }
        return finished
    }
}
