import Foundation
import PodiumClient
import PodiumMessages
import PodiumTesting
import PodiumTokens
import Testing
import ZeroMQ

/// One client waiting in the pipeline must not stall the others (issue: a token-cache miss held
/// up every client of the ROUTER while the auth service was asked).
@Suite("ZeroMQ front concurrency")
struct FrontConcurrencyTests {
    /// A stand-in auth service that answers a session check only when told to.
    final class HeldAuth: Sendable {
        let socket: AsyncSocket

        init(endpoint: String) throws {
            socket = try AsyncSocket(
                context: try ZMQContext(), type: .dealer, name: "held-auth",
                options: [.routingID(Data("auth-held".utf8)), .lingerMilliseconds(0)], connect: [endpoint])
        }

        func announce() async throws {
            let announcement = ServiceAnnouncement(
                service: "auth", instance: "auth-held", requestTypes: ["auth.session-check"],
                heartbeatIntervalMilliseconds: 60_000)
            try await socket.send([
                try WireCodec.encode(Envelope(type: .serviceAnnouncement, timestamp: 0, payload: announcement))
            ])
        }

        func nextRequest() async throws -> RawEnvelope {
            let socket = self.socket
            let frames = try await withDeadline(.seconds(10)) { try await socket.receive() }
            return try WireCodec.decode(RawEnvelope.self, from: try #require(frames?.first))
        }

        func answerValid(_ request: RawEnvelope, sessionId: String) async throws {
            let reply = Envelope(
                type: .reply, correlationId: request.id, timestamp: 0,
                payload: SessionStatus(sessionId: sessionId, valid: true))
            try await socket.send([try WireCodec.encode(reply)])
        }
    }

    @Test("while one client's token is being checked, another client is answered")
    func tokenCheckDoesNotStallOthers() async throws {
        let options = PodiumTestStack.Options(services: [], expectedServices: ["auth"], requestTimeout: .seconds(10))
        // No real auth service: the stack is not "ready", so it is started without waiting.
        let stack = try await PodiumTestStack.startWithoutWaiting(options)
        defer { Task { await stack.shutdown() } }
        do {
            let auth = try HeldAuth(endpoint: stack.endpoints.busServices)
            defer { Task { await auth.socket.close() } }
            try await auth.announce()
            let waiting = try TestClient(endpoint: stack.endpoints.requests)
            let other = try TestClient(endpoint: stack.endpoints.requests)
            defer {
                Task {
                    await waiting.close()
                    await other.close()
                }
            }
            let connected = await eventually {
                let health = try? await other.gatewayHealthDetails(
                    adminKey: options.adminKey ?? PodiumTestStack.testAdminKey)
                return health?.connectedServices.contains("auth") == true
            }
            try #require(connected)
            let now = Int64(Date().timeIntervalSince1970 * 1000)
            let token = try await SessionTokens(key: options.auth.tokenKey).issue(
                .session, playerId: "p-held", sessionId: "s-held", tokenId: "t-held", issuedAt: now,
                expiresAt: now + 600_000)
            // The first client's request needs its (new) token checked: the check reaches the
            // held auth service, which does not answer yet.
            try await waiting.send(
                try waiting.client.request(
                    GatewayRequests.subscribe, EmptyPayload(), gameId: "g", id: "held-1", credential: .token(token)))
            let check = try await auth.nextRequest()
            #expect(check.type == "auth.session-check")
            // Meanwhile another client is answered.
            let health = try await other.exchange(GatewayRequests.gatewayHealth)
            #expect(health.type == .reply)
            // Only now does the check come back; the first client's request then completes as a
            // success. (Had it waited for the whole front, the check would have timed out first:
            // the gateway gives a session check at most 2 s.)
            try await auth.answerValid(check, sessionId: "s-held")
            let reply = try await waiting.nextReply()
            #expect(reply.correlationId == "held-1")
            #expect(reply.type == .reply, "\(reply)")
            #expect(try reply.decodePayload(as: NotificationSubscription.self).playerId == "p-held")
        }
    }
}
