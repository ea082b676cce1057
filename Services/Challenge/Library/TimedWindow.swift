/// The window of a running time-boxed challenge: scores from `startsAt` (inclusive) to `endsAt`
/// (exclusive) count (``ChallengeLifecycle/inWindow(_:at:)``).
public struct TimedWindow: Sendable, Equatable {
    public var challengeId: String
    public var startsAt: Int64
    /// Absent only in a damaged row: treated as closed.
    public var endsAt: Int64?
    /// The definition of a defined challenge, nil for an undefined one.
    public var definitionId: String?
    /// A defined challenge: only its runs (scores tagged with its id, events its definition
    /// names) count.
    public var tagged: Bool { definitionId != nil }

    public init(challengeId: String, startsAt: Int64, endsAt: Int64?, definitionId: String? = nil) {
        self.definitionId = definitionId
        self.challengeId = challengeId
        self.startsAt = startsAt
        self.endsAt = endsAt
    }
}

/// When closed time-boxed challenges are ended: a challenge whose window closed is ended only
/// once it has been seen closed for the grace period, so that scores submitted just before the end
/// but still on their way through the leaderboard's outbox count. Times are monotonic
/// milliseconds (the sweep's clock), so a wall-clock step neither ends one early nor holds it.
public struct TimedClosing: Sendable {
    public let grace: Int64
    /// When each closed challenge was first seen closed.
    private var firstSeenClosed: [String: Int64] = [:]

    public init(grace: Int64) { self.grace = grace }

    /// The challenges to end now, given those whose window is closed at `monotonic`; forgets them
    /// (and those no longer closed-and-running, ended elsewhere).
    public mutating func due(closed: [String], at monotonic: Int64) -> [String] {
        let current = Set(closed)
        firstSeenClosed = firstSeenClosed.filter { current.contains($0.key) }
        for id in closed where firstSeenClosed[id] == nil { firstSeenClosed[id] = monotonic }
        let due = closed.filter { monotonic - (firstSeenClosed[$0] ?? monotonic) >= grace }
        for id in due { firstSeenClosed[id] = nil }
        return due
    }
}
