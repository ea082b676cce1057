import Foundation
import PodiumClient
import PodiumMessages
import PodiumRuntime
import PodiumTesting
import Testing

@testable import Gateway

/// Popular reads the gateway answers itself (``PopularReads``): which requests, when a kept page
/// is answered, and what drops it.
@Suite("Popular reads, the rules")
struct PopularReadsRuleTests {
    static let top = PopularReads.key(
        type: LeaderboardRequests.top.type, version: nil, gameId: "dash",
        payload: ["boardId": "dash.highscore", "limit": 10])!
    static let text = Data(#"{"entries":[]}"#.utf8)

    @Test("only leaderboard.top of a game, not friends-only, is kept; every leaderboard change drops pages")
    func whichRequests() {
        let board: JSONValue = ["boardId": "b"]
        #expect(PopularReads.key(type: LeaderboardRequests.top.type, version: nil, gameId: nil, payload: board) == nil)
        #expect(
            PopularReads.key(
                type: LeaderboardRequests.top.type, version: nil, gameId: "g",
                payload: ["boardId": "b", "friendsOnly": true]) == nil)
        #expect(
            PopularReads.key(
                type: LeaderboardRequests.top.type, version: nil, gameId: "g",
                payload: ["boardId": "b", "friendsOnly": false]) != nil)
        #expect(
            PopularReads.key(type: LeaderboardRequests.around.type, version: nil, gameId: "g", payload: board) == nil)
        #expect(
            PopularReads.key(type: LeaderboardRequests.entry.type, version: nil, gameId: "g", payload: board) == nil)
        #expect(PopularReads.key(type: LeaderboardRequests.top.type, version: nil, gameId: "g", payload: "x") == nil)
        for change in [
            LeaderboardRequests.submit.type, LeaderboardRequests.removeScore.type, LeaderboardRequests.reset.type,
            LeaderboardRequests.define.type, LeaderboardRequests.remove.type,
        ] {
            #expect(PopularReads.changesBoards(change), "\(change)")
        }
        for read in [
            LeaderboardRequests.top.type, LeaderboardRequests.entry.type, LeaderboardRequests.around.type,
            LeaderboardRequests.history.type, MessageType.health(of: "leaderboard"), AuthRequests.profile.type,
        ] {
            #expect(!PopularReads.changesBoards(read), "\(read)")
        }
        #expect(PopularReads.game(ofScoreTopic: "score/dash/dash.highscore") == "dash")
        #expect(PopularReads.game(ofScoreTopic: "score//b") == nil)
        #expect(PopularReads.game(ofScoreTopic: "notify/dash/p") == nil)
    }

    @Test("a page is answered while young on both clocks, and not kept if a change came while it was read")
    func lifetimeAndTickets() {
        var reads = PopularReads(lifetime: 1000)
        let ticket = reads.ticket(gameId: "dash", key: Self.top)
        let filled = reads.fill(ticket, text: Self.text, value: [:], now: 100, wallNow: 5000)
        #expect(filled)
        #expect(reads.page(gameId: "dash", key: Self.top, now: 1099, wallNow: 5999)?.text == Self.text)
        #expect(
            reads.page(gameId: "dash", key: Self.top, now: 1100, wallNow: 5100) == nil, "old on the monotonic clock")
        #expect(reads.page(gameId: "dash", key: Self.top, now: 200, wallNow: 6000) == nil, "a wall clock moved on")
        #expect(reads.page(gameId: "dash", key: Self.top, now: 200, wallNow: 4999) == nil, "a wall clock moved back")
        #expect(reads.page(gameId: "other", key: Self.top, now: 200, wallNow: 5000) == nil)

        // A read forwarded before a change is not kept when its reply comes after it.
        let before = reads.ticket(gameId: "dash", key: Self.top)
        reads.invalidate(gameId: "dash")
        #expect(reads.page(gameId: "dash", key: Self.top, now: 200, wallNow: 5000) == nil, "the change dropped it")
        let late = reads.fill(before, text: Self.text, value: [:], now: 300, wallNow: 5000)
        #expect(!late)
        #expect(reads.count == 0)
        // Other games keep theirs.
        let other = reads.ticket(gameId: "other", key: Self.top)
        reads.invalidate(gameId: "dash")
        let kept = reads.fill(other, text: Self.text, value: [:], now: 300, wallNow: 5000)
        #expect(kept)
        #expect(reads.count == 1)
    }

    @Test("past its capacity the cache starts again")
    func capacity() {
        var reads = PopularReads(lifetime: 1000, capacity: 2)
        for limit in 1...3 {
            let key = PopularReads.key(
                type: LeaderboardRequests.top.type, version: nil, gameId: "g",
                payload: ["boardId": "b", "limit": .integer(Int64(limit))])!
            reads.fill(reads.ticket(gameId: "g", key: key), text: Self.text, value: [:], now: 0, wallNow: 0)
        }
        #expect(reads.count == 1)
        // And past its bytes: many large pages cannot pile up.
        var small = PopularReads(lifetime: 1000, capacityBytes: 100)
        let big = Data(repeating: UInt8(ascii: " "), count: 60)
        for limit in 1...2 {
            let key = PopularReads.key(
                type: LeaderboardRequests.top.type, version: nil, gameId: "g",
                payload: ["boardId": "b", "limit": .integer(Int64(limit))])!
            small.fill(small.ticket(gameId: "g", key: key), text: big, value: [:], now: 0, wallNow: 0)
        }
        #expect(small.count == 1 && small.bytes == 60)
        let huge = small.fill(
            small.ticket(gameId: "g", key: Self.top), text: Data(count: 101), value: [:], now: 0, wallNow: 0)
        #expect(!huge, "a page larger than the whole budget is not kept")
        small.invalidate(gameId: "g")
        #expect(small.count == 0 && small.bytes == 0)
    }
}

/// The same, through real gateways and services: kept pages answer, an acknowledged score is in
/// the next read through the same gateway, a score through another gateway reaches this one's
/// pages over the bus, and the setting turns it off.
@Suite("Popular reads through the stack", .timeLimit(.minutes(2)))
struct PopularReadsStackTests {
    static let serverKey = String(repeating: "k", count: 40)
    static let query = BoardQuery(boardId: "dash.highscore", limit: 10)

    static func submit(_ client: TestClient, _ player: String, _ value: Int64) async throws {
        _ = try await client.call(
            LeaderboardRequests.submit, ScoreSubmission(boardId: "dash.highscore", value: value), gameId: "dash",
            playerId: player)
    }

    static func top(_ client: TestClient) async throws -> [Int64] {
        try await client.call(LeaderboardRequests.top, query, gameId: "dash", playerId: "reader").entries.map(\.value)
    }

    @Test(
        "a kept page answers; an acknowledged score is in the next read; a score through another gateway drops the page"
    )
    func keptAndDropped() async throws {
        // Pages live a minute here, so only a change can make a read fresh.
        let options = PodiumTestStack.Options(
            serverKeys: ["dash": Self.serverKey], gateways: 2, readCacheLifetime: .seconds(60))
        try await withPodiumStack(options) { stack in
            let one = try stack.client(gateway: 0)
            let two = try stack.client(gateway: 1)
            defer {
                Task {
                    await one.close()
                    await two.close()
                }
            }
            one.use(.serverKey(Self.serverKey))
            two.use(.serverKey(Self.serverKey))
            let cache = try #require(stack.gateways[0].pipeline.readCache)
            try await Self.submit(one, "ann", 100)
            // Kept once the score's own bus message (which drops the game's pages) has come by.
            let kept = await eventually(within: .seconds(15)) {
                (try? await Self.top(one)) == [100] && cache.pageCount == 1
            }
            #expect(kept, "the reply was kept")
            #expect(try await Self.top(one) == [100])
            // Read your writes: the acknowledgement dropped the page before it was sent.
            try await Self.submit(one, "bob", 300)
            #expect(cache.pageCount == 0)
            #expect(try await Self.top(one) == [300, 100])
            // A score acknowledged by the other gateway reaches this one's page through the bus.
            try await Self.submit(two, "cy", 200)
            let fresh = await eventually(within: .seconds(15)) { (try? await Self.top(one)) == [300, 200, 100] }
            #expect(fresh, "the score message from the bus dropped the page")
        }
    }

    @Test("with the cache off every read goes to the service, and reads stay right")
    func off() async throws {
        let options = PodiumTestStack.Options(serverKeys: ["dash": Self.serverKey], readCacheLifetime: nil)
        try await withPodiumStack(options) { stack in
            #expect(stack.gateway.pipeline.readCache == nil)
            let client = try stack.client()
            defer { Task { await client.close() } }
            client.use(.serverKey(Self.serverKey))
            try await Self.submit(client, "ann", 5)
            #expect(try await Self.top(client) == [5])
            try await Self.submit(client, "bob", 7)
            #expect(try await Self.top(client) == [7, 5])
        }
    }
}
