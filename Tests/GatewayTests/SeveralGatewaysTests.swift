import Foundation
import Gateway
import PodiumClient
import PodiumMessages
import PodiumRuntime
import PodiumTesting
import Testing
import ZeroMQ

/// Two gateways, each its own bus hub, sharing the gateway's storage (one PostgreSQL schema, or
/// one SQLite file on one host); every service connects to both hubs. Clients use either
/// gateway; one gateway stopping leaves the other and the bus working.
@Suite("Several gateways", .timeLimit(.minutes(3)))
struct SeveralGatewaysTests {
    @Test(
        "either gateway serves; events from both share one gap-free log; notifications reach players on either; one gateway lost, the other carries on"
    )
    func twoGateways() async throws {
        try await withPodiumStack(.init(gateways: 2)) { stack in
            let (ann, annGrant) = try await stack.player("ann.two")
            defer { Task { await ann.close() } }
            // Bob registers and plays through the second gateway.
            let bob = try stack.client(gateway: 1)
            defer { Task { await bob.close() } }
            let bobGrant = try await bob.call(
                AuthRequests.register, Registration(username: "bob.two", password: "correct horse battery"))
            bob.use(.token(bobGrant.sessionToken))

            // Both gateways report every service ready (each service announced itself to both).
            for index in 0..<2 {
                let client = try stack.client(gateway: index)
                defer { Task { await client.close() } }
                let health = try await client.call(GatewayRequests.health)
                #expect(health.ready, "gateway \(index + 1) sees every service")
            }

            // Events through both gateways: one log, numbered without gaps or repeats.
            var sequences: [UInt64] = []
            for round in 0..<5 {
                for (client, name) in [(ann, "ann"), (bob, "bob")] {
                    let matchEnd = GameEvent(
                        name: "match.end", value: Int64(round), attributes: ["matchId": .string("\(name)-\(round)")])
                    sequences.append(try await client.call(GatewayRequests.publish, matchEnd, gameId: "dash").sequence)
                }
            }
            #expect(Set(sequences).count == 10)
            #expect(sequences.max()! - sequences.min()! == 9, "one log, no gaps: \(sequences)")
            // The achievement service (following the log through either gateway) applied all of it.
            let head = sequences.max()!
            let appliedAll = await eventually(within: .seconds(15)) {
                let health = try? await ann.serviceHealth("achievement")
                return (health?.streams?[StreamName.events]?.position ?? 0) >= head
            }
            #expect(appliedAll, "the achievement service applied events from both gateways")

            // A notification reaches each player through the gateway they listen on.
            for (client, grant, index) in [(ann, annGrant, 0), (bob, bobGrant, 1)] {
                let subscription = try await client.call(GatewayRequests.subscribe, gameId: "dash")
                #expect(subscription.playerId == grant.playerId)
                let listener = try TestSubscriber(
                    endpoint: stack.gateways[index].endpoints.notifications, topics: [subscription.topic])
                defer { Task { await listener.close() } }
                let heard = try await withDeadline(.seconds(15)) {
                    while true {
                        _ = try await client.call(
                            ClientRequests.testNotification(of: "challenge"),
                            TestNotice(message: "via gateway \(index + 1)"), gameId: "dash")
                        if let heard = try? await listener.next(timeout: .milliseconds(300)) { return heard }
                    }
                }
                #expect(heard.topic == subscription.topic)
            }

            // The first gateway goes away: the second serves requests that need a service and
            // the bus (an event acknowledged, applied; a score; a notification), and the
            // services' own requests through it (a follower reading the log) still work.
            await stack.stopGateway(0)
            let last = try await bob.call(
                GatewayRequests.publish, GameEvent(name: "match.end", value: 99, attributes: ["matchId": "after"]),
                gameId: "dash")
            let lastSequence = last.sequence
            #expect(lastSequence == head + 1)
            let applied = await eventually(within: .seconds(15)) {
                let health = try? await bob.serviceHealth("achievement")
                return (health?.streams?[StreamName.events]?.position ?? 0) >= lastSequence
            }
            #expect(applied, "the event through the remaining gateway was applied")
            let score = try await bob.exchange(
                LeaderboardRequests.submit, ScoreSubmission(boardId: "dash.highscore", value: 777), gameId: "dash")
            #expect(score.type == .reply)
            let top = try await bob.call(LeaderboardRequests.top, BoardQuery(boardId: "dash.highscore"), gameId: "dash")
            #expect(top.entries.first?.value == 777)
        }
    }

    @Test(
        "a player's rate holds across gateways: what one admitted is taken from the other's bucket within a fraction of a second",
        .enabled(if: PodiumTestStack.storageKind == "postgresql", "the gateways share the counts in PostgreSQL"))
    func sharedPlayerRate() async throws {
        // Four requests, then one every five seconds, for the player, wherever they arrive.
        try await withPodiumStack(.init(playerRateLimit: RateLimit(perSecond: 0.2, burst: 4), gateways: 2)) { stack in
            let (ann, grant) = try await stack.player("ann.rate")
            defer { Task { await ann.close() } }
            let other = try stack.client(gateway: 1)
            defer { Task { await other.close() } }
            other.use(.token(grant.sessionToken))
            var admitted = 0
            while admitted < 8 {
                let reply = try await ann.exchange(LeaderboardRequests.boards, EmptyPayload(), gameId: "dash")
                if reply.errorCode == .rateLimited { break }
                admitted += 1
            }
            #expect(admitted <= 4, "the first gateway's own bucket")
            // Counted per gateway, the second would now allow four more.
            try await Task.sleep(for: .seconds(1))
            let refused = try await other.exchange(LeaderboardRequests.boards, EmptyPayload(), gameId: "dash")
            #expect(
                refused.errorCode == .rateLimited, "the second gateway took the first one's requests from its bucket")
        }
    }
}
