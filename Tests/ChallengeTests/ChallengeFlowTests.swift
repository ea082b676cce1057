import Foundation
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
        let topic = try await client.request(.notificationsSubscribe, gameId: game).decodePayload(as: NotificationSubscription.self).topic
        let subscriber = try TestSubscriber(endpoint: stack.endpoints.notifications, topics: [topic])
        _ = try await withDeadline(.seconds(15)) {
            while true {
                _ = try await client.request(.testNotification(of: "challenge"), gameId: game)
                if (try? await subscriber.next(timeout: .milliseconds(300))) != nil { return true }
            }
        }
        while (try? await subscriber.next(timeout: .milliseconds(100))) != nil {}
        return Player(client: client, grant: grant, inbox: subscriber)
    }

    static func befriend(_ a: Player, _ b: Player) async throws {
        _ = try await a.client.request("auth.friends.request", payload: ["playerId": .string(b.id)])
        _ = try await b.client.request("auth.friends.accept", payload: ["playerId": .string(a.id)])
    }

    static func submit(_ player: Player, _ value: Int64, board: String = "dash.highscore") async throws {
        let reply = try await player.client.request("leaderboard.submit", gameId: "dash", payload: ["boardId": .string(board), "value": .integer(value)])
        #expect(reply.type == .reply)
    }

    /// The next notification of `kind` (others are skipped).
    static func next(_ player: Player, kind: String) async throws -> PlayerNotification {
        while true {
            let notice = try await player.inbox.next().envelope.decodePayload(as: PlayerNotification.self)
            if notice.kind == kind { return notice }
        }
    }

    static func close(_ players: [Player]) {
        Task { for player in players { await player.client.close(); await player.inbox.close() } }
    }

    @Test("a score challenge: received, beaten, both told, completed once even if the trigger repeats")
    func scoreChallenge() async throws {
        try await withPodiumStack { stack in
            let a = try await Self.player(stack, "alice")
            let b = try await Self.player(stack, "bob")
            defer { Self.close([a, b]) }
            try await Self.befriend(a, b)
            try await Self.submit(a, 500)
            let issued = try await a.client.request(
                "challenge.issue", gameId: "dash",
                payload: ["kind": "score", "boardId": "dash.highscore", "receivers": [.string(b.id)], "message": "beat this!"])
            let challenge = try issued.decodePayload(as: ChallengeDetail.self)
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
            let detail = try await a.client.request("challenge.detail", gameId: "dash", payload: ["challengeId": .string(challenge.challengeId)])
                .decodePayload(as: ChallengeDetail.self)
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
                entry: LeaderboardEntry(playerId: b.id, value: 900, rank: 1, context: nil, metadata: nil, submittedAt: 0))
            let replay = Envelope(
                type: "leaderboard.score-accepted", gameId: "dash", playerId: b.id, timestamp: 0, publisher: "replayer", sequence: 1,
                payload: receipt)
            try bus.send([Data("score/dash/dash.highscore".utf8), try WireCodec.encode(replay)])
            // A marker after them: if a second completion were sent, it would arrive before this.
            _ = try await b.client.request(.testNotification(of: "challenge"), gameId: "dash", payload: ["message": "marker"])
            while true {
                let notice = try await b.inbox.next().envelope.decodePayload(as: PlayerNotification.self)
                #expect(notice.kind != "challenge.completed", "completed twice")
                if notice.message == "marker" { break }
            }
            let inbox = try await b.client.request("challenge.inbox", gameId: "dash")
            guard case .array(let items)? = inbox.payload["items"] else { Issue.record("no inbox"); return }
            #expect(items.filter { $0["kind"] == "challenge.completed" }.count == 1)
            #expect(items.filter { $0["kind"] == "challenge.received" }.count == 1)
            let ids = items.compactMap { $0["id"] }
            let marked = try await b.client.request("challenge.inbox.read", gameId: "dash", payload: ["ids": .array(ids)])
            #expect(marked.payload["marked"] == .integer(Int64(ids.count)))
            let unread = try await b.client.request("challenge.inbox", gameId: "dash", payload: ["unreadOnly": true])
            #expect(unread.payload["items"] == .array([]))
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
            let early = try await a.client.request(
                "challenge.issue", gameId: "whackacac", payload: ["kind": "achievement", "achievementId": .string(killOne), "receivers": [.string(b.id)]])
            #expect(try early.decodePayload(as: ErrorReply.self).code == .conflict, "the issuer has not earned it yet")
            _ = try await a.client.request(.eventPublish, gameId: "whackacac", payload: ["name": "cactus.hit", "attributes": ["matchId": "m1"]])
            let deadline = ContinuousClock.now + .seconds(10)
            var issued: RawEnvelope?
            while ContinuousClock.now < deadline {
                let reply = try await a.client.request(
                    "challenge.issue", gameId: "whackacac",
                    payload: ["kind": "achievement", "achievementId": .string(killOne), "receivers": [.string(b.id)]])
                if reply.type == .reply { issued = reply; break }
                try await Task.sleep(for: .milliseconds(50))
            }
            let challenge = try #require(issued).decodePayload(as: ChallengeDetail.self)
            _ = try await Self.next(b, kind: "challenge.received")
            _ = try await b.client.request(.eventPublish, gameId: "whackacac", payload: ["name": "cactus.hit", "attributes": ["matchId": "m9"]])
            let done = try await Self.next(b, kind: "challenge.completed")
            #expect(done.details["achievementId"] == .string(killOne))
            _ = try await Self.next(a, kind: "challenge.completed-by-receiver")
            let received = try await b.client.request("challenge.received", gameId: "whackacac", payload: ["state": "completed"])
            guard case .array(let list)? = received.payload["challenges"] else { Issue.record("no list"); return }
            #expect(list.first?["challengeId"] == .string(challenge.challengeId))
            // Now B has earned it (not repeatable): A cannot challenge B to it again.
            let again = try await a.client.request(
                "challenge.issue", gameId: "whackacac", payload: ["kind": "achievement", "achievementId": .string(killOne), "receivers": [.string(b.id)]])
            #expect(try again.decodePayload(as: ErrorReply.self).code == .conflict)
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
            let started = try await a.client.request(
                "challenge.start", gameId: "dash", payload: ["boardId": "dash.fastest", "durationMilliseconds": 3_600_000, "receivers": [.string(b.id)]])
            let challenge = try started.decodePayload(as: ChallengeDetail.self)
            #expect(challenge.state == .running)
            _ = try await Self.next(b, kind: "challenge.received")
            try await Self.submit(a, 8000, board: "dash.fastest")
            try await Self.submit(b, 7000, board: "dash.fastest")
            clock.advance(by: .seconds(3601))
            try await Self.submit(a, 1000, board: "dash.fastest")  // after the window: does not count
            let ended = try await Self.next(a, kind: "challenge.ended")
            guard case .array(let table)? = ended.details["standings"] else { Issue.record("no standings"); return }
            #expect(table.map { $0["playerId"] } == [.string(b.id), .string(a.id)], "lower is better on the fastest board")
            #expect(table.map { $0["value"] } == [7000, 8000])
            _ = try await Self.next(b, kind: "challenge.ended")
            let rematch = try await b.client.request("challenge.rematch", gameId: "dash", payload: ["challengeId": .string(challenge.challengeId)])
                .decodePayload(as: ChallengeDetail.self)
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
            _ = try await blocker.client.request("auth.friends.block", payload: ["playerId": .string(a.id)])
            try await Self.submit(a, 100)
            func issue(_ payload: JSONValue) async throws -> ErrorCode? {
                let reply = try await a.client.request("challenge.issue", gameId: "dash", payload: payload)
                return reply.type == .error ? try reply.decodePayload(as: ErrorReply.self).code : nil
            }
            #expect(try await issue(["kind": "score", "boardId": "dash.highscore", "receivers": [.string(a.id)]]) == .invalidField)
            #expect(try await issue(["kind": "score", "boardId": "dash.highscore", "receivers": [.string(stranger.id)]]) == .forbidden)
            #expect(try await issue(["kind": "score", "boardId": "dash.highscore", "receivers": [.string(blocker.id)]]) == .forbidden)
            #expect(try await issue(["kind": "score", "boardId": "dash.highscore", "receivers": ["no-such-player"]]) == .unknownPlayer)
            #expect(try await issue(["kind": "score", "boardId": "dash.nope", "receivers": [.string(friend.id)]]) == .unknownBoard)
            #expect(try await issue(["kind": "score", "boardId": "dash.fastest", "receivers": [.string(friend.id)]]) == .conflict)
            let many: JSONValue = .array((0..<21).map { .string("p\($0)") })
            #expect(try await issue(["kind": "score", "boardId": "dash.highscore", "receivers": many]) == .invalidField)
            #expect(try await issue([
                "kind": "score", "boardId": "dash.highscore", "receivers": [.string(friend.id)], "message": .string(String(repeating: "x", count: 281)),
            ]) == .invalidField)
            let ok = try await a.client.request(
                "challenge.issue", gameId: "dash", payload: ["kind": "score", "boardId": "dash.highscore", "receivers": [.string(friend.id)]])
            let challenge = try ok.decodePayload(as: ChallengeDetail.self)
            let notMine = try await stranger.client.request("challenge.decline", gameId: "dash", payload: ["challengeId": .string(challenge.challengeId)])
            #expect(try notMine.decodePayload(as: ErrorReply.self).code == .unknownChallenge)
            let declined = try await friend.client.request("challenge.decline", gameId: "dash", payload: ["challengeId": .string(challenge.challengeId)])
            #expect(try declined.decodePayload(as: ChallengeDetail.self).receivers.first?.state == .declined)
            let twice = try await friend.client.request("challenge.decline", gameId: "dash", payload: ["challengeId": .string(challenge.challengeId)])
            #expect(try twice.decodePayload(as: ErrorReply.self).code == .conflict)
            let candidates = try await a.client.request("challenge.candidates", gameId: "dash", payload: ["boardId": "dash.highscore", "score": 100])
            // Friends whose score is lower than 100 (no score counts as lower); the blocker ended the friendship.
            #expect(candidates.payload["playerIds"] == .array([.string(friend.id)]))
            try await Self.submit(friend, 150)
            let fewer = try await a.client.request("challenge.candidates", gameId: "dash", payload: ["boardId": "dash.highscore", "score": 100])
            #expect(fewer.payload["playerIds"] == .array([]))
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
            defer { Task { await a.close(); await b.close(); await operatorClient.close() } }
            let aGrant = try await a.request("auth.profile").decodePayload(as: PlayerProfile.self)
            _ = try await a.request("auth.friends.request", payload: ["playerId": .string(bGrant.playerId)])
            _ = try await b.request("auth.friends.accept", payload: ["playerId": .string(aGrant.playerId)])
            _ = try await a.request("leaderboard.submit", gameId: "dash", payload: ["boardId": "dash.highscore", "value": 10])
            _ = try await a.request("leaderboard.submit", gameId: "dash", payload: ["boardId": "dash.coins", "value": 10])
            let expiring = try await a.request(
                "challenge.issue", gameId: "dash",
                payload: ["kind": "score", "boardId": "dash.highscore", "receivers": [.string(bGrant.playerId)], "expiresInMilliseconds": 60_000]
            ).decodePayload(as: ChallengeDetail.self)
            let removed = try await a.request(
                "challenge.issue", gameId: "dash", payload: ["kind": "score", "boardId": "dash.coins", "receivers": [.string(bGrant.playerId)]]
            ).decodePayload(as: ChallengeDetail.self)
            clock.advance(by: .seconds(61))
            #expect(try await operatorClient.request("leaderboard.admin.remove", gameId: "dash", payload: ["boardId": "dash.coins"]).type == .reply)
            let deadline = ContinuousClock.now + .seconds(15)
            var states: [ChallengeState] = []
            while ContinuousClock.now < deadline {
                states = []
                for challenge in [expiring, removed] {
                    let detail = try await a.request("challenge.detail", gameId: "dash", payload: ["challengeId": .string(challenge.challengeId)])
                        .decodePayload(as: ChallengeDetail.self)
                    states.append(detail.receivers.first?.state ?? .pending)
                }
                if states == [.invalid, .invalid] { break }
                try await Task.sleep(for: .milliseconds(100))
            }
            #expect(states == [.invalid, .invalid])
            // An invalid challenge cannot complete any more.
            _ = try await b.request("leaderboard.submit", gameId: "dash", payload: ["boardId": "dash.highscore", "value": 99])
            let later = try await a.request("challenge.detail", gameId: "dash", payload: ["challengeId": .string(expiring.challengeId)])
                .decodePayload(as: ChallengeDetail.self)
            #expect(later.receivers.first?.state == .invalid)
        }
    }
}

@Suite("Challenge scoring")
struct ChallengeScoringTests {
    @Test("only a score submitted after the challenge and better than the issuer's completes it; duplicate receivers are merged")
    func submittedScoreCounts() async throws {
        try await withPodiumStack { stack in
            let a = try await ChallengeFlowTests.player(stack, "setter")
            let b = try await ChallengeFlowTests.player(stack, "veteran")
            defer { ChallengeFlowTests.close([a, b]) }
            try await ChallengeFlowTests.befriend(a, b)
            try await ChallengeFlowTests.submit(b, 2000)  // an old best, above what A will set
            try await ChallengeFlowTests.submit(a, 500)
            let challenge = try await a.client.request(
                "challenge.issue", gameId: "dash",
                payload: ["kind": "score", "boardId": "dash.highscore", "receivers": [.string(b.id), .string(b.id)]]
            ).decodePayload(as: ChallengeDetail.self)
            #expect(challenge.receivers.count == 1)
            try await ChallengeFlowTests.submit(b, 10)
            _ = try await b.client.request(.testNotification(of: "challenge"), gameId: "dash", payload: ["message": "marker"])
            while true {
                let notice = try await b.inbox.next().envelope.decodePayload(as: PlayerNotification.self)
                #expect(notice.kind != "challenge.completed", "a score of 10 completed a challenge to beat 500")
                if notice.message == "marker" { break }
            }
            try await ChallengeFlowTests.submit(b, 501)
            let done = try await ChallengeFlowTests.next(b, kind: "challenge.completed")
            #expect(done.details["challengeId"] == .string(challenge.challengeId))
            let detail = try await a.client.request("challenge.detail", gameId: "dash", payload: ["challengeId": .string(challenge.challengeId)])
                .decodePayload(as: ChallengeDetail.self)
            #expect(detail.receivers.first?.value == 501)
        }
    }
}
