import Foundation
import PodiumClient
import PodiumMessages
import PodiumTesting
import Testing

/// A player hears their own notifications and nobody else's.
@Suite("Notification privacy")
struct NotificationPrivacyTests {
    @Test("only the exact player topic receives; other players, prefixes and the empty topic get nothing")
    func onlyTheOwnerHears() async throws {
        try await withPodiumStack { stack in
            let (client, aliceGrant) = try await stack.player("alice")
            let (bobClient, _) = try await stack.player("bob")
            defer {
                Task {
                    await client.close()
                    await bobClient.close()
                }
            }
            let alice = try await client.call(GatewayRequests.subscribe, gameId: "dash")
            let bob = try await bobClient.call(GatewayRequests.subscribe, gameId: "dash")
            let aliceElsewhere = try await client.call(GatewayRequests.subscribe, gameId: "other")
            // Asking for someone else's topic is refused outright.
            let stolen = try await bobClient.exchange(
                GatewayRequests.subscribe, gameId: "dash", playerId: aliceGrant.playerId)
            #expect(stolen.errorCode == .forbidden)
            #expect(alice.topic != bob.topic)
            #expect(alice.topic != aliceElsewhere.topic)
            #expect(alice.topic.hasPrefix("player/"))
            #expect(!alice.topic.contains(aliceGrant.playerId))

            let owner = try TestSubscriber(endpoint: stack.endpoints.notifications, topics: [alice.topic])
            let other = try TestSubscriber(endpoint: stack.endpoints.notifications, topics: [bob.topic])
            let snoopers = try [
                "", "player/", String(alice.topic.dropLast(1)), alice.topic.uppercased(),
            ].map { try TestSubscriber(endpoint: stack.endpoints.notifications, topics: [$0]) }
            defer {
                Task {
                    await owner.close()
                    await other.close()
                    for snooper in snoopers { await snooper.close() }
                }
            }
            @Sendable func notify(_ message: String) async throws {
                let receipt = try await client.exchange(
                    ClientRequests.testNotification(of: "achievement"), TestNotice(message: message), gameId: "dash")
                #expect(receipt.type == .reply)
            }
            // Repeat until the owner's subscription is live, then send a marker it must also get.
            let first = try await withDeadline(.seconds(15)) {
                while true {
                    try await notify("first")
                    if let heard = try? await owner.next(timeout: .milliseconds(300)) { return heard }
                }
            }
            #expect(first.topic == alice.topic)
            try await notify("marker")
            var heard = try await owner.next()
            while (try heard.envelope.decodePayload(as: PlayerNotification.self)).message != "marker" {
                heard = try await owner.next()
            }
            // The marker went through the same socket after everything else, so anything
            // misrouted would already be queued at the other subscribers.
            for subscriber in [other] + snoopers {
                let leaked = try? await subscriber.next(timeout: .milliseconds(200))
                #expect(
                    leaked == nil, "a notification reached another subscriber: \(String(describing: leaked?.topic))")
            }
        }
    }
}
