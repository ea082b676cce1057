import Foundation
import PodiumClient
import PodiumMessages
import PodiumRuntime
import PodiumTesting
import Testing
import ZeroMQ

/// A stack whose bus uses CURVE: the services (each with its own key) work through it, and a
/// process with an unknown key or without CURVE can neither read the bus nor publish on it, and
/// is logged. Waits for what must not arrive are bounded and their length is never asserted.
@Suite("CURVE bus", .timeLimit(.minutes(2)), .enabled(if: CurveKeyPair.isAvailable, "this libzmq has no CURVE"))
struct BusCurveTests {
    @Test("services work over a CURVE bus; strangers and plain processes are refused and logged")
    func curveBus() async throws {
        let recorder = LogRecorder()
        try await withPodiumStack(.init(busCurve: true, logger: recorder.logger())) { stack in
            let hubKey = try #require(stack.busHubKey)
            // Readiness already needs every service's publisher, subscriber and link through CURVE.
            let (client, grant) = try await stack.player("bus-curve-player")
            defer { Task { await client.close() } }
            let submitted = try await client.exchange(
                LeaderboardRequests.submit, ScoreSubmission(boardId: "dash.highscore", value: 420), gameId: "dash")
            #expect(submitted.type == .reply)
            let subscription = try await client.call(GatewayRequests.subscribe, gameId: "dash")
            let listener = try TestSubscriber(endpoint: stack.endpoints.notifications, topics: [subscription.topic])
            defer { Task { await listener.close() } }

            // Outsiders on the bus: a publisher with an unknown key and a plain one, both trying to
            // notify the player; readers with an unknown key and without CURVE.
            let context = try ZMQContext()
            let stranger = try CurveKeyPair.generate()
            let forger = try AsyncSocket(
                context: context, type: .publisher, name: "forger", options: stranger.clientOptions(server: hubKey),
                connect: [stack.endpoints.busPublish])
            let plainForger = try AsyncSocket(
                context: context, type: .publisher, name: "plain-forger", connect: [stack.endpoints.busPublish])
            defer {
                Task {
                    await forger.close()
                    await plainForger.close()
                }
            }
            let eavesdropper = try context.makeSocket(.subscriber)
            let plainEavesdropper = try context.makeSocket(.subscriber)
            defer { for socket in [eavesdropper, plainEavesdropper] { socket.close() } }
            for option in stranger.clientOptions(server: hubKey) { try eavesdropper.set(option) }
            for reader in [eavesdropper, plainEavesdropper] { try reader.set(.subscribe(Data())) }
            try eavesdropper.connect(stack.endpoints.busSubscribe)
            try plainEavesdropper.connect(stack.endpoints.busSubscribe)
            let forged = Envelope(
                type: .notification, gameId: "dash", playerId: grant.playerId, timestamp: 0,
                payload: PlayerNotification(kind: "forged", message: "you won nothing"))
            let body = try WireCodec.encode(forged)
            let topic = Data("notify/dash/\(grant.playerId)".utf8)

            // The player hears a real notification (through the CURVE bus) and never a forged one.
            let heard = try await withDeadline(.seconds(15)) {
                while true {
                    for socket in [forger, plainForger] { try? await socket.send([topic, body]) }
                    _ = try await client.call(
                        ClientRequests.testNotification(of: "achievement"), TestNotice(message: "real"), gameId: "dash")
                    if let heard = try? await listener.next(timeout: .milliseconds(300)) { return heard }
                }
            }
            #expect(try heard.envelope.decodePayload(as: PlayerNotification.self).message == "real")
            for _ in 0..<5 {
                for socket in [forger, plainForger] { try? await socket.send([topic, body]) }
                if let late = try? await listener.next(timeout: .milliseconds(200)) {
                    #expect(
                        (try? late.envelope.decodePayload(as: PlayerNotification.self))?.message != "you won nothing",
                        "a forged notification got through")
                }
            }
            // Ticks flow every 250 ms on the bus; neither reader gets any of them.
            _ = try ZMQSocket.poll(
                [(eavesdropper, .readable), (plainEavesdropper, .readable)], timeoutMilliseconds: 1000)
            #expect(try eavesdropper.receive(wait: false) == nil)
            #expect(try plainEavesdropper.receive(wait: false) == nil)

            // Both kinds of refusal are in the gateway's log: the unknown key by name, the plain peers as failed handshakes.
            let logged = try await withDeadline(.seconds(10)) {
                while true {
                    let refused = recorder.matching("bus connection refused")
                    let byKey = refused.filter { $0.metadata["bus.key"] == stranger.publicKey.z85 }
                    let handshakes = refused.filter { $0.message.contains("handshake failed") }
                    if !byKey.isEmpty && !handshakes.isEmpty { return (byKey, handshakes) }
                    try await Task.sleep(for: .milliseconds(50))
                }
            }
            #expect(logged.0.allSatisfy { $0.level == .warning && $0.metadata["bus.peer"] == "127.0.0.1" })
            #expect(recorder.matching("bus uses CURVE").count >= 5, "the gateway and the four services say so")
            // Still working after the refusals.
            #expect(try await client.exchange(GatewayRequests.gatewayHealth).type == .reply)
        }
    }
}
