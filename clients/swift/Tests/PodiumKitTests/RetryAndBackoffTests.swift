import Foundation
import Testing

@testable import PodiumKit

/// The resend rules and their waits, without sleeping.
@Suite struct RetryAndBackoffTests {
    @Test func backoffDoublesUpToItsMaximum() {
        let backoff = Backoff(initial: .milliseconds(250), maximum: .seconds(4))
        let ceilings = (1...8).map { backoff.ceiling(afterFailures: $0) }
        #expect(
            ceilings == [
                .milliseconds(250), .milliseconds(500), .seconds(1), .seconds(2), .seconds(4), .seconds(4), .seconds(4),
                .seconds(4),
            ])
    }

    @Test func jitterKeepsTheWaitBetweenHalfAndAllOfTheCeiling() {
        let backoff = Backoff(initial: .milliseconds(500), maximum: .seconds(30))
        #expect(backoff.delay(afterFailures: 3, jitter: 0) == .seconds(1))
        #expect(backoff.delay(afterFailures: 3, jitter: 1) == .seconds(2))
        #expect(backoff.delay(afterFailures: 3, jitter: 0.5) == .milliseconds(1500))
        #expect(backoff.delay(afterFailures: 40, jitter: 1) == .seconds(30))
        #expect(backoff.delay(afterFailures: 0, jitter: 1) == .milliseconds(500))
    }

    @Test func whatIsResent() {
        let policy = PodiumRetryPolicy(maxAttempts: 3)
        func error(_ code: PodiumErrorCode) -> PodiumError { PodiumError(code: code, message: "") }
        for code in [PodiumErrorCode.serviceUnavailable, .overloaded, .storageUnavailable, .rebuilding] {
            #expect(policy.shouldRetry(error(code), attempt: 1, resend: .safe))
            #expect(policy.shouldRetry(error(code), attempt: 1, resend: .onlyIfNotApplied))
        }
        for code in [PodiumErrorCode.serviceTimeout, .timeout, .network, .duplicateRequestID] {
            #expect(policy.shouldRetry(error(code), attempt: 2, resend: .safe))
            // It may have been applied: a rematch or a refresh is not sent twice.
            #expect(!policy.shouldRetry(error(code), attempt: 1, resend: .onlyIfNotApplied))
        }
        for code in [PodiumErrorCode.unknownBoard, .tokenExpired, .rateLimited, .idReused, .conflict, "brand_new"] {
            #expect(!policy.shouldRetry(error(code), attempt: 1, resend: .safe))
        }
        // The cap: three sends in all.
        #expect(!policy.shouldRetry(error(.serviceUnavailable), attempt: 3, resend: .safe))
        #expect(!PodiumRetryPolicy.never.shouldRetry(error(.serviceUnavailable), attempt: 1, resend: .safe))
    }

    @Test func retryAfterWinsOverTheBackoff() {
        let policy = PodiumRetryPolicy()
        let rebuilding = PodiumError(code: .rebuilding, message: "", retryAfter: .milliseconds(1000))
        #expect(policy.delay(afterAttempt: 1, error: rebuilding, jitter: 0) == .milliseconds(1000))
        #expect(policy.delay(afterAttempt: 1, error: rebuilding, jitter: 1) == .milliseconds(1100))
        let timeout = PodiumError(code: .serviceTimeout, message: "")
        #expect(policy.delay(afterAttempt: 2, error: timeout, jitter: 1) == .milliseconds(500))
    }

    @Test func routesAreBuiltWithEscapedSegmentsAndTypedQueries() throws {
        let endpoint = Endpoint.game(
            "dash", get: "leaderboards", "com.example/odd board", "top",
            query: ["scope": "week", "limit": 5, "friendsOnly": true, "cursor": nil, "kinds": "a+b"])
        let url = try #require(endpoint.url(relativeTo: URL(string: "http://127.0.0.1:8080/")!))
        #expect(
            url.absoluteString
                == "http://127.0.0.1:8080/v1/games/dash/leaderboards/com.example%2Fodd%20board/top?friendsOnly=true&kinds=a%2Bb&limit=5&scope=week"
        )
    }

    @Test func theSocketURLFollowsTheBaseURL() {
        #expect(
            PodiumConfiguration.socketURL(for: URL(string: "http://127.0.0.1:1234")!).absoluteString
                == "ws://127.0.0.1:1234/v1/socket")
        #expect(
            PodiumConfiguration.socketURL(for: URL(string: "https://podium.example.com/game/")!).absoluteString
                == "wss://podium.example.com/game/v1/socket")
    }
}
