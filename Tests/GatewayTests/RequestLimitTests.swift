import Foundation
import PodiumClient
import PodiumMessages
import PodiumTesting
import Testing
import ZeroMQ

@testable import Gateway

/// The gateway's request limits against a real stack: rates, requests in flight, whole messages.
/// The rates are tiny (one token per 100 s), so that no refill can happen while a test runs and
/// nothing depends on timing.
@Suite("Request limits", .timeLimit(.minutes(2)))
struct RequestLimitTests {
    static func frozen(_ burst: Double) -> RateLimit { RateLimit(perSecond: 0.01, burst: burst) }

    @Test("a connection over its rate gets rate_limited with a retry time; other connections are served")
    func connectionRate() async throws {
        try await withPodiumStack(.init(connectionRateLimit: Self.frozen(5))) { stack in
            let client = try stack.client()
            defer { Task { await client.close() } }
            let ids = (1...8).map { "burst-\($0)" }
            for id in ids {
                try await client.send(try client.client.request(GatewayRequests.gatewayHealth, EmptyPayload(), id: id))
            }
            var replies: [String: RawEnvelope] = [:]
            for _ in ids {
                let reply = try await client.nextReply()
                replies[try #require(reply.correlationId)] = reply
            }
            #expect(Set(replies.keys) == Set(ids))
            let refused = replies.values.filter { $0.type == .error }
            #expect(replies.values.filter { $0.type == .reply }.count == 5)
            #expect(refused.count == 3)
            for reply in refused {
                let error = try reply.errorReply()
                #expect(error.code == .rateLimited)
                #expect((error.retryAfterMilliseconds ?? 0) > 0)
            }
            // Unreadable messages pay too: garbage is refused like any other flood.
            try await client.sendFrames([Data("not json".utf8)])
            #expect(try await client.nextReply().errorReply().code == .rateLimited)
            let other = try stack.client()
            defer { Task { await other.close() } }
            #expect(try await other.exchange(GatewayRequests.gatewayHealth).type == .reply)
        }
    }

    @Test("a player over their rate is refused on every connection, and the refused request changes nothing")
    func playerRate() async throws {
        try await withPodiumStack(.init(playerRateLimit: Self.frozen(3))) { stack in
            let (ann, grant) = try await stack.player("ratelimited")
            defer { Task { await ann.close() } }
            let second = try stack.client()
            second.use(.token(grant.sessionToken))
            defer { Task { await second.close() } }
            func submit(_ client: TestClient, _ value: Int64) async throws -> PodiumReply<ScoreReceipt> {
                try await client.exchange(
                    LeaderboardRequests.submit, ScoreSubmission(boardId: "dash.highscore", value: value), gameId: "dash"
                )
            }
            #expect(try await submit(ann, 10).type == .reply)
            #expect(try await submit(second, 20).type == .reply)
            #expect(try await submit(ann, 30).type == .reply)
            let refused = try #require(try await submit(second, 40).error?.errorReply)
            #expect(refused.code == .rateLimited)
            #expect((refused.retryAfterMilliseconds ?? 0) > 0)
            #expect(try await submit(ann, 50).errorCode == .rateLimited)

            let (bob, _) = try await stack.player("ratelimit-observer")
            defer { Task { await bob.close() } }
            let page = try await bob.call(
                LeaderboardRequests.top, BoardQuery(boardId: "dash.highscore"), gameId: "dash")
            #expect(page.entries.first { $0.playerId == grant.playerId }?.value == 30)
        }
    }

    @Test("one connection cannot hold more than its share of requests in flight")
    func inFlightPerConnection() async throws {
        let adminKey = String(repeating: "a", count: 40)
        let options = PodiumTestStack.Options(
            services: [PodiumTestStack.services()[0]], expectedServices: ["auth"], requestTimeout: .seconds(30),
            adminKey: adminKey, maxInFlightPerConnection: 2)
        try await withPodiumStack(options) { stack in
            let silent = try RoutingTests.SilentService(endpoint: stack.endpoints.busServices)
            defer { Task { await silent.socket.close() } }
            try await silent.announce()
            let client = try stack.client()
            client.use(.adminKey(adminKey))
            defer { Task { await client.close() } }
            let connected = await eventually {
                let health = try? await client.call(GatewayRequests.gatewayHealthDetails)
                return health?.connectedServices.contains("slow") == true
            }
            try #require(connected)
            for id in ["slow-a", "slow-b"] {
                try await client.send(ClientRequest(type: "slow.echo", id: id, adminKey: adminKey))
                #expect(try await silent.nextRequest().type == "slow.echo")
            }
            let third = try await client.request("slow.echo", id: "slow-c")
            #expect(try third.errorReply().code == .overloaded)
            // Another connection has its own share.
            let other = try stack.client()
            other.use(.adminKey(adminKey))
            defer { Task { await other.close() } }
            try await other.send(ClientRequest(type: "slow.echo", id: "slow-d", adminKey: adminKey))
            #expect(try await silent.nextRequest().type == "slow.echo")
        }
    }

    @Test("too many frames, or too many bytes across frames, get an error and the connection keeps working")
    func wholeMessageLimits() async throws {
        try await withPodiumStack(.init(maxMessageBytes: 1024)) { stack in
            let client = try stack.client()
            defer { Task { await client.close() } }
            let request = try WireCodec.encode(ClientRequest(type: .gatewayHealth, id: "after"))
            try await client.sendFrames(Array(repeating: request, count: 1000))
            let frames = try await client.nextReply()
            #expect(try frames.errorReply().code == .wrongFrameCount)
            let half = Data(repeating: UInt8(ascii: " "), count: Int(stack.gateway.settings.hardFrameLimit) / 2 + 1)
            // Each frame is under the per-frame cap (ZMQ_MAXMSGSIZE); together they are over the message cap.
            try await client.sendFrames([half, half])
            #expect(try await client.nextReply().errorReply().code == .messageTooLarge)
            try await client.sendFrames([request])
            #expect(try await client.nextReply().correlationId == "after")
        }
    }
}
