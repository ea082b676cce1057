import Foundation
import PodiumClient
import PodiumMessages
import PodiumTesting
import Testing

/// The whole stack in-process on ephemeral ports: request/reply, fan-out, notifications.
@Suite("Stack integration")
struct StackIntegrationTests {
    @Test("health tells anyone only that all is ready; with the admin key, the gateway and all four services in detail")
    func healthReportsEveryService() async throws {
        try await withPodiumStack { stack in
            let client = try TestClient(endpoint: stack.endpoints.requests)
            defer { Task { await client.close() } }
            let reply = try await client.exchange(GatewayRequests.health)
            #expect(reply.type == .reply)
            #expect(reply.envelope.payload == .object(["ready": .bool(true)]), "no details without the admin key")
            let gateway = try await client.exchange(GatewayRequests.gatewayHealth)
            #expect(gateway.envelope.payload == .object(["ready": .bool(true)]))
            let health = try await client.systemHealth()
            #expect(health.ready)
            #expect(Set(health.services.keys) == ["auth", "leaderboard", "achievement", "challenge"])
            #expect(health.services.values.allSatisfy { $0.ready && $0.health != nil })
            #expect(health.gateway.connectedServices == ["achievement", "auth", "challenge", "leaderboard"])
        }
    }

    @Test(
        "each service answers its own health request through the gateway",
        arguments: ["auth", "leaderboard", "achievement", "challenge"])
    func serviceHealthIsRouted(service: String) async throws {
        try await withPodiumStack { stack in
            let client = try TestClient(endpoint: stack.endpoints.requests)
            defer { Task { await client.close() } }
            let readiness = try await client.exchange(ServiceRequests.health(of: service), id: "r-\(service)")
            #expect(readiness.envelope.correlationId == "r-\(service)")
            #expect(readiness.envelope.payload == .object(["ready": .bool(true)]), "no details without the admin key")
            let reply = try await client.exchange(
                ServiceRequests.healthDetails(of: service), id: "h-\(service)",
                credential: .adminKey(PodiumTestStack.testAdminKey))
            #expect(reply.type == .reply)
            #expect(reply.envelope.correlationId == "h-\(service)")
            let health = try reply.value()
            #expect(health.service == service)
            if PodiumTestStack.storageKind == "postgresql" {
                // Where the data is, never the password.
                #expect(health.storage.hasPrefix("postgresql://podium@"))
                #expect(health.storage.hasSuffix("_\(service)"))
                let password =
                    URLComponents(string: ProcessInfo.processInfo.environment["PODIUM_TEST_DATABASE_URL"] ?? "")?
                    .password ?? "?"
                #expect(!health.storage.contains(password))
            } else {
                #expect(health.storage.hasPrefix("sqlite:"))
                #expect(FileManager.default.fileExists(atPath: String(health.storage.dropFirst("sqlite:".count))))
            }
        }
    }

    @Test(
        "a published event is logged, acknowledged with its log sequence, and applied by the service that follows the log"
    )
    func eventFanOut() async throws {
        try await withPodiumStack { stack in
            let (client, grant) = try await stack.player("fan.out")
            defer { Task { await client.close() } }
            let first = try await client.exchange(GatewayRequests.publish, event(), gameId: "dash")
            let second = try await client.exchange(
                GatewayRequests.publish,
                GameEvent(name: "match.end", value: 120, attributes: ["matchId": "m-1", "won": true]), gameId: "dash",
                playerId: grant.playerId)
            let firstAck = try first.value()
            let secondAck = try second.value()
            #expect(firstAck.topic == "event/dash/cactus.hit")
            #expect(secondAck.topic == "event/dash/match.end")
            #expect(secondAck.sequence == firstAck.sequence + 1)
            #expect(firstAck.publisher == StreamName.events && secondAck.publisher == StreamName.events)
            let resent = try await client.call(GatewayRequests.publish, event(), gameId: "dash", id: first.request.id)
            #expect(first.envelope.correlationId == first.request.id)
            #expect(resent.sequence == firstAck.sequence, "a resend is the same event")
            #expect(resent.duplicate == true)
            for service in ["achievement"] {
                let received = await eventually {
                    let ids = (try? await client.serviceHealth(service))?.recentEventIds ?? []
                    return ids.contains(firstAck.eventId) && ids.contains(secondAck.eventId)
                }
                #expect(received, "\(service) did not receive both events")
                let health = try await client.serviceHealth(service)
                #expect(health.gapsDetected == 0)
                #expect((health.streams?[StreamName.events]?.head ?? 0) >= secondAck.sequence)
            }
        }
    }

    @Test("a notification published by a service reaches the player's subscriber")
    func notificationReachesSubscriber() async throws {
        try await withPodiumStack { stack in
            let (client, grant) = try await stack.player("listener")
            defer { Task { await client.close() } }
            let subscription = try await client.call(GatewayRequests.subscribe, gameId: "dash")
            #expect(subscription.playerId == grant.playerId)
            let subscriber = try TestSubscriber(endpoint: stack.endpoints.notifications, topics: [subscription.topic])
            defer { Task { await subscriber.close() } }
            // A SUB joins asynchronously: repeat the notification until the first one arrives.
            let delivered = try await withDeadline(.seconds(15)) {
                while true {
                    let receipt = try await client.exchange(
                        ClientRequests.testNotification(of: "challenge"),
                        TestNotice(message: "you have been challenged"), gameId: "dash")
                    #expect(receipt.type == .reply)
                    if let notification = try? await subscriber.next(timeout: .milliseconds(300)) {
                        return notification
                    }
                }
            }
            #expect(delivered.topic == subscription.topic)
            #expect(delivered.envelope.type == .notification)
            #expect(delivered.envelope.gameId == "dash")
            #expect(delivered.envelope.playerId == grant.playerId)
            let payload = try delivered.envelope.decodePayload(as: PlayerNotification.self)
            #expect(payload.kind == "diagnostic.test")
            #expect(payload.message == "you have been challenged")
            #expect(delivered.envelope.publisher?.hasPrefix("challenge-") == true)
        }
    }

    @Test("many pipelined requests on one DEALER each get exactly one matching reply")
    func pipelining() async throws {
        try await withPodiumStack { stack in
            let (client, _) = try await stack.player("pipeliner")
            defer { Task { await client.close() } }
            let count = 500
            var expected = Set<String>()
            for index in 0..<count {
                let id = "pipe-\(index)"
                expected.insert(id)
                let request =
                    index.isMultiple(of: 3)
                    ? try client.client.request(
                        ServiceRequests.health(of: "leaderboard"), EmptyPayload(), gameId: "dash", id: id)
                    : try client.client.request(GatewayRequests.publish, event(), gameId: "dash", id: id)
                try await client.send(request)
            }
            var seen: [String: Int] = [:]
            for _ in 0..<count {
                let reply = try await client.nextReply()
                #expect(reply.type == .reply, "\(reply.correlationId ?? "-"): \(reply.payload)")
                seen[reply.correlationId ?? "", default: 0] += 1
            }
            #expect(Set(seen.keys) == expected)
            #expect(seen.values.allSatisfy { $0 == 1 })
        }
    }

    @Test("a REQ-style request with an empty delimiter gets a reply framed the same way")
    func requestSocketFraming() async throws {
        try await withPodiumStack { stack in
            let client = try TestClient(endpoint: stack.endpoints.requests)
            defer { Task { await client.close() } }
            let body = try WireCodec.encode(
                try client.client.request(GatewayRequests.gatewayHealth, EmptyPayload(), id: "req-1"))
            try await client.sendFrames([Data(), body])
            let frames = try await client.nextFrames()
            #expect(frames.count == 2)
            #expect(frames.first?.isEmpty == true)
            let reply = try WireCodec.decode(RawEnvelope.self, from: frames[1])
            #expect(reply.correlationId == "req-1")
            #expect(reply.type == .reply)
        }
    }

    @Test("shutdown completes with clients still connected and requests in flight")
    func shutdownWithClientsConnected() async throws {
        let stack = try await PodiumTestStack.start()
        let client = try TestClient(endpoint: stack.endpoints.requests)
        for index in 0..<50 {
            try await client.send(
                try client.client.request(ServiceRequests.health(of: "auth"), EmptyPayload(), id: "s-\(index)"))
        }
        await stack.shutdown()
        #expect(!FileManager.default.fileExists(atPath: stack.dataDirectory.path))
        await client.close()
    }
}

@Suite("Unknown request types")
struct UnknownTypeTests {
    @Test("a type a connected service never announced is unknown_type, not service_unavailable")
    func unannouncedTypeOfConnectedService() async throws {
        try await withPodiumStack { stack in
            let (client, _) = try await stack.player("teleporter")
            defer { Task { await client.close() } }
            // A type no definition names.
            let reply = try await client.request("leaderboard.teleport")
            let error = try reply.errorReply()
            #expect(error.code == .unknownType)
            #expect(error.field == "type")
        }
    }
}
