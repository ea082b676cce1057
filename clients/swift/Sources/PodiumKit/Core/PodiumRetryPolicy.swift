/// When and how often a request is sent again, always with the same idempotency key
/// (docs/PROTOCOL.md 4.2: a resend of an applied request gets the original answer).
///
/// A request is resent after ``PodiumErrorCode/timeout``, ``PodiumErrorCode/network`` and the
/// server's `service_unavailable`, `service_timeout`, `overloaded`, `storage_unavailable`,
/// `rebuilding` and `duplicate_request_id` (the first send still in flight), up to
/// ``maxAttempts`` sends in all, waiting ``backoff`` between them (or the `retryAfter` the error
/// names). The few requests the server does not deduplicate (a rematch, a challenge invite code,
/// logging in, refreshing the session) are resent only after the errors that say nothing was
/// applied. An expired session token is another matter: the session is refreshed and the request
/// sent once more, whatever this policy says.
public struct PodiumRetryPolicy: Sendable, Equatable {
    /// Sends in all, the first included; 1 turns resending off.
    public var maxAttempts: Int
    /// The waits between sends.
    public var backoff: Backoff

    public init(maxAttempts: Int = 4, backoff: Backoff = Backoff(initial: .milliseconds(250), maximum: .seconds(4))) {
        self.maxAttempts = maxAttempts
        self.backoff = backoff
    }

    /// No resending.
    public static let never = PodiumRetryPolicy(maxAttempts: 1)

    /// Errors after which the request may or may not have been applied: resent only when a
    /// resend cannot apply it twice.
    static let uncertainCodes: Set<PodiumErrorCode> = [.network, .timeout, .serviceTimeout, .duplicateRequestID]
    /// Errors that say nothing was applied.
    static let notAppliedCodes: Set<PodiumErrorCode> = [
        .serviceUnavailable, .overloaded, .storageUnavailable, .rebuilding,
    ]

    /// Whether to send again after `error` ended send number `attempt`.
    func shouldRetry(_ error: PodiumError, attempt: Int, resend: ResendSafety) -> Bool {
        guard attempt < maxAttempts else { return false }
        if Self.notAppliedCodes.contains(error.code) { return true }
        return resend == .safe && Self.uncertainCodes.contains(error.code)
    }

    /// The wait before the next send: the error's `retryAfter` when it names one, else the backoff.
    func delay(afterAttempt attempt: Int, error: PodiumError, jitter: Double) -> Duration {
        if let retryAfter = error.retryAfter { return retryAfter + .milliseconds(Int64(jitter * 100)) }
        return backoff.delay(afterFailures: attempt, jitter: jitter)
    }
}

/// Whether sending a request twice can apply it twice.
enum ResendSafety: Sendable, Equatable {
    /// A read, or a write the server deduplicates by its request id or that leaves the same state.
    case safe
    /// A write that is applied anew each time (docs/PROTOCOL.md 4.2: `challenge.rematch`…).
    case onlyIfNotApplied
}
