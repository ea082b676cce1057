import PodiumMessages

/// The challenge lifecycle as pure rules, tested without a database: which receiver states may
/// follow which, and what completes, expires or may be declined. Stores apply a transition only
/// from the state these rules start from (a conditional update), so a repeated trigger changes
/// nothing the second time.
///
/// A receiver of a score or achievement challenge is `pending` until it is `completed` (by a
/// qualifying score or unlock), `declined` (by the receiver) or `invalid` (expired, or its board
/// or achievement removed); those three are final. A time-boxed challenge is `running` until its
/// window closes, then `ended`, and its receivers `completed`.
public enum ChallengeLifecycle {
    /// Whether a receiver may move from `from` to `to`.
    public static func canMove(from: ChallengeState, to: ChallengeState) -> Bool {
        switch (from, to) {
        case (.pending, .completed), (.pending, .declined), (.pending, .invalid): true
        default: false
        }
    }

    /// Whether a challenge with this expiry has expired at `time`.
    public static func isExpired(expiresAt: Int64?, at time: Int64) -> Bool {
        guard let expiresAt else { return false }
        return expiresAt <= time
    }

    /// Whether a score completes a pending score challenge: submitted while it was open (after
    /// it was issued, before it expired) and better than the issuer's score on the board's order.
    public static func scoreCompletes(
        submitted: Int64, at time: Int64, issuerValue: Int64?, higherIsBetter: Bool?, createdAt: Int64,
        expiresAt: Int64?
    ) -> Bool {
        guard !isExpired(expiresAt: expiresAt, at: time), time >= createdAt, let toBeat = issuerValue else {
            return false
        }
        return higherIsBetter == false ? submitted < toBeat : submitted > toBeat
    }

    /// Whether an unlock completes a pending achievement challenge: while it is open, and an unlock
    /// beyond the ones the receiver had when it was issued (`baseline`).
    public static func unlockCompletes(timesEarned: Int, at time: Int64, baseline: Int64?, expiresAt: Int64?) -> Bool {
        !isExpired(expiresAt: expiresAt, at: time) && Int64(timesEarned) > (baseline ?? 0)
    }

    /// Whether a score submitted at `time` counts for a running time-boxed challenge: inside its
    /// window, from its start (inclusive) to its end (exclusive).
    public static func inWindow(_ window: TimedWindow, at time: Int64) -> Bool {
        guard let endsAt = window.endsAt else { return false }
        return window.startsAt <= time && time < endsAt
    }

    /// Whether a running time-boxed challenge's window has closed at `time` (it ends once the
    /// grace for scores still in flight has passed too: ``TimedClosing``).
    public static func windowClosed(_ window: TimedWindow, at time: Int64) -> Bool {
        guard let endsAt = window.endsAt else { return true }
        return endsAt <= time
    }

    /// Whether a receiver may decline: only a pending receiver of a score or achievement challenge.
    public static func canDecline(kind: ChallengeKind, state: ChallengeState) -> Bool {
        kind != .timed && canMove(from: state, to: .declined)
    }
}
