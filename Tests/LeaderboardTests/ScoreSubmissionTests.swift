import Foundation
import PodiumClient
import PodiumMessages
import PodiumTesting
import Testing

/// Score submissions through the gateway into the leaderboard service's SQLite store.
@Suite("Score submission")
struct ScoreSubmissionTests {
    func submit(_ client: TestClient, _ board: String, _ value: Int64, metadata: [String: JSONValue]? = nil)
        async throws -> ScoreReceipt
    {
        try await client.call(
            LeaderboardRequests.submit, ScoreSubmission(boardId: board, value: value, metadata: metadata),
            gameId: "dash")
    }

    /// A submission no typed payload can express (a value or metadata of the wrong JSON type).
    func submitMalformed(_ client: TestClient, _ board: String, _ value: JSONValue, extra: [String: JSONValue] = [:])
        async throws -> RawEnvelope
    {
        var payload: [String: JSONValue] = ["boardId": .string(board), "value": value]
        payload.merge(extra) { _, new in new }
        return try await client.request(LeaderboardRequests.submit.type, gameId: "dash", payload: .object(payload))
    }

    func error(_ reply: RawEnvelope) throws -> ErrorCode? {
        reply.type == .error ? try reply.decodePayload(as: ErrorReply.self).code : nil
    }

    @Test(
        "the stored receipt has the rank the submission got: a resend and receipt.get return it, ties and own entries included"
    )
    func storedRank() async throws {
        try await withPodiumStack { stack in
            let (ann, _) = try await stack.player("ranked.ann")
            let (bob, _) = try await stack.player("ranked.bob")
            let (cyd, _) = try await stack.player("ranked.cyd")
            defer {
                Task {
                    await ann.close()
                    await bob.close()
                    await cyd.close()
                }
            }
            func submit(_ client: TestClient, _ value: Int64, id: String) async throws -> ScoreReceipt {
                try await client.call(
                    LeaderboardRequests.submit, ScoreSubmission(boardId: "dash.highscore", value: value),
                    gameId: "dash", id: id)
            }
            _ = try await submit(ann, 300, id: "a1")
            _ = try await submit(bob, 100, id: "b1")
            let tie = try await submit(cyd, 100, id: "c1")
            #expect(tie.entry.rank == 3, "the later of two equal scores ranks lower")
            let raised = try await submit(bob, 200, id: "b2")
            #expect(raised.entry.rank == 2, "the player's own old entry is not counted above the new one")
            let kept = try await submit(ann, 50, id: "a2")
            #expect(!kept.improved && kept.entry.rank == 1)
            // Later changes do not alter what a receipt says about its own submission.
            _ = try await submit(cyd, 400, id: "c2")
            for (client, id, original) in [(bob, "b2", raised), (ann, "a2", kept), (cyd, "c1", tie)] {
                let again = try await client.call(
                    LeaderboardRequests.submit,
                    ScoreSubmission(boardId: "dash.highscore", value: original.submittedValue ?? 0), gameId: "dash",
                    id: id)
                #expect(
                    again.duplicate == true && again.entry.rank == original.entry.rank
                        && again.entry.value == original.entry.value)
                let receipt = try await client.call(GatewayRequests.receipt, ReceiptQuery(id: id), gameId: "dash")
                let stored = try WireCodec.convert(try #require(receipt.reply), to: ScoreReceipt.self)
                #expect(stored.entry.rank == original.entry.rank)
            }
        }
    }

    @Test("best scores are kept, ranks follow the sort order, and ties go to the earlier submission")
    func bestAndRanks() async throws {
        let clock = OffsetClock()
        try await withPodiumStack(.init(clock: clock)) { stack in
            let (ann, annGrant) = try await stack.player("ann")
            let (bob, bobGrant) = try await stack.player("bob")
            let (cy, _) = try await stack.player("cyd")
            defer {
                Task {
                    await ann.close()
                    await bob.close()
                    await cy.close()
                }
            }
            let first = try await submit(ann, "dash.highscore", 100)
            #expect(first.improved)
            #expect(first.previousValue == nil)
            #expect(first.entry.rank == 1)
            #expect(first.playerId == annGrant.playerId)
            clock.advance(by: .seconds(1))
            let worse = try await submit(ann, "dash.highscore", 50)
            #expect(!worse.improved)
            #expect(worse.entry.value == 100)
            let tie = try await submit(bob, "dash.highscore", 100)
            #expect(tie.entry.rank == 2, "the earlier of two equal scores ranks higher")
            let better = try await submit(cy, "dash.highscore", 150)
            #expect(better.entry.rank == 1)
            let top = try await ann.call(
                LeaderboardRequests.top, BoardQuery(boardId: "dash.highscore", limit: 10), gameId: "dash")
            let rows = top.entries
            #expect(rows.map(\.rank) == [1, 2, 3])
            try #require(rows.count == 3)
            #expect(rows[1].playerId == annGrant.playerId)
            #expect(rows[2].playerId == bobGrant.playerId)
            // Lower is better on the fastest board.
            _ = try await submit(ann, "dash.fastest", 9000)
            let faster = try await submit(bob, "dash.fastest", 8000)
            #expect(faster.entry.rank == 1)
        }
    }

    @Test("increment boards add up, and overflowing totals are refused")
    func increment() async throws {
        try await withPodiumStack { stack in
            let (player, _) = try await stack.player("collector")
            defer { Task { await player.close() } }
            _ = try await submit(player, "dash.coins", 40)
            let total = try await submit(player, "dash.coins", 2)
            #expect(total.entry.value == 42)
            #expect(total.previousValue == 40)
            #expect(try await errorCode { try await submit(player, "dash.coins", Int64.max) } == .scoreOutOfBounds)
            let unchanged = try await player.call(
                LeaderboardRequests.entry, BoardQuery(boardId: "dash.coins"), gameId: "dash")
            #expect(unchanged.entry?.value == 42)
        }
    }

    @Test("bad submissions are refused with their codes and change nothing")
    func badSubmissions() async throws {
        try await withPodiumStack { stack in
            let (player, _) = try await stack.player("fumbler")
            defer { Task { await player.close() } }
            #expect(
                try await errorCode {
                    try await player.call(
                        LeaderboardRequests.submit, ScoreSubmission(boardId: "dash.highscore", value: 1), gameId: "nope"
                    )
                } == .unknownGame)
            #expect(try await errorCode { try await submit(player, "dash.nope", 1) } == .unknownBoard)
            #expect(try await errorCode { try await submit(player, "dash.highscore", -1) } == .scoreOutOfBounds)
            #expect(try await errorCode { try await submit(player, "dash.highscore", 1_000_001) } == .scoreOutOfBounds)
            // Wrong JSON types, which no typed payload can carry.
            #expect(try error(await submitMalformed(player, "dash.highscore", 1.5)) == .invalidShape)
            #expect(try error(await submitMalformed(player, "dash.highscore", "12")) == .invalidShape)
            #expect(
                try error(await submitMalformed(player, "dash.highscore", 5, extra: ["metadata": "not an object"]))
                    == .invalidShape)
            let big: [String: JSONValue] = ["blob": .string(String(repeating: "x", count: 2000))]
            #expect(
                try await errorCode { try await submit(player, "dash.highscore", 5, metadata: big) } == .invalidField)
            #expect(
                try await errorCode {
                    try await player.call(
                        LeaderboardRequests.top, BoardQuery(boardId: "dash.highscore", limit: 500), gameId: "dash")
                } == .invalidField)
            let empty = try await player.call(
                LeaderboardRequests.entry, BoardQuery(boardId: "dash.highscore"), gameId: "dash")
            #expect(empty.entry == nil, "no refused score was stored")
        }
    }
}
