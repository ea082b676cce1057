import Foundation
import PodiumClient
import PodiumMessages
import PodiumTesting
import Testing

@testable import Leaderboard

/// Where docs/PROTOCOL.md and the product once disagreed (issue 20, item 7): each answer is
/// pinned here as the documentation now gives it, through the gateway over real sockets.
@Suite("Documented answers")
struct DocumentedAnswersTests {
    static func submit(_ client: TestClient, _ value: Int64, id: String? = nil) async throws -> PodiumReply<
        ScoreReceipt
    > {
        try await client.exchange(
            LeaderboardRequests.submit, ScoreSubmission(boardId: "dash.highscore", value: value), gameId: "dash", id: id
        )
    }

    @Test(
        "11.1: an unknown achievement in a batch and a player's report of a rule-based one name the report's achievementId"
    )
    func reportFields() async throws {
        try await withPodiumStack { stack in
            let (player, _) = try await stack.player("reporter")
            defer { Task { await player.close() } }
            let unknown = try await player.exchange(
                AchievementRequests.report,
                ProgressReportBatch(reports: [
                    ProgressReport(achievementId: "com.example.blackjack.tutorial", steps: 1),
                    ProgressReport(achievementId: "nope", steps: 1),
                ]), gameId: "blackjack")
            #expect(unknown.errorCode == .unknownAchievement)
            #expect(try unknown.errorReply().field == "payload.reports.1.achievementId")
            let ruled = try await player.exchange(
                AchievementRequests.report,
                ProgressReportBatch(reports: [
                    ProgressReport(achievementId: "com.dragonforged.whackacac.killone", percentComplete: 100)
                ]),
                gameId: "whackacac")
            #expect(ruled.errorCode == .forbidden)
            #expect(try ruled.errorReply().field == "payload.reports.0.achievementId")
        }
    }

    @Test("GAME-CONFIG counter: a negative value adds nothing to a running total of values")
    func negativeValueAddsNothing() async throws {
        try await withPodiumStack { stack in
            let (player, _) = try await stack.player("ticker")
            defer { Task { await player.close() } }
            for value in [100, -50, 100] as [Int64] {
                let ack = try await player.exchange(
                    GatewayRequests.publish, GameEvent(name: "tick", value: value), gameId: "whackacac")
                #expect(ack.type == .reply)
            }
            func steps() async throws -> Int64? {
                let list = try await player.call(AchievementRequests.list, gameId: "whackacac")
                return list.achievements.first { $0.id == "com.dragonforged.whackacac.play5Mins" }?.steps
            }
            // With the negative value taken off, the total would stop at 150 and never reach 200.
            var seen: Int64? = nil
            for _ in 0..<100 where seen != 200 {
                seen = try await steps()
                if seen != 200 { try await Task.sleep(for: .milliseconds(100)) }
            }
            #expect(seen == 200)
        }
    }

    @Test("4 and 5.2: a credential that fails its checks is ignored on a public type, and refused on any other")
    func publicTypesIgnoreBadCredentials() async throws {
        let clock = OffsetClock()
        try await withPodiumStack(.init(clock: clock)) { stack in
            let (player, grant) = try await stack.player("expiring")
            defer { Task { await player.close() } }
            clock.advance(by: .seconds(16 * 60))  // past the 15-minute session token
            #expect(try await player.exchange(AuthRequests.profile).errorCode == .tokenExpired)
            #expect(
                try await player.exchange(GatewayRequests.health).type == .reply, "public: the expired token is ignored"
            )
            let refresh = try await player.exchange(
                AuthRequests.refresh, SessionRefresh(refreshToken: grant.refreshToken))
            #expect(refresh.type == .reply)
            let garbage = try TestClient(endpoint: stack.endpoints.requests)
            defer { Task { await garbage.close() } }
            garbage.use(.token("not.a.token"))
            #expect(try await garbage.exchange(GatewayRequests.health).type == .reply)
            #expect(try await garbage.exchange(AuthRequests.profile).errorCode == .invalidToken)
        }
    }

    @Test("10.1, 10.3, 10.4: scopesBeaten narrowest first; around keeps its window at both ends; entry says null")
    func leaderboardAnswers() async throws {
        try await withPodiumStack { stack in
            var players: [TestClient] = []
            for index in 0..<8 { players.append(try await stack.player("ranked\(index)").client) }
            let everyone = players
            defer { Task { for client in everyone { await client.close() } } }
            let first = try await Self.submit(players[0], 800).value()
            #expect(first.scopesBeaten == ["today", "week", "allTime"])
            for index in 1..<8 { _ = try await Self.submit(players[index], Int64(800 - index * 10)) }
            func ranks(_ client: TestClient, radius: Int) async throws -> [Int] {
                try await client.call(
                    LeaderboardRequests.around, BoardQuery(boardId: "dash.highscore", radius: radius), gameId: "dash"
                )
                .entries.map(\.rank)
            }
            #expect(try await ranks(players[0], radius: 2) == [1, 2, 3, 4, 5], "rank 1")
            #expect(try await ranks(players[7], radius: 2) == [4, 5, 6, 7, 8], "the last of 8")
            #expect(try await ranks(players[3], radius: 2) == [2, 3, 4, 5, 6], "the middle")
            #expect(try await ranks(players[3], radius: 10) == Array(1...8), "the whole board")

            let (newcomer, _) = try await stack.player("newcomer")
            defer { Task { await newcomer.close() } }
            let none = try await newcomer.exchange(
                LeaderboardRequests.entry, BoardQuery(boardId: "dash.highscore"), gameId: "dash")
            #expect(none.type == .reply)
            // The wire form itself, not its typed reading: the member is there, and null.
            #expect(none.envelope.payload == .object(["entry": .null]), "the entry is present and null (PROTOCOL.md 3)")
        }
    }

    @Test("14.1: leaderboard.left-top names the submission that pushed the player out")
    func leftTopCorrelation() async throws {
        try await withPodiumStack { stack in
            var players: [TestClient] = []
            for index in 0..<11 { players.append(try await stack.player("climber\(index)").client) }
            let everyone = players
            defer { Task { for client in everyone { await client.close() } } }
            let tenth = players[0]
            let topic = try await tenth.call(GatewayRequests.subscribe, gameId: "dash").topic
            let subscriber = try TestSubscriber(endpoint: stack.endpoints.notifications, topics: [topic])
            defer { Task { await subscriber.close() } }
            _ = try await withDeadline(.seconds(15)) {
                while true {
                    _ = try await tenth.call(
                        ClientRequests.testNotification(of: "leaderboard"), TestNotice(), gameId: "dash")
                    if (try? await subscriber.next(timeout: .milliseconds(300))) != nil { return true }
                }
            }
            _ = try await Self.submit(tenth, 10)
            for index in 1..<10 { _ = try await Self.submit(players[index], Int64(100 + index)) }
            #expect(try await Self.submit(players[10], 500, id: "the-decisive-score").type == .reply)
            var heard: RawEnvelope?
            while heard.map({ (try? $0.decodePayload(as: PlayerNotification.self))?.kind }) != "leaderboard.left-top" {
                heard = try await subscriber.next().envelope
            }
            #expect(heard?.correlationId == "the-decisive-score")
        }
    }

    @Test(
        "10.7: a value a definition field does not take is invalid_field naming it; a wrong JSON type is invalid_shape")
    func enumValues() async throws {
        let admin = String(repeating: "a", count: 40)
        try await withPodiumStack(.init(adminKey: admin)) { stack in
            let operatorClient = try TestClient(endpoint: stack.endpoints.requests)
            operatorClient.use(.adminKey(admin))
            defer { Task { await operatorClient.close() } }
            // Values no typed definition can hold, as hand-built JSON.
            func define(_ extra: [String: JSONValue]) async throws -> RawEnvelope {
                var definition: [String: JSONValue] = ["id": "dash.defined", "title": "Defined"]
                definition.merge(extra) { $1 }
                return try await operatorClient.request(
                    LeaderboardRequests.define.type, gameId: "dash", payload: ["definition": .object(definition)])
            }
            for (field, value) in [("sortOrder", "sideways"), ("submitOperator", "average"), ("format", "roman")] {
                let refused = try await define([field: .string(value)])
                #expect(refused.errorCode == .invalidField, "\(field)")
                #expect(try refused.errorReply().field == "payload.definition.\(field)")
            }
            let wrongType = try await define(["sortOrder": 5])
            #expect(wrongType.errorCode == .invalidShape)
            #expect(try wrongType.errorReply().field == "payload.definition.sortOrder")
            let scope = try await operatorClient.exchange(
                LeaderboardRequests.top, BoardQuery(boardId: "dash.highscore", scope: "fortnight"), gameId: "dash")
            #expect(scope.errorCode == .invalidField, "the same code as a scope")
            #expect(try await define(["sortOrder": "lowerIsBetter"]).type == .reply)
        }
    }

    @Test("8.9: auth.revoke answers the ids of the sessions it ended")
    func revokeNamesSessions() async throws {
        try await withPodiumStack { stack in
            let (player, grant) = try await stack.player("leaver")
            defer { Task { await player.close() } }
            let receipt = try await player.call(AuthRequests.revoke, SessionRevocation(allSessions: true))
            #expect(receipt.revokedSessions == 1 && receipt.sessionIds == [grant.sessionId])
        }
    }

    @Test("the around window's start, from the pure rule")
    func windowStart() {
        #expect(Scoreboard.windowStart(rank: 1, radius: 2, count: 20) == 0)
        #expect(Scoreboard.windowStart(rank: 10, radius: 2, count: 20) == 7)
        #expect(Scoreboard.windowStart(rank: 20, radius: 2, count: 20) == 15)
        #expect(Scoreboard.windowStart(rank: 19, radius: 2, count: 20) == 15)
        #expect(Scoreboard.windowStart(rank: 2, radius: 5, count: 3) == 0)
        #expect(Scoreboard.windowStart(rank: 1, radius: 0, count: 3) == 0)
        #expect(Scoreboard.windowStart(rank: 3, radius: 0, count: 3) == 2)
    }
}
