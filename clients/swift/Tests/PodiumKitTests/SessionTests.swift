import Foundation
import PodiumKit
import Testing

/// Sessions: the refresh token kept in the credential store, a stored session resumed, and an
/// expired session token refreshed without the game noticing, over HTTP and on the socket. The
/// two expiry tests wait for the stack's 30 s session lifetime, side by side.
@Suite(.stack, .timeLimit(.minutes(2))) struct SessionTests {
    @Test func aStoredSessionResumesOnTheNextLaunch() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("podiumkit-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = FileCredentialStore(directory: folder)
        var configuration = TestStack.configuration(credentialStore: store)
        let first = PodiumLocalPlayer(configuration: configuration)
        try await first.authenticate(.register(username: TestStack.uniqueName("cy"), password: TestStack.password))
        let session = try #require(first.client.currentSession)

        // Kept in a file only its owner may read.
        let file = store.fileURL(account: configuration.credentialAccount)
        let attributes = try FileManager.default.attributesOfItem(atPath: file.path)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        let stored = try #require(try store.load(account: configuration.credentialAccount))
        #expect(stored.playerId == session.playerId)
        #expect(stored.refreshToken == session.refreshToken)

        let deviceId = UUID().uuidString
        // docs:begin restore
        // On the next launch: resume the stored session, or else play as the device's player.
        let player = PodiumLocalPlayer(configuration: configuration)
        do {
            try await player.authenticate(.storedSession)
        } catch let error as PodiumError where error.code == .unauthenticated || error.code == .sessionRevoked {
            try await player.authenticate(.device(id: deviceId))
        }
        // docs:end restore
        let resumed = try #require(player.client.currentSession)
        #expect(resumed.playerId == session.playerId)
        #expect(resumed.sessionId == session.sessionId)
        #expect(resumed.refreshToken != session.refreshToken)
        // The rotated refresh token replaced the used one.
        #expect(try store.load(account: configuration.credentialAccount)?.refreshToken == resumed.refreshToken)

        // Logging out forgets it: the next launch is the device's player.
        try await player.logout()
        #expect(!player.isAuthenticated)
        #expect(try store.load(account: configuration.credentialAccount) == nil)
        configuration.credentialAccount = "another-server"
        let fresh = PodiumLocalPlayer(configuration: configuration)
        let missing = await #expect(throws: PodiumError.self) { try await fresh.authenticate(.storedSession) }
        #expect(missing?.code == .unauthenticated)
        try await fresh.authenticate(.device(id: deviceId))
        #expect(fresh.playerId != session.playerId)
        #expect(fresh.client.currentSession?.created == true)
    }

    /// Waits for the session token to expire; the next call meets `token_expired`, refreshes and is
    /// sent again with the same key, and the stored refresh token is the new one.
    @Test func anExpiredSessionIsRefreshedOnTheWay() async throws {
        let transport = RecordingTransport()
        let store = InMemoryCredentialStore()
        let player = try await TestStack.player("dee", transport: transport, credentialStore: store)
        let board = PodiumLeaderboard(id: "com.example.dash.highscore", for: player)
        let before = try #require(player.client.currentSession)
        #expect(before.sessionExpiresAt.timeIntervalSinceNow <= TestStack.sessionTTL.seconds + 1)

        try await sleep(until: before.sessionExpiresAt.addingTimeInterval(1.5))
        let entry = try await board.loadLocalPlayerEntry()
        #expect(entry == nil)

        let after = try #require(player.client.currentSession)
        #expect(after.sessionToken != before.sessionToken)
        #expect(after.refreshToken != before.refreshToken)
        #expect(after.sessionId == before.sessionId)
        #expect(after.sessionExpiresAt > before.sessionExpiresAt)
        let tail = transport.exchanges.suffix(3)
        #expect(tail.map(\.path) == [board.entryPath, "/v1/sessions/refresh", board.entryPath])
        #expect(tail.map(\.status) == [401, 200, 200])
        #expect(tail.first?.key == tail.last?.key)
        #expect(tail.first?.authorization == "Bearer \(before.sessionToken)")
        #expect(tail.last?.authorization == "Bearer \(after.sessionToken)")
        let account = player.configuration.credentialAccount
        #expect(try store.load(account: account)?.refreshToken == after.refreshToken)
    }

    /// The gateway closes the socket with 4001 when the session token expires; the socket
    /// refreshes, says hello again, and notifications flow again.
    @Test func theSocketSaysHelloAgainAfterExpiry() async throws {
        let player = try await TestStack.player("eve")
        let socket = player.makeSocket()
        try await socket.connect()
        let events = Task {
            var seen: [PodiumSocket.Event] = []
            for await event in socket.events {
                seen.append(event)
                if seen.count == 3 { break }
            }
            return seen
        }
        let before = try #require(player.client.currentSession)
        let closed = try await within(TestStack.sessionTTL + .seconds(15), "4001 and a new hello") {
            await events.value
        }
        #expect(closed.count == 3)
        #expect(closed.first == .connected)
        guard case .disconnected(let code, _, let willReconnect)? = closed.dropFirst().first else {
            Issue.record("no disconnection among \(closed)")
            return
        }
        #expect(code == 4001)
        #expect(willReconnect)
        #expect(closed.last == .connected)
        #expect(await socket.isConnected)
        #expect(player.client.currentSession?.sessionToken != before.sessionToken)

        // Requests go over the new connection, and notifications flow on it. The notification
        // this request causes carries the request's id too, and may come before the reply: only
        // the reply answers the request.
        let key = PodiumClient.newRequestId()
        let receipt = try await socket.send(
            "challenge.test-notification", gameId: "dash", payload: ["message": "after the refresh"],
            idempotencyKey: key)
        let test = try await socket.next(.diagnosticTest)
        #expect(test.message == "after the refresh")
        #expect(test.details["service"] == "challenge")
        #expect(test.correlationId == key)
        #expect(receipt["notificationId"]?.stringValue?.isEmpty == false)
        #expect(receipt["topic"]?.stringValue == "notify/dash/\(player.playerId!)")
        let unread = try await socket.send("inbox.unread", gameId: "dash")
        #expect(unread["unread"]?.integerValue == 0)
        await socket.disconnect()
    }
}

extension PodiumLeaderboard {
    fileprivate var entryPath: String { "/v1/games/\(player.gameId)/leaderboards/\(id)/entry" }
}

extension Duration {
    fileprivate var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}

private func sleep(until date: Date) async throws {
    let wait = date.timeIntervalSinceNow
    if wait > 0 { try await Task.sleep(for: .milliseconds(Int64(wait * 1000))) }
}
