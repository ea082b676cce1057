import Foundation
import PodiumClient
import PodiumMessages
import PodiumTesting
import Testing
import ZeroMQ

/// Requests routed to services: unavailable, slow, duplicated.
@Suite("Routing to services")
struct RoutingTests {
    /// A stand-in service that announces `slow.echo` and never answers it.
    final class SilentService: Sendable {
        let socket: AsyncSocket

        init(endpoint: String) throws {
            socket = try AsyncSocket(
                context: try ZMQContext(), type: .dealer, name: "silent",
                options: [.routingID(Data("slow-1".utf8)), .lingerMilliseconds(0)], connect: [endpoint])
        }

        func announce() async throws {
            let announcement = ServiceAnnouncement(
                service: "slow", instance: "slow-1", requestTypes: ["slow.echo"], heartbeatIntervalMilliseconds: 60_000)
            try await socket.send([
                try WireCodec.encode(Envelope(type: .serviceAnnouncement, timestamp: 0, payload: announcement))
            ])
        }

        /// The next request the gateway forwarded.
        func nextRequest() async throws -> RawEnvelope {
            let socket = self.socket
            let frames = try await withDeadline(.seconds(10)) { try await socket.receive() }
            return try WireCodec.decode(RawEnvelope.self, from: try #require(frames?.first))
        }
    }

    @Test("a known service that is down gets service_unavailable and health says which")
    func knownServiceDown() async throws {
        let options = PodiumTestStack.Options(
            services: [PodiumTestStack.services()[0]], expectedServices: ["auth", "leaderboard"])
        let stack = try await PodiumTestStack.startWithoutWaiting(options)
        defer { Task { await stack.shutdown() } }
        let client = try TestClient(endpoint: stack.endpoints.requests)
        defer { Task { await client.close() } }
        let reply = try await client.exchange(ServiceRequests.health(of: "leaderboard"))
        #expect(reply.errorCode == .serviceUnavailable)
        let health = try await client.systemHealth()
        #expect(!health.ready)
        #expect(health.services["leaderboard"]?.error?.code == .serviceUnavailable)
    }

    @Test("a service that does not answer in time gets service_timeout, and duplicate ids in flight are refused")
    func timeoutAndDuplicates() async throws {
        let options = PodiumTestStack.Options(
            services: [PodiumTestStack.services()[0]], expectedServices: ["auth"], requestTimeout: .seconds(2),
            adminKey: String(repeating: "a", count: 40))
        try await withPodiumStack(options) { stack in
            let silent = try SilentService(endpoint: stack.endpoints.busServices)
            defer { Task { await silent.socket.close() } }
            try await silent.announce()
            let client = try TestClient(endpoint: stack.endpoints.requests)
            client.use(.adminKey(String(repeating: "a", count: 40)))
            defer { Task { await client.close() } }
            // The announcement travels asynchronously; wait until the gateway lists the service.
            let connected = await eventually {
                let health = try? await client.call(GatewayRequests.gatewayHealthDetails)
                return health?.connectedServices.contains("slow") == true
            }
            try #require(connected)
            try await client.send(
                ClientRequest(
                    type: "slow.echo", id: "slow-1", gameId: "g", payload: ["x": 1],
                    adminKey: String(repeating: "a", count: 40)))
            let first: RawEnvelope? = try await silent.nextRequest()
            let forwarded = try #require(first)
            #expect(forwarded.type == "slow.echo")
            #expect(forwarded.gameId == "g")
            #expect(forwarded.payload["x"] == 1)
            let clientID = try #require(forwarded.correlationId)
            try await client.send(
                ClientRequest(type: "slow.echo", id: clientID, adminKey: String(repeating: "a", count: 40)))
            let duplicate = try await client.nextReply()
            #expect(try duplicate.errorReply().code == .duplicateRequestID)
            #expect(duplicate.correlationId == clientID)
            let timedOut = try await client.nextReply()
            #expect(try timedOut.errorReply().code == .serviceTimeout)
            #expect(timedOut.correlationId == clientID)
        }
    }
}
