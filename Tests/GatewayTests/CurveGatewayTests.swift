import Foundation
import PodiumClient
import PodiumMessages
import PodiumTesting
import Testing
import ZeroMQ

/// A gateway whose public endpoints are CURVE servers. Waits for what must not arrive are bounded
/// and their length is never asserted.
@Suite("CURVE gateway", .timeLimit(.minutes(2)), .enabled(if: CurveKeyPair.isAvailable, "this libzmq has no CURVE"))
struct CurveGatewayTests {
    @Test("CURVE clients are answered and hear their notifications; plain clients and wrong server keys get nothing")
    func curveEndpoints() async throws {
        let pair = try CurveKeyPair.generate()
        // The stack's own readiness check and player registration already go through CURVE.
        try await withPodiumStack(.init(curveKeyPair: pair)) { stack in
            #expect(stack.curveServerKey == pair.publicKey)
            let (client, _) = try await stack.player("curve-player")
            defer { Task { await client.close() } }
            let subscription = try await client.call(GatewayRequests.subscribe, gameId: "dash")
            let subscriber = try TestSubscriber(
                endpoint: stack.endpoints.notifications, topics: [subscription.topic], curveServerKey: pair.publicKey)
            defer { Task { await subscriber.close() } }
            let heard = try await withDeadline(.seconds(15)) {
                while true {
                    let receipt = try await client.exchange(
                        ClientRequests.testNotification(of: "achievement"), TestNotice(message: "over curve"),
                        gameId: "dash")
                    #expect(receipt.type == .reply)
                    if let heard = try? await subscriber.next(timeout: .milliseconds(300)) { return heard }
                }
            }
            #expect(heard.topic == subscription.topic)

            let plain = try TestClient(endpoint: stack.endpoints.requests)
            let impostor = try TestClient(
                endpoint: stack.endpoints.requests, curveServerKey: try CurveKeyPair.generate().publicKey)
            defer {
                Task {
                    await plain.close()
                    await impostor.close()
                }
            }
            for outsider in [plain, impostor] {
                // Not awaited: libzmq may hold the message while it reconnects after the refused
                // handshake (a DEALER without a pipe waits), which would hang the test; closing
                // the client at the end ends the send either way.
                Task { try? await outsider.send(ClientRequest(type: .gatewayHealth, id: "outsider")) }
                await #expect(throws: TestStackError.self) { try await outsider.nextReply(timeout: .seconds(1)) }
            }
            // The gateway is still answering CURVE clients after refusing the others.
            #expect(try await client.exchange(GatewayRequests.gatewayHealth).type == .reply)
        }
    }
}
