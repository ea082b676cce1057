import Foundation
import PodiumClient
import PodiumMessages
import PodiumRuntime
import PodiumTesting
import Testing

/// Several instances of every service sharing a PostgreSQL database: one owns the data (its
/// lease), the others stand by; the owner's loss hands over to a standby, which reloads what it
/// keeps in memory, and nothing acknowledged is lost or applied twice. The leaderboard's boards
/// are split into partitions: both of its instances serve at once, each its own boards.
@Suite("Several instances of each service")
struct ServiceInstancesTests {
    static let hit = GameEvent(name: "cactus.hit", attributes: ["matchId": "m1"])

    /// Sends a request until it is answered by a serving instance (the same id each time).
    static func served<Payload, Reply>(
        _ client: TestClient, _ definition: RequestDefinition<Payload, Reply>, _ payload: Payload,
        gameId: String? = nil,
        id: String = UUID().uuidString
    ) async throws -> PodiumReply<Reply> {
        try await withDeadline(.seconds(20)) {
            while true {
                let reply = try await client.exchange(definition, payload, gameId: gameId, id: id)
                let code = reply.errorCode
                guard code == .serviceUnavailable || code == .serviceTimeout else { return reply }
                try await Task.sleep(for: .milliseconds(100))
            }
        }
    }

    /// The player's steps on "100 Whacks" once they reach `target` (asked of whichever instance serves).
    static func steps(_ client: TestClient, reaching target: Int64) async throws -> Int64? {
        try await withDeadline(.seconds(20)) {
            while true {
                let reply = try await served(client, AchievementRequests.list, EmptyPayload(), gameId: "whackacac")
                let steps = (try? reply.value())?.status("100whacks")?.steps
                if let steps, steps >= target { return steps }
                try await Task.sleep(for: .milliseconds(50))
            }
        }
    }

    /// Whether the service comes to have exactly one holder of partition 0 within 15 s.
    static func settles(_ stack: PodiumTestStack, _ service: String) async throws -> Bool {
        try await withDeadline(.seconds(15)) {
            while owners(stack, service).count != 1 { try await Task.sleep(for: .milliseconds(100)) }
            return true
        }
    }

    static func owners(_ stack: PodiumTestStack, _ service: String) -> [ServiceRuntime] {
        stack.services.filter { $0.definition.name == service && $0.ownership.isOwner }
    }

    @Test(
        "two instances of every service: the leaderboard's split between them, one owner of the others; the owner stops and the other instance takes over with the data",
        .enabled(if: PodiumTestStack.storageKind == "postgresql", "leases live in PostgreSQL"))
    func handOver() async throws {
        let admin = String(repeating: "a", count: 40)
        try await withPodiumStack(.init(adminKey: admin, instances: 2, leaseMilliseconds: 3000)) { stack in
            // Each service settles on exactly one owner (a joining instance may take over once).
            _ = try await withDeadline(.seconds(15)) {
                while ["auth", "leaderboard", "achievement", "challenge"].contains(where: {
                    Self.owners(stack, $0).count != 1
                }) {
                    try await Task.sleep(for: .milliseconds(100))
                }
                return true
            }
            try await stack.waitUntilReady()
            try await stack.waitUntilSettled()
            let (amy, _) = try await stack.player("amy")
            let (bea, _) = try await stack.player("bea")
            defer {
                Task {
                    await amy.close()
                    await bea.close()
                }
            }
            let first = try await Self.served(
                amy, LeaderboardRequests.submit, ScoreSubmission(boardId: "dash.highscore", value: 100), gameId: "dash",
                id: "amy-1")
            #expect(first.type == .reply)
            for index in 1...3 {
                #expect(
                    try await Self.served(
                        amy, GatewayRequests.publish, Self.hit, gameId: "whackacac", id: "hit-\(index)"
                    ).type == .reply)
            }
            #expect(try await Self.steps(amy, reaching: 3) == 3)

            // The leaderboard's 16 partitions are split 8 and 8 (the joining instance took the
            // higher half within a round); every board's requests reach the instance that owns it:
            // sent once, no retries, each is answered (a misrouted one would be refused).
            let leaderboards = stack.services.filter { $0.definition.name == "leaderboard" }
            _ = try await withDeadline(.seconds(15)) {
                while leaderboards.map({ $0.ownership.served.count }) != [8, 8] {
                    try await Task.sleep(for: .milliseconds(100))
                }
                return true
            }
            let halves = leaderboards.map { Set($0.ownership.partitions ?? []) }
            #expect(halves[0].isDisjoint(with: halves[1]) && halves[0].union(halves[1]) == Set(0..<16))
            let operatorClient = try TestClient(endpoint: stack.endpoints.requests)
            operatorClient.use(.adminKey(admin))
            defer { Task { await operatorClient.close() } }
            // An operator's new board (dash.stars: partition 1) goes to its owner; a list of the
            // game's boards, answered by either instance, shows it.
            let stars = LeaderboardDefinition(id: "dash.stars", title: "Stars")
            #expect(
                try await operatorClient.exchange(
                    LeaderboardRequests.define, LeaderboardDefinitionChange(definition: stars), gameId: "dash"
                ).type == .reply)
            for _ in 1...2 {
                let boards = try await amy.exchange(LeaderboardRequests.boards, EmptyPayload(), gameId: "dash").value()
                #expect(boards.leaderboards.map(\.id).contains("dash.stars"))
            }
            for (index, board) in ["dash.highscore", "dash.fastest", "dash.coins", "dash.ranked", "dash.stars"]
                .enumerated() where board != "dash.ranked"
            {
                let reply = try await amy.exchange(
                    LeaderboardRequests.submit, ScoreSubmission(boardId: board, value: 10 + Int64(index)),
                    gameId: "dash")
                #expect(reply.type == .reply, "\(board): \(String(describing: reply.errorCode))")
            }

            // The owner of partition 0 (and of dash.coins and dash.stars) and the achievement
            // service's owner stop; the other instances take over what they owned.
            let leaderboardOwner = try #require(Self.owners(stack, "leaderboard").first)
            let standby = try #require(leaderboards.first { $0 !== leaderboardOwner })
            let achievementOwner = try #require(Self.owners(stack, "achievement").first)
            await stack.stopService(instance: leaderboardOwner.settings.instanceID)
            await stack.stopService(instance: achievementOwner.settings.instanceID)
            let second = try await Self.served(
                bea, LeaderboardRequests.submit, ScoreSubmission(boardId: "dash.highscore", value: 250), gameId: "dash",
                id: "bea-1")
            #expect(second.type == .reply)
            // Its standings came from the store: the scores the old owner stored are there.
            for board in ["dash.coins", "dash.stars"] {
                let entry = try await Self.served(
                    amy, LeaderboardRequests.entry, BoardQuery(boardId: board), gameId: "dash"
                ).value()
                #expect(entry.entry?.value != nil, "\(board) was loaded by the instance that took it over")
            }
            #expect(standby.ownership.isOwner, "the other instance owns every partition now")
            #expect(standby.ownership.partitions == Array(0..<16))
            let top = try await Self.served(
                amy, LeaderboardRequests.top, BoardQuery(boardId: "dash.highscore"), gameId: "dash"
            ).value()
            #expect(top.entries.map(\.value) == [250, 100])
            // A resend of the first submission is answered from the shared receipts, not applied again.
            let resent = try await Self.served(
                amy, LeaderboardRequests.submit, ScoreSubmission(boardId: "dash.highscore", value: 100), gameId: "dash",
                id: "amy-1")
            #expect(try resent.value().duplicate == true)
            // Events after the hand-over are applied once, by the new achievement owner.
            for index in 4...5 {
                #expect(
                    try await Self.served(
                        amy, GatewayRequests.publish, Self.hit, gameId: "whackacac", id: "hit-\(index)"
                    ).type == .reply)
            }
            #expect(try await Self.steps(amy, reaching: 5) == 5)
            // Amy's partition may have been the other instance's all along: partition 0 (and the
            // service-wide work) moves once the stopped owner's lease is let go or expires.
            #expect(try await Self.settles(stack, "achievement"))

            // An operator's challenge definitions, changed at the owner, are the standby's when it takes over.
            let lap = ChallengeDefinition(
                id: "dash.lap", title: "Lap", details: "Best lap.", leaderboardId: "dash.fastest", durations: [600_000])
            #expect(
                try await Self.served(
                    operatorClient, ChallengeRequests.define, ChallengeDefinitionChange(definition: lap), gameId: "dash"
                ).type
                    == .reply)
            #expect(
                try await Self.served(
                    operatorClient, ChallengeRequests.remove, ChallengeDefinitionTarget(definitionId: "dash.once"),
                    gameId: "dash"
                ).type == .reply)
            let challengeOwner = try #require(Self.owners(stack, "challenge").first)
            await stack.stopService(instance: challengeOwner.settings.instanceID)
            let listed = try await Self.served(
                operatorClient, ChallengeRequests.definitions, EmptyPayload(), gameId: "dash"
            ).value()
            #expect(listed.definitions.map(\.id) == ["dash.sprint", "dash.secret", "dash.lap"])
            #expect(try await Self.settles(stack, "challenge"))
        }
    }

    @Test(
        "achievements are split by player over two instances: each applies its players' events once, and the survivor goes on from each partition's position",
        .enabled(if: PodiumTestStack.storageKind == "postgresql", "leases live in PostgreSQL"))
    func achievementConsumerGroup() async throws {
        try await withPodiumStack(.init(instances: 2, leaseMilliseconds: 3000)) { stack in
            let instances = stack.services.filter { $0.definition.name == "achievement" }
            try await stack.waitUntilReady()
            try await stack.waitUntilSettled()
            let map = PartitionMap(partitions: 16)
            // Players until each instance has some (their partitions come from their ids).
            var players: [(TestClient, String)] = []
            var covered: Set<Int> = []
            while covered.count < 2 || players.count < 4 {
                let (client, grant) = try await stack.player("player\(players.count)")
                let partition = map.partition(of: PartitionKey.player(gameId: "whackacac", playerId: grant.playerId))
                covered.insert(instances.firstIndex { $0.ownership.serves(partition) } ?? -1)
                players.append((client, grant.playerId))
                #expect(players.count < 40, "players spread over both instances")
            }
            let everyone = players
            defer { Task { for (client, _) in everyone { await client.close() } } }
            for (index, (client, _)) in players.enumerated() {
                for hit in 1...3 {
                    #expect(
                        try await Self.served(
                            client, GatewayRequests.publish, Self.hit, gameId: "whackacac", id: "h\(index)-\(hit)"
                        ).type == .reply)
                }
            }
            for (client, _) in players { #expect(try await Self.steps(client, reaching: 3) == 3) }
            // Each instance applied the events of its own players: each partition's position
            // moved on the instance that serves it, on both.
            let mine = instances.map { instance in
                (instance.streamStatus(StreamName.events)?.partitions ?? [:]).filter { $0.value > 0 }.keys.compactMap {
                    Int($0)
                }
            }
            for (index, partitions) in mine.enumerated() {
                #expect(!partitions.isEmpty, "instance \(index) applied events for its players")
                #expect(partitions.allSatisfy { instances[index].ownership.serves($0) })
            }

            // One instance stops: the other takes its partitions and goes on from their positions
            // (applying the earlier events again would count them twice).
            await stack.stopService(instance: instances[0].settings.instanceID)
            for (index, (client, _)) in players.enumerated() {
                for hit in 4...5 {
                    #expect(
                        try await Self.served(
                            client, GatewayRequests.publish, Self.hit, gameId: "whackacac", id: "h\(index)-\(hit)"
                        ).type == .reply)
                }
            }
            for (client, _) in players { #expect(try await Self.steps(client, reaching: 5) == 5) }
            #expect(instances[1].ownership.served.count == 16)
        }
    }
}
