import PodiumMessages
import Testing

@testable import Challenge

/// The challenge lifecycle as pure rules: no database, no sockets.
@Suite("Challenge lifecycle rules")
struct ChallengeLifecycleTests {
    @Test("a pending receiver may complete, decline or become invalid; every other state is final")
    func transitions() {
        let all: [ChallengeState] = [.pending, .completed, .declined, .invalid, .running, .ended]
        for from in all {
            for to in all {
                let allowed = from == .pending && [.completed, .declined, .invalid].contains(to)
                #expect(ChallengeLifecycle.canMove(from: from, to: to) == allowed, "\(from) → \(to)")
            }
        }
        #expect(ChallengeLifecycle.canDecline(kind: .score, state: .pending))
        #expect(ChallengeLifecycle.canDecline(kind: .achievement, state: .pending))
        #expect(!ChallengeLifecycle.canDecline(kind: .timed, state: .pending), "a time-boxed challenge is not declined")
        #expect(!ChallengeLifecycle.canDecline(kind: .score, state: .completed))
    }

    @Test("a score completes only when better on the board's order, after the issue and before the expiry")
    func scoreCompletion() {
        func completes(_ submitted: Int64, at time: Int64, higherIsBetter: Bool? = true, expiresAt: Int64? = 2000)
            -> Bool
        {
            ChallengeLifecycle.scoreCompletes(
                submitted: submitted, at: time, issuerValue: 500, higherIsBetter: higherIsBetter, createdAt: 1000,
                expiresAt: expiresAt)
        }
        #expect(completes(501, at: 1500))
        #expect(!completes(500, at: 1500), "a tie does not beat the issuer")
        #expect(!completes(499, at: 1500))
        #expect(completes(499, at: 1500, higherIsBetter: false), "lower is better: a faster time")
        #expect(!completes(501, at: 999), "submitted before the challenge was issued")
        #expect(!completes(501, at: 2000), "at the expiry it is over")
        #expect(completes(501, at: 1_000_000, expiresAt: nil), "no expiry")
        #expect(
            !ChallengeLifecycle.scoreCompletes(
                submitted: 9, at: 1500, issuerValue: nil, higherIsBetter: true, createdAt: 1000, expiresAt: nil),
            "no issuer score")
    }

    @Test("an unlock completes only beyond the receiver's earlier unlocks and before the expiry")
    func unlockCompletion() {
        #expect(ChallengeLifecycle.unlockCompletes(timesEarned: 1, at: 5, baseline: 0, expiresAt: 10))
        #expect(
            !ChallengeLifecycle.unlockCompletes(timesEarned: 1, at: 5, baseline: 1, expiresAt: 10),
            "already earned at issue")
        #expect(
            ChallengeLifecycle.unlockCompletes(timesEarned: 2, at: 5, baseline: 1, expiresAt: nil),
            "a repeatable one earned again")
        #expect(!ChallengeLifecycle.unlockCompletes(timesEarned: 1, at: 10, baseline: 0, expiresAt: 10))
    }

    @Test("a time-boxed window counts scores from its start up to, not including, its end; then it is closed")
    func timedWindow() {
        let window = TimedWindow(challengeId: "c", startsAt: 1000, endsAt: 2000)
        #expect(!ChallengeLifecycle.inWindow(window, at: 999), "before it started")
        #expect(ChallengeLifecycle.inWindow(window, at: 1000))
        #expect(ChallengeLifecycle.inWindow(window, at: 1999))
        #expect(!ChallengeLifecycle.inWindow(window, at: 2000), "at the end it is over")
        #expect(!ChallengeLifecycle.windowClosed(window, at: 1999))
        #expect(ChallengeLifecycle.windowClosed(window, at: 2000))
        let damaged = TimedWindow(challengeId: "d", startsAt: 1000, endsAt: nil)
        #expect(!ChallengeLifecycle.inWindow(damaged, at: 1500) && ChallengeLifecycle.windowClosed(damaged, at: 1500))
    }

    @Test("a closed time-boxed challenge ends once it has been seen closed for the grace period, once")
    func timedClosing() {
        var closing = TimedClosing(grace: 1500)
        #expect(closing.due(closed: ["a"], at: 10_000).isEmpty, "first seen closed: wait for scores in flight")
        #expect(closing.due(closed: ["a", "b"], at: 11_000).isEmpty)
        #expect(closing.due(closed: ["a", "b"], at: 11_500) == ["a"])
        #expect(closing.due(closed: ["b"], at: 12_000).isEmpty, "b was first seen at 11 000")
        #expect(closing.due(closed: [], at: 12_400).isEmpty, "b ended elsewhere (an operator): forgotten")
        #expect(closing.due(closed: ["b"], at: 12_500).isEmpty, "seen closed again: the grace starts again")
        #expect(closing.due(closed: ["b"], at: 14_000) == ["b"])
    }
}
