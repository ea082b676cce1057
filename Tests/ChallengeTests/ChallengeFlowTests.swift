import Foundation
import PodiumClient
import PodiumMessages
import PodiumTesting
import Testing
import ZeroMQ

/// Challenges end to end over real sockets.
@Suite("Challenges")
struct ChallengeFlowTests {
    struct Player {
        let client: TestClient
        let grant: SessionGrant
        let inbox: TestSubscriber
        var id: String { grant.playerId }
    }

    /// Registers a player with a live notification subscriber for `game`.
    static func player(_ stack: PodiumTestStack, _ name: String, game: String = "dash") async throws -> Player {
        let (client, grant) = try await stack.player(name)
        let topic = try await client.call(GatewayRequests.subscribe, gameId: game).topic
        let subscriber = try TestSubscriber(endpoint: stack.endpoints.notifications, topics: [topic])
        _ = try await withDeadline(.seconds(15)) {
            while true {
                _ = try await client.call(ClientRequests.testNotification(of: "challenge"), TestNotice(), gameId: game)
                if (try? await subscriber.next(timeout: .milliseconds(300))) != nil { return true }
            }
        }
        while (try? await subscriber.next(timeout: .milliseconds(100))) != nil {}
        return Player(client: client, grant: grant, inbox: subscriber)
    }

    static func befriend(_ a: Player, _ b: Player) async throws {
        _ = try await a.client.call(AuthRequests.friendRequest, FriendTarget(playerId: b.id))
        _ = try await b.client.call(AuthRequests.friendAccept, FriendTarget(playerId: a.id))
    }

    static func submit(_ player: Player, _ value: Int64, board: String = "dash.highscore") async throws {
        let reply = try await player.client.exchange(
            LeaderboardRequests.submit, ScoreSubmission(boardId: board, value: value), gameId: "dash")
        #expect(reply.isSuccess)
    }

    /// The next notification of `kind` (others are skipped).
    static func next(_ player: Player, kind: String) async throws -> PlayerNotification {
        while true {
            let notice = try await player.inbox.next().envelope.decodePayload(as: PlayerNotification.self)
            if notice.kind == kind { return notice }
        }
    }

    static func close(_ players: [Player]) {
        Task {
            for player in players {
                await player.client.close()
                await player.inbox.close()
            }
        }
    }

    @Test("a score challenge: received, beaten, both told, completed once even if the trigger repeats")
    func scoreChallenge() async throws {
        try await withPodiumStack { stack in
            let a = try await Self.player(stack, "alice")
            let b = try await Self.player(stack, "bob")
            defer { Self.close([a, b]) }
            try await Self.befriend(a, b)
            try await Self.submit(a, 500)
            let challenge = try await a.client.call(
                ChallengeRequests.issue,
                ChallengeIssue(kind: .score, boardId: "dash.highscore", receivers: [b.id], message: "beat this!"),
                gameId: "dash")
            #expect(challenge.issuerValue == 500)
            let received = try await Self.next(b, kind: "challenge.received")
            #expect(received.details["challengeId"] == .string(challenge.challengeId))
            #expect(received.details["message"] == "beat this!")
            #expect(received.details["issuerValue"] == 500)
            try await Self.submit(b, 400)
            try await Self.submit(b, 600)
            let done = try await Self.next(b, kind: "challenge.completed")
            #expect(done.details["challengeId"] == .string(challenge.challengeId))
            let told = try await Self.next(a, kind: "challenge.completed-by-receiver")
            #expect(told.details["receiverId"] == .string(b.id))
            let detail = try await a.client.call(
                ChallengeRequests.detail, ChallengeTarget(challengeId: challenge.challengeId), gameId: "dash")
            #expect(detail.receivers.first?.state == .completed)
            #expect(detail.receivers.first?.value == 600)

            // The trigger again: a higher score, and a replayed score-accepted message on the bus.
            try await Self.submit(b, 700)
            let bus = try ZMQContext().makeSocket(.publisher)
            defer { bus.close() }
            try bus.connect(stack.endpoints.busPublish)
            try await Task.sleep(for: .milliseconds(300))
            let receipt = ScoreReceipt(
                boardId: "dash.highscore", playerId: b.id, improved: true, previousValue: 500,
                entry: LeaderboardEntry(
                    playerId: b.id, value: 900, rank: 1, context: nil, metadata: nil, submittedAt: 0))
            let replay = Envelope(
                type: "leaderboard.score-accepted", gameId: "dash", playerId: b.id, timestamp: 0, publisher: "replayer",
                sequence: 1,
                payload: receipt)
            try bus.send([Data("score/dash/dash.highscore".utf8), try WireCodec.encode(replay)])
            // A marker after them: if a second completion were sent, it would arrive before this.
            _ = try await b.client.call(
                ClientRequests.testNotification(of: "challenge"), TestNotice(message: "marker"), gameId: "dash")
            while true {
                let notice = try await b.inbox.next().envelope.decodePayload(as: PlayerNotification.self)
                #expect(notice.kind != "challenge.completed", "completed twice")
                if notice.message == "marker" { break }
            }
            let items = try await b.client.call(ChallengeRequests.inbox, InboxQuery(), gameId: "dash").items
            #expect(items.filter { $0.kind == "challenge.completed" }.count == 1)
            #expect(items.filter { $0.kind == "challenge.received" }.count == 1)
            let ids = items.map(\.id)
            let marked = try await b.client.call(ChallengeRequests.inboxRead, InboxMarkRead(ids: ids), gameId: "dash")
            #expect(marked.marked == ids.count)
            let unread = try await b.client.call(ChallengeRequests.inbox, InboxQuery(unreadOnly: true), gameId: "dash")
            #expect(unread.items.isEmpty)
        }
    }

    @Test("an achievement challenge completes when the receiver earns it")
    func achievementChallenge() async throws {
        try await withPodiumStack { stack in
            let a = try await Self.player(stack, "ann", game: "whackacac")
            let b = try await Self.player(stack, "ben", game: "whackacac")
            defer { Self.close([a, b]) }
            try await Self.befriend(a, b)
            let killOne = "com.dragonforged.whackacac.killone"
            let toKillOne = ChallengeIssue(kind: .achievement, achievementId: killOne, receivers: [b.id])
            let early = try await a.client.exchange(ChallengeRequests.issue, toKillOne, gameId: "whackacac")
            #expect(early.errorCode == .conflict, "the issuer has not earned it yet")
            _ = try await a.client.call(
                GatewayRequests.publish, GameEvent(name: "cactus.hit", attributes: ["matchId": "m1"]),
                gameId: "whackacac")
            let deadline = ContinuousClock.now + .seconds(10)
            var issued: ChallengeDetail?
            while ContinuousClock.now < deadline {
                let reply = try await a.client.exchange(ChallengeRequests.issue, toKillOne, gameId: "whackacac")
                if reply.isSuccess {
                    issued = try reply.value()
                    break
                }
                try await Task.sleep(for: .milliseconds(50))
            }
            let challenge = try #require(issued)
            _ = try await Self.next(b, kind: "challenge.received")
            _ = try await b.client.call(
                GatewayRequests.publish, GameEvent(name: "cactus.hit", attributes: ["matchId": "m9"]),
                gameId: "whackacac")
            let done = try await Self.next(b, kind: "challenge.completed")
            #expect(done.details["achievementId"] == .string(killOne))
            _ = try await Self.next(a, kind: "challenge.completed-by-receiver")
            let received = try await b.client.call(
                ChallengeRequests.received, ChallengeFilter(state: "completed"), gameId: "whackacac")
            #expect(received.challenges.first?.challengeId == challenge.challengeId)
            // Now B has earned it (not repeatable): A cannot challenge B to it again.
            let again = try await a.client.exchange(ChallengeRequests.issue, toKillOne, gameId: "whackacac")
            #expect(again.errorCode == .conflict)
        }
    }

    @Test("a time-boxed challenge counts only scores in its window, tells everyone the standings, and rematches")
    func timeBoxed() async throws {
        let clock = OffsetClock()
        var auth = PodiumTestStack.testAuthConfiguration
        auth.sessionLifetimeMilliseconds = 86_400_000  // the test jumps an hour ahead
        try await withPodiumStack(.init(clock: clock, auth: auth)) { stack in
            let a = try await Self.player(stack, "amy")
            let b = try await Self.player(stack, "bea")
            defer { Self.close([a, b]) }
            try await Self.befriend(a, b)
            try await Self.submit(b, 900)  // before the window: does not count
            let challenge = try await a.client.call(
                ChallengeRequests.start,
                TimedChallengeStart(boardId: "dash.fastest", durationMilliseconds: 3_600_000, receivers: [b.id]),
                gameId: "dash")
            #expect(challenge.state == .running)
            _ = try await Self.next(b, kind: "challenge.received")
            try await Self.submit(a, 8000, board: "dash.fastest")
            try await Self.submit(b, 7000, board: "dash.fastest")
            clock.advance(by: .seconds(3601))
            try await Self.submit(a, 1000, board: "dash.fastest")  // after the window: does not count
            let ended = try await Self.next(a, kind: "challenge.ended")
            guard case .array(let table)? = ended.details["standings"] else {
                Issue.record("no standings")
                return
            }
            #expect(
                table.map { $0["playerId"] } == [.string(b.id), .string(a.id)], "lower is better on the fastest board")
            #expect(table.map { $0["value"] } == [7000, 8000])
            _ = try await Self.next(b, kind: "challenge.ended")
            let rematch = try await b.client.call(
                ChallengeRequests.rematch, ChallengeTarget(challengeId: challenge.challengeId), gameId: "dash")
            #expect(rematch.rematchOf == challenge.challengeId)
            #expect(rematch.state == .running)
            #expect(Set(rematch.receivers.map(\.playerId)) == [a.id, b.id])
            _ = try await Self.next(a, kind: "challenge.received")
        }
    }

    @Test("bad challenges are refused with their codes")
    func refusals() async throws {
        try await withPodiumStack { stack in
            let a = try await Self.player(stack, "issuer")
            let friend = try await Self.player(stack, "friend")
            let stranger = try await Self.player(stack, "stranger")
            let blocker = try await Self.player(stack, "blocker")
            defer { Self.close([a, friend, stranger, blocker]) }
            try await Self.befriend(a, friend)
            try await Self.befriend(a, blocker)
            _ = try await blocker.client.call(AuthRequests.friendBlock, FriendTarget(playerId: a.id))
            try await Self.submit(a, 100)
            func issue(board: String = "dash.highscore", _ receivers: [String], message: String? = nil) async throws
                -> ErrorCode?
            {
                try await errorCode {
                    try await a.client.call(
                        ChallengeRequests.issue,
                        ChallengeIssue(kind: .score, boardId: board, receivers: receivers, message: message),
                        gameId: "dash")
                }
            }
            #expect(try await issue([a.id]) == .invalidField)
            #expect(try await issue([stranger.id]) == .forbidden)
            #expect(try await issue([blocker.id]) == .forbidden)
            #expect(try await issue(["no-such-player"]) == .unknownPlayer)
            #expect(try await issue(board: "dash.nope", [friend.id]) == .unknownBoard)
            #expect(try await issue(board: "dash.fastest", [friend.id]) == .conflict)
            #expect(try await issue((0..<21).map { "p\($0)" }) == .invalidField)
            #expect(try await issue([friend.id], message: String(repeating: "x", count: 281)) == .invalidField)
            let challenge = try await a.client.call(
                ChallengeRequests.issue,
                ChallengeIssue(kind: .score, boardId: "dash.highscore", receivers: [friend.id]), gameId: "dash")
            let target = ChallengeTarget(challengeId: challenge.challengeId)
            let notMine = try await stranger.client.exchange(ChallengeRequests.decline, target, gameId: "dash")
            #expect(notMine.errorCode == .unknownChallenge)
            let declined = try await friend.client.call(ChallengeRequests.decline, target, gameId: "dash")
            #expect(declined.receivers.first?.state == .declined)
            let twice = try await friend.client.exchange(ChallengeRequests.decline, target, gameId: "dash")
            #expect(twice.errorCode == .conflict)
            let byScore = CandidateQuery(boardId: "dash.highscore", score: 100)
            let candidates = try await a.client.call(ClientRequests.challengeCandidates, byScore, gameId: "dash")
            // Friends whose score is lower than 100 (no score counts as lower); the blocker ended the friendship.
            #expect(candidates.playerIds == [friend.id])
            try await Self.submit(friend, 150)
            let fewer = try await a.client.call(ClientRequests.challengeCandidates, byScore, gameId: "dash")
            #expect(fewer.playerIds == [])
        }
    }
}

@Suite("Challenge expiry and removal")
struct ChallengeInvalidationTests {
    @Test("a challenge becomes invalid when it expires on the injected clock, or when its board is removed")
    func invalidation() async throws {
        let clock = OffsetClock()
        let admin = String(repeating: "a", count: 40)
        var auth = PodiumTestStack.testAuthConfiguration
        auth.sessionLifetimeMilliseconds = 86_400_000
        try await withPodiumStack(.init(clock: clock, adminKey: admin, auth: auth)) { stack in
            let (a, _) = try await stack.player("expirer")
            let (b, bGrant) = try await stack.player("target")
            let operatorClient = try TestClient(endpoint: stack.endpoints.requests)
            operatorClient.use(.adminKey(admin))
            defer {
                Task {
                    await a.close()
                    await b.close()
                    await operatorClient.close()
                }
            }
            let aGrant = try await a.call(AuthRequests.profile)
            _ = try await a.call(AuthRequests.friendRequest, FriendTarget(playerId: bGrant.playerId))
            _ = try await b.call(AuthRequests.friendAccept, FriendTarget(playerId: aGrant.playerId))
            _ = try await a.call(
                LeaderboardRequests.submit, ScoreSubmission(boardId: "dash.highscore", value: 10), gameId: "dash")
            _ = try await a.call(
                LeaderboardRequests.submit, ScoreSubmission(boardId: "dash.coins", value: 10), gameId: "dash")
            let expiring = try await a.call(
                ChallengeRequests.issue,
                ChallengeIssue(
                    kind: .score, boardId: "dash.highscore", receivers: [bGrant.playerId], expiresInMilliseconds: 60_000
                ),
                gameId: "dash")
            let removed = try await a.call(
                ChallengeRequests.issue,
                ChallengeIssue(kind: .score, boardId: "dash.coins", receivers: [bGrant.playerId]), gameId: "dash")
            clock.advance(by: .seconds(61))
            #expect(
                try await operatorClient.exchange(
                    LeaderboardRequests.remove, BoardRemoval(boardId: "dash.coins"), gameId: "dash"
                ).isSuccess)
            let deadline = ContinuousClock.now + .seconds(15)
            var states: [ChallengeState] = []
            while ContinuousClock.now < deadline {
                states = []
                for challenge in [expiring, removed] {
                    let detail = try await a.call(
                        ChallengeRequests.detail, ChallengeTarget(challengeId: challenge.challengeId), gameId: "dash")
                    states.append(detail.receivers.first?.state ?? .pending)
                }
                if states == [.invalid, .invalid] { break }
                try await Task.sleep(for: .milliseconds(100))
            }
            #expect(states == [.invalid, .invalid])
            // An invalid challenge cannot complete any more.
            _ = try await b.call(
                LeaderboardRequests.submit, ScoreSubmission(boardId: "dash.highscore", value: 99), gameId: "dash")
            let later = try await a.call(
                ChallengeRequests.detail, ChallengeTarget(challengeId: expiring.challengeId), gameId: "dash")
            #expect(later.receivers.first?.state == .invalid)
        }
    }
}

@Suite("Challenge scoring")
struct ChallengeScoringTests {
    @Test(
        "only a score submitted after the challenge and better than the issuer's completes it; duplicate receivers are merged"
    )
    func submittedScoreCounts() async throws {
        try await withPodiumStack { stack in
            let a = try await ChallengeFlowTests.player(stack, "setter")
            let b = try await ChallengeFlowTests.player(stack, "veteran")
            defer { ChallengeFlowTests.close([a, b]) }
            try await ChallengeFlowTests.befriend(a, b)
            try await ChallengeFlowTests.submit(b, 2000)  // an old best, above what A will set
            try await ChallengeFlowTests.submit(a, 500)
            let challenge = try await a.client.call(
                ChallengeRequests.issue,
                ChallengeIssue(kind: .score, boardId: "dash.highscore", receivers: [b.id, b.id]), gameId: "dash")
            #expect(challenge.receivers.count == 1)
            try await ChallengeFlowTests.submit(b, 10)
            _ = try await b.client.call(
                ClientRequests.testNotification(of: "challenge"), TestNotice(message: "marker"), gameId: "dash")
            while true {
                let notice = try await b.inbox.next().envelope.decodePayload(as: PlayerNotification.self)
                #expect(notice.kind != "challenge.completed", "a score of 10 completed a challenge to beat 500")
                if notice.message == "marker" { break }
            }
            try await ChallengeFlowTests.submit(b, 501)
            let done = try await ChallengeFlowTests.next(b, kind: "challenge.completed")
            #expect(done.details["challengeId"] == .string(challenge.challengeId))
            let detail = try await a.client.call(
                ChallengeRequests.detail, ChallengeTarget(challengeId: challenge.challengeId), gameId: "dash")
            #expect(detail.receivers.first?.value == 501)
        }
    }
}
