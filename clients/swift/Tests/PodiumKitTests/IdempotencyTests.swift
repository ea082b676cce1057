import Foundation
import PodiumKit
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Request ids are idempotency keys (docs/PROTOCOL.md 4.2): PodiumKit resends with the same key,
/// and the server answers a resend of an applied request with the original answer.
@Suite(.stack, .timeLimit(.minutes(2))) struct IdempotencyTests {
    /// The submission reaches the server, its answer is lost (a timeout): the client resends with
    /// the same key and gets the first receipt back, and the board holds one score.
    @Test func aResendAfterALostAnswerGetsTheFirstReceipt() async throws {
        let transport = RecordingTransport { request, earlier in
            request.url?.path.hasSuffix("/scores") == true && earlier == 0 ? .sendThenFail(.timedOut) : .send
        }
        let player = try await TestStack.player("lost", transport: transport)
        let board = PodiumLeaderboard(id: "com.example.dash.highscore", for: player)

        let receipt = try await board.submitScore(4321, context: 9)

        let sends = transport.exchanges("POST", pathSuffix: "/leaderboards/com.example.dash.highscore/scores")
        #expect(sends.count == 2)
        #expect(sends.allSatisfy { $0.status == 200 })
        #expect(sends[0].key != nil && sends[0].key == sends[1].key)
        #expect(receipt.duplicate)
        #expect(receipt.submittedValue == 4321)
        #expect(receipt.entry.score == 4321)
        #expect(receipt.entry.context == 9)
        #expect(receipt.improved)
        #expect(receipt.previousValue == nil)
        #expect(receipt.scopesBeaten == [.today, .week, .allTime])
        // Applied once: one score in the player's history.
        #expect(try await board.loadScoreHistory().map(\.value) == [4321])
    }

    /// The same key sent twice by the game: the original receipt; the same key for another
    /// score: `id_reused`.
    @Test func theSameKeyAgainReturnsTheOriginalAnswer() async throws {
        let player = try await TestStack.player("twice")
        let board = PodiumLeaderboard(id: "com.example.dash.highscore", for: player)
        let key = UUID().uuidString.lowercased()

        let first = try await board.submitScore(700, idempotencyKey: key)
        let again = try await board.submitScore(700, idempotencyKey: key)
        #expect(!first.duplicate)
        #expect(again.duplicate)
        #expect(again.entry.date == first.entry.date)
        #expect(again.entry.score == 700)
        #expect(again.scopesBeaten == first.scopesBeaten)
        #expect(try await board.loadScoreHistory().count == 1)

        let reused = await #expect(throws: PodiumError.self) { try await board.submitScore(800, idempotencyKey: key) }
        #expect(reused?.code == .idReused)
        #expect(reused?.status == 409)
        #expect(reused?.field == "id")
        #expect(reused?.requestId == key)

        // Achievement reports are deduplicated the same way.
        let blackjack = try await TestStack.player("twice-bj", game: "blackjack")
        let reportKey = UUID().uuidString.lowercased()
        let tutorial = PodiumAchievement(identifier: "com.example.blackjack.tutorial", percentComplete: 25)
        let reported = try await PodiumAchievement.report([tutorial], for: blackjack, idempotencyKey: reportKey)
        let resent = try await PodiumAchievement.report([tutorial], for: blackjack, idempotencyKey: reportKey)
        #expect(!reported.duplicate)
        #expect(resent.duplicate)
        #expect(resent.outcomes == reported.outcomes)
        #expect(reported.outcomes.first?.status == .progressed)
    }

    /// `service_unavailable` (nothing applied) is resent with the same key after a backoff.
    @Test func serviceUnavailableIsResentWithTheSameKey() async throws {
        let transport = RecordingTransport { request, earlier in
            guard request.url?.path.hasSuffix("/entry") == true, earlier < 2 else { return .send }
            return .answer(
                status: 503,
                body: #"{"code":"service_unavailable","detail":"no leaderboard instance","status":503}"#)
        }
        let player = try await TestStack.player("busy", transport: transport)
        let entry = try await PodiumLeaderboard(id: "com.example.dash.highscore", for: player).loadLocalPlayerEntry()
        #expect(entry == nil)
        let sends = transport.exchanges("GET", pathSuffix: "/entry")
        #expect(sends.map(\.status) == [503, 503, 200])
        #expect(Set(sends.map(\.key)).count == 1)
    }

    /// The cap: after `maxAttempts` sends the error is the caller's, typed.
    @Test func resendingStopsAtTheCap() async throws {
        let transport = RecordingTransport { request, _ in
            request.url?.path.hasSuffix("/history") == true
                ? .answer(status: 504, body: #"{"code":"service_timeout","detail":"slow","status":504}"#) : .send
        }
        var configuration = TestStack.configuration(transport: transport)
        configuration.retryPolicy = PodiumRetryPolicy(
            maxAttempts: 3, backoff: Backoff(initial: .milliseconds(10), maximum: .milliseconds(20)))
        let player = PodiumLocalPlayer(configuration: configuration)
        try await player.authenticate(.device(id: UUID().uuidString))
        let error = await #expect(throws: PodiumError.self) {
            try await PodiumLeaderboard(id: "com.example.dash.highscore", for: player).loadScoreHistory()
        }
        #expect(error?.code == .serviceTimeout)
        #expect(error?.status == 504)
        #expect(transport.exchanges("GET", pathSuffix: "/history").count == 3)
    }

    /// A login whose answer was lost is not sent again: it may have made a session already.
    @Test func aLostLoginIsNotResent() async throws {
        let username = TestStack.uniqueName("login")
        let setup = PodiumLocalPlayer(configuration: TestStack.configuration())
        try await setup.authenticate(.register(username: username, password: TestStack.password))
        let transport = RecordingTransport { request, _ in
            request.url?.path == "/v1/sessions" ? .sendThenFail(.timedOut) : .send
        }
        let player = PodiumLocalPlayer(configuration: TestStack.configuration(transport: transport))
        let error = await #expect(throws: PodiumError.self) {
            try await player.authenticate(.login(username: username, password: TestStack.password))
        }
        #expect(error?.code == .timeout)
        #expect(transport.exchanges("POST", pathSuffix: "/v1/sessions").count == 1)
        #expect(!player.isAuthenticated)
    }
}
