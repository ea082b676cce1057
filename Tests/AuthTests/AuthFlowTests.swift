import Foundation
import PodiumClient
import PodiumMessages
import PodiumTesting
import Testing

/// Accounts and sessions end to end, through the gateway over real sockets.
@Suite("Accounts and sessions")
struct AuthFlowTests {
    @Test("register, log in, see and rename yourself, look others up")
    func registerAndLogin() async throws {
        try await withPodiumStack { stack in
            let anonymous = try client(stack)
            defer { Task { await anonymous.close() } }
            let registered = try await anonymous.register("Ada")
            let grant = try registered.grant
            #expect(grant.created)
            #expect(grant.username == "Ada")
            #expect(grant.displayName == "Ada")
            #expect(!grant.playerId.contains("Ada"), "player ids are opaque")
            let login = try await anonymous.login("ADA").grant
            #expect(login.playerId == grant.playerId)
            #expect(!login.created)
            #expect(login.sessionId != grant.sessionId)
            #expect(try await anonymous.login("ada", password: "wrong password!").errorCode == .invalidCredentials)
            #expect(try await anonymous.login("nobody-here").errorCode == .invalidCredentials)

            let ada = try client(stack, token: login.sessionToken)
            defer { Task { await ada.close() } }
            let profile = try await ada.call(AuthRequests.profile)
            #expect(profile.playerId == grant.playerId)
            #expect(profile.username == "Ada")
            let renamed = try await ada.call(AuthRequests.displayName, DisplayNameChange(displayName: "Countess"))
            #expect(renamed.displayName == "Countess")
            #expect(renamed.playerId == grant.playerId, "player ids never change")
            let lookup = try await ada.call(
                AuthRequests.players, ProfileLookup(playerIds: [grant.playerId, "missing"]))
            #expect(lookup.players == [PublicProfile(playerId: grant.playerId, displayName: "Countess")])
        }
    }

    @Test("a device login creates an account once, and can later be linked to a username")
    func deviceLoginAndLink() async throws {
        try await withPodiumStack { stack in
            let anonymous = try client(stack)
            defer { Task { await anonymous.close() } }
            let first = try await anonymous.call(
                AuthRequests.deviceLogin, DeviceLogin(deviceId: "phone-0001", displayName: "Rookie"))
            let again = try await anonymous.call(AuthRequests.deviceLogin, DeviceLogin(deviceId: "phone-0001"))
            #expect(first.created)
            #expect(!again.created)
            #expect(again.playerId == first.playerId)
            #expect(first.username == nil)
            let device = try client(stack, token: again.sessionToken)
            defer { Task { await device.close() } }
            let linked = try await device.call(
                AuthRequests.link, AccountLink(username: "rookie", password: "long enough"))
            #expect(linked.username == "rookie")
            #expect(linked.linkedDevices == 1)
            #expect(try await anonymous.login("rookie", password: "long enough").grant.playerId == first.playerId)
            #expect(
                try await device.exchange(AuthRequests.link, AccountLink(username: "other", password: "long enough"))
                    .errorCode == .conflict)
            #expect(
                try await anonymous.exchange(AuthRequests.deviceLogin, DeviceLogin(deviceId: "short")).errorCode
                    == .invalidField)
        }
    }

    @Test("refresh rotates the refresh token; replaying an old one revokes the session")
    func refreshRotation() async throws {
        try await withPodiumStack { stack in
            let anonymous = try client(stack)
            defer { Task { await anonymous.close() } }
            let grant = try await anonymous.register("rotor").grant
            let refreshed = try await anonymous.call(
                AuthRequests.refresh, SessionRefresh(refreshToken: grant.refreshToken))
            #expect(refreshed.sessionId == grant.sessionId)
            #expect(refreshed.refreshToken != grant.refreshToken)
            let player = try client(stack, token: refreshed.sessionToken)
            defer { Task { await player.close() } }
            #expect(try await player.publish().type == .reply)
            // The first refresh token again: a replay. The whole session ends.
            let replay = try await anonymous.exchange(
                AuthRequests.refresh, SessionRefresh(refreshToken: grant.refreshToken))
            #expect(replay.errorCode == .sessionRevoked)
            #expect(try await player.publish().errorCode == .sessionRevoked)
            let later = try await anonymous.exchange(
                AuthRequests.refresh, SessionRefresh(refreshToken: refreshed.refreshToken))
            #expect(later.errorCode == .sessionRevoked)
        }
    }

    @Test("logout and revocation take effect immediately, for one session or all")
    func logoutAndRevoke() async throws {
        try await withPodiumStack { stack in
            let anonymous = try client(stack)
            defer { Task { await anonymous.close() } }
            let one = try await anonymous.register("leaver").grant
            let two = try await anonymous.login("leaver").grant
            let three = try await anonymous.login("leaver").grant
            let first = try client(stack, token: one.sessionToken)
            let second = try client(stack, token: two.sessionToken)
            let third = try client(stack, token: three.sessionToken)
            defer {
                Task {
                    await first.close()
                    await second.close()
                    await third.close()
                }
            }
            // Use every token once, so the gateway has them cached.
            for player in [first, second, third] { #expect(try await player.publish().type == .reply) }
            let logout = try await first.call(AuthRequests.logout)
            #expect(logout.revokedSessions == 1)
            #expect(logout.sessionIds == [one.sessionId])
            #expect(try await first.publish().errorCode == .sessionRevoked)
            #expect(try await second.publish().type == .reply)
            let revokeAll = try await second.call(AuthRequests.revoke, SessionRevocation(allSessions: true))
            #expect(revokeAll.revokedSessions == 2)
            #expect(try await second.publish().errorCode == .sessionRevoked)
            #expect(try await third.publish().errorCode == .sessionRevoked)
            #expect(
                try await anonymous.exchange(AuthRequests.refresh, SessionRefresh(refreshToken: three.refreshToken))
                    .errorCode == .sessionRevoked)
        }
    }

    @Test("a revoked session stays revoked after the auth service and the gateway restart")
    func revocationSurvivesRestart() async throws {
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("podium-restart-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: data) }
        let auth = PodiumTestStack.testAuthConfiguration
        let options = PodiumTestStack.Options(auth: auth, dataDirectory: data)
        let (revoked, kept) = try await withPodiumStack(options) { stack in
            let anonymous = try client(stack)
            defer { Task { await anonymous.close() } }
            let revoked = try await anonymous.register("phoenix").grant
            let kept = try await anonymous.login("phoenix").grant
            let player = try client(stack, token: revoked.sessionToken)
            defer { Task { await player.close() } }
            #expect(try await player.exchange(AuthRequests.logout).type == .reply)
            return (revoked, kept)
        }
        try await withPodiumStack(options) { stack in
            let old = try client(stack, token: revoked.sessionToken)
            let other = try client(stack, token: kept.sessionToken)
            defer {
                Task {
                    await old.close()
                    await other.close()
                }
            }
            #expect(try await old.publish().errorCode == .sessionRevoked)
            #expect(try await other.publish().type == .reply, "an unrevoked session survives the restart")
        }
    }

    @Test("an expired session token is refused; refreshing gives a working one")
    func expiry() async throws {
        let clock = OffsetClock()
        try await withPodiumStack(.init(clock: clock)) { stack in
            let anonymous = try client(stack)
            defer { Task { await anonymous.close() } }
            let grant = try await anonymous.register("sleeper").grant
            let player = try client(stack, token: grant.sessionToken)
            defer { Task { await player.close() } }
            #expect(try await player.publish().type == .reply)
            clock.advance(by: .seconds(16 * 60))
            #expect(try await player.publish().errorCode == .tokenExpired)
            // The client still sends its expired session token with the refresh: that must not block it.
            let refreshed = try await player.call(
                AuthRequests.refresh, SessionRefresh(refreshToken: grant.refreshToken))
            player.use(.token(refreshed.sessionToken))
            #expect(try await player.publish().type == .reply)
        }
    }
}
