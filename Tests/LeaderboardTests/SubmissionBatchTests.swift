import Foundation
import PodiumMessages
import PodiumRuntime
import Testing

@testable import Leaderboard

/// The rules a store that writes a batch of scores in a few statements (PostgreSQL) decides the
/// batch by, without a database: those of applying the submissions one after another.
@Suite("Submission batch")
struct SubmissionBatchTests {
    /// A "best score" submission of `value` by `player` with request id `id`.
    static func pending(_ player: String, _ value: Int64, id: String?, at time: Int64 = 1_000) -> PendingSubmission {
        let key = id.map {
            RequestKey(
                scope: "dash/\(player)", requestId: $0, fingerprint: "value-\(value)",
                requestType: "leaderboard.submit")
        }
        return PendingSubmission(
            gameId: "dash", boardId: "board", playerId: player, value: value, submittedAt: time, request: key,
            decide: { previous in
                if value < 0 { throw ErrorReply(code: .scoreOutOfBounds, message: "negative") }
                guard let previous else {
                    return StoredEntry(value: value, context: nil, metadata: nil, submittedAt: time)
                }
                return value > previous.value
                    ? StoredEntry(value: value, context: nil, metadata: nil, submittedAt: time) : nil
            },
            journal: { previous, current in
                let receipt = ScoreReceipt(
                    boardId: "board", playerId: player, improved: current != previous, previousValue: previous?.value,
                    entry: LeaderboardEntry(
                        playerId: player, value: current?.value ?? value, rank: 1, context: nil, metadata: nil,
                        submittedAt: time))
                return SubmissionJournal(
                    reply: try WireCodec.jsonValue(receipt),
                    accepted: (
                        Topic(rawValue: "score/dash/board"),
                        Envelope(type: .scoreAccepted, timestamp: time, payload: receipt)
                    ),
                    leftTop: nil)
            })
    }

    static func summary(_ outcomes: [Result<SubmissionOutcome, ErrorReply>]) -> [String] {
        outcomes.map { outcome in
            switch outcome {
            case .success(.applied(let previous, let current, let version, _)):
                "applied \(previous?.value ?? -1)->\(current?.value ?? -1) v\(version)"
            case .success(.replayed(let reply)):
                if case .integer(let previous)? = reply.objectValue?["previousValue"] {
                    "replayed \(previous)"
                } else {
                    "replayed nil"
                }
            case .failure(let refusal): "refused \(refusal.code.rawValue)"
            }
        }
    }

    @Test(
        "a batch sees its own earlier changes, upserts each entry once, replays resends and stored receipts, refuses alone"
    )
    func rules() throws {
        let stored = try WireCodec.jsonValue(["previousValue": 7])
        let batch = [
            Self.pending("ann", 10, id: "a1"),
            Self.pending("ann", 30, id: "a2"),  // sees 10, raises it
            Self.pending("ann", 20, id: "a3"),  // sees 30, keeps it (a history row only)
            Self.pending("ann", 30, id: "a1"),  // another payload under a1: id_reused
            Self.pending("ann", 10, id: "a1"),  // a resend of a1 in the batch: replayed
            Self.pending("bob", -5, id: "b1"),  // refused by decide, writes nothing
            Self.pending("bob", 5, id: "old"),  // stored before: replayed
            Self.pending("cyd", 3, id: nil),
        ]
        let current = [
            SubmissionBatch.EntryKey(gameId: "dash", boardId: "board", playerId: "bob"): StoredEntry(
                value: 1, context: nil, metadata: nil, submittedAt: 1)
        ]
        let plan = try SubmissionBatch(batch, storedReceipts: [6: ("value-5", stored)], current: current)
        #expect(plan.entries.map { "\($0.key.playerId)=\($0.entry.value)" } == ["ann=30", "cyd=3"])
        #expect(plan.scores.map { "\($0.key.playerId):\($0.value)" } == ["ann:10", "ann:30", "ann:20", "cyd:3"])
        #expect(plan.writes.receipts.map(\.key.requestId) == ["a1", "a2", "a3"])
        #expect(plan.writes.outbox.count == 4)
        #expect(
            Self.summary(plan.outcomes(versions: [11, 12, 13, 14])) == [
                "applied -1->10 v11", "applied 10->30 v12", "applied 30->30 v13", "refused id_reused",
                "replayed nil", "refused score_out_of_bounds", "replayed 7", "applied -1->3 v14",
            ])
        #expect(SubmissionBatch.keys(of: batch).map(\.playerId) == ["ann", "bob", "cyd"])
        #expect(SubmissionBatch.requests(of: batch).map(\.index) == [0, 1, 2, 3, 4, 5, 6])
    }

    @Test("the score-accepted message written from the receipt's value is byte for byte the typed message")
    func acceptedMessageBytes() throws {
        var receipt = ScoreReceipt(
            boardId: "board", playerId: "ann", improved: true, previousValue: nil,
            entry: LeaderboardEntry(
                playerId: "ann", value: 7, rank: 2, context: 3, metadata: ["skin": "gold \"x\"/ü"], submittedAt: 9),
            scopesBeaten: ["allTime", "today"], submittedValue: 7)
        for (challengeId, previous, pushed) in [(nil, nil, nil), ("c-1", 5, "bob"), (nil, 6, "a \"quoted\" id")]
            as [(String?, Int64?, String?)]
        {
            receipt.challengeId = challengeId
            receipt.previousValue = previous
            var message = receipt
            message.pushedOutOfTop = pushed
            let typed = Envelope(
                type: .scoreAccepted, correlationId: "r-1", gameId: "dash", playerId: "ann", timestamp: 11,
                payload: message)
            let journal = SubmissionJournal(
                reply: try WireCodec.jsonValue(receipt), accepted: (Topic(rawValue: "score/dash/board"), typed),
                leftTop: pushed,
                acceptedPayload: Scoreboard.acceptedPayload(
                    reply: try WireCodec.jsonValue(receipt), pushedOutOfTop: pushed))
            #expect(try WireCodec.encode(try #require(journal.acceptedForOutbox)) == (try WireCodec.encode(typed)))
        }
    }
}
