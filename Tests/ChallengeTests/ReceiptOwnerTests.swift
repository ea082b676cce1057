import Foundation
import PodiumClient
import PodiumMessages
import PodiumTesting
import Testing

/// `receipt.get` with the request's type asks only the one place that keeps that type's
/// receipts: a challenge's receipt is found while the leaderboard service is down, which the
/// untyped lookup (asking every service in turn) cannot do.
@Suite("Receipts by request type")
struct ReceiptOwnerTests {
    @Test(
        "with its type, a challenge.issue receipt is found while the leaderboard is down; without it, service_unavailable"
    )
    func challengeReceiptWithoutTheLeaderboard() async throws {
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("podium-receipt-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: data) }
        let auth = PodiumTestStack.testAuthConfiguration
        let issued: (grant: SessionGrant, challengeId: String) = try await withPodiumStack(
            PodiumTestStack.Options(auth: auth, dataDirectory: data)
        ) { stack in
            let a = try await ChallengeFlowTests.player(stack, "ann", game: "whackacac")
            let b = try await ChallengeFlowTests.player(stack, "ben", game: "whackacac")
            defer { ChallengeFlowTests.close([a, b]) }
            try await ChallengeFlowTests.befriend(a, b)
            _ = try await a.client.call(
                GatewayRequests.publish, GameEvent(name: "cactus.hit", attributes: ["matchId": "m1"]),
                gameId: "whackacac")
            let issue = ChallengeIssue(
                kind: .achievement, achievementId: "com.dragonforged.whackacac.killone", receivers: [b.id])
            let deadline = ContinuousClock.now + .seconds(10)
            while ContinuousClock.now < deadline {
                let reply = try await a.client.exchange(
                    ChallengeRequests.issue, issue, gameId: "whackacac", id: "dare-1")
                if reply.isSuccess { return (a.grant, try reply.value().challengeId) }
                try await Task.sleep(for: .milliseconds(50))
            }
            throw TestStackError("the challenge was never issued")
        }

        // The same data, without the leaderboard service (expected, so asking it is an error).
        let services = PodiumTestStack.services(auth: auth).filter { $0.name != "leaderboard" }
        let stack = try await PodiumTestStack.startWithoutWaiting(
            PodiumTestStack.Options(
                services: services, expectedServices: ["auth", "leaderboard", "achievement", "challenge"],
                requestTimeout: .seconds(2), auth: auth, dataDirectory: data))
        defer { Task { await stack.shutdown() } }
        let client = try stack.client()
        client.use(.token(issued.grant.sessionToken))
        defer { Task { await client.close() } }
        func receipt(type: MessageType?) async throws -> PodiumReply<RequestReceipt> {
            try await client.exchange(
                GatewayRequests.receipt, ReceiptQuery(id: "dare-1", type: type?.rawValue), gameId: "whackacac")
        }
        var typed: RequestReceipt?
        let deadline = ContinuousClock.now + .seconds(20)
        while ContinuousClock.now < deadline {
            let reply = try await receipt(type: ChallengeRequests.issue.type)
            if reply.isSuccess {
                typed = try reply.value()
                break
            }
            try await Task.sleep(for: .milliseconds(100))  // the challenge service is still connecting
        }
        let found = try #require(typed)
        #expect(found.found && found.type == ChallengeRequests.issue.type.rawValue)
        let stored = try WireCodec.convert(try #require(found.reply), to: ChallengeDetail.self)
        #expect(stored.challengeId == issued.challengeId)

        let untyped = try await receipt(type: nil)
        #expect(
            untyped.errorCode == .serviceUnavailable, "asking every keeper in turn stops at the missing leaderboard")

        let logOnly = try await receipt(type: GatewayRequests.publish.type)
        #expect(try logOnly.value().found == false, "the event log has no such id")

        let noReceipts = try await receipt(type: AuthRequests.login.type)
        #expect(noReceipts.errorCode == .invalidField)
        let garbage = try await receipt(type: "leaderboardx")
        #expect(garbage.errorCode == .invalidField)
    }
}
