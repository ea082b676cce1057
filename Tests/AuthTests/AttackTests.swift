import Foundation
import PodiumClient
import PodiumMessages
import PodiumTesting
import PodiumTokens
import Testing

@testable import Auth

/// The attacks issue 3 names, each through the gateway over real sockets.
@Suite("Attacks")
struct AttackTests {
    static func forge(
        _ token: String, header: String? = nil, payload transform: ((String) -> String)? = nil, signature: String? = nil
    ) -> String {
        var parts = token.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        func b64(_ text: String) -> String {
            Data(text.utf8).base64EncodedString().replacingOccurrences(of: "=", with: "")
                .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        }
        if let header { parts[0] = b64(header) }
        if let transform, let data = Data(base64Encoded: Self.padded(parts[1])) {
            parts[1] = b64(transform(String(decoding: data, as: UTF8.self)))
        }
        if let signature { parts[2] = signature }
        return parts.joined(separator: ".")
    }

    static func padded(_ text: String) -> String {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64.append("=") }
        return base64
    }

    @Test("forged, swapped, tampered and wrong-kind tokens are refused and publish nothing")
    func forgedTokens() async throws {
        try await withPodiumStack { stack in
            let anonymous = try client(stack)
            defer { Task { await anonymous.close() } }
            let victim = try await anonymous.register("victim").grant
            let attacker = try await anonymous.register("attacker").grant
            let honest = try client(stack, token: victim.sessionToken)
            defer { Task { await honest.close() } }
            let before = try await honest.publish().value()

            let otherKey = await SessionTokens(key: Array(repeating: 3, count: 40))
            let signedElsewhere = try await otherKey.issue(
                .session, playerId: victim.playerId, sessionId: victim.sessionId, tokenId: "x",
                issuedAt: 0, expiresAt: Int64(Date().timeIntervalSince1970 * 1000) + 600_000)
            let attempts: [(String, String)] = [
                ("another key", signedElsewhere),
                ("alg none", Self.forge(victim.sessionToken, header: #"{"alg":"none","typ":"JWT"}"#, signature: "")),
                ("alg swap to HS512", Self.forge(victim.sessionToken, header: #"{"alg":"HS512","typ":"JWT"}"#)),
                ("alg swap to RS256", Self.forge(victim.sessionToken, header: #"{"alg":"RS256","typ":"JWT"}"#)),
                (
                    "tampered subject",
                    Self.forge(
                        attacker.sessionToken,
                        payload: { $0.replacingOccurrences(of: attacker.playerId, with: victim.playerId) })
                ),
                (
                    "tampered expiry",
                    Self.forge(
                        victim.sessionToken, payload: { $0.replacingOccurrences(of: "\"exp\":", with: "\"exp\":9") })
                ),
                ("refresh token as session token", victim.refreshToken),
                ("garbage", "definitely.not.a-token"),
            ]
            for (label, token) in attempts {
                let forger = try client(stack, token: token)
                let reply = try await forger.publish(playerId: victim.playerId)
                #expect(reply.errorCode == .invalidToken, "\(label) was not refused as invalid_token: \(reply.text)")
                await forger.close()
            }
            let after = try await honest.publish().value()
            #expect(after.sequence == before.sequence + 1, "a forged request published something")
        }
    }

    @Test("a player cannot act as someone else, and nothing is published when they try")
    func impersonation() async throws {
        try await withPodiumStack { stack in
            let (mallory, _) = try await stack.player("mallory")
            let (alice, aliceGrant) = try await stack.player("alice")
            defer {
                Task {
                    await mallory.close()
                    await alice.close()
                }
            }
            let before = try await alice.publish().value()
            let forged = try await mallory.publish(playerId: aliceGrant.playerId)
            #expect(forged.errorCode == .forbidden)
            let subscribe = try await mallory.exchange(
                GatewayRequests.subscribe, gameId: "dash", playerId: aliceGrant.playerId)
            #expect(subscribe.errorCode == .forbidden)
            let rename = try await mallory.exchange(
                AuthRequests.displayName, DisplayNameChange(displayName: "owned"), playerId: aliceGrant.playerId)
            #expect(rename.errorCode == .forbidden)
            let after = try await alice.publish().value()
            #expect(after.sequence == before.sequence + 1)
            // The published event carries the token's player and the actor the gateway established.
            let own = try await mallory.publish().value()
            #expect(own.sequence == after.sequence + 1)
        }
    }

    @Test("requests without a credential are refused except the public ones")
    func unauthenticated() async throws {
        try await withPodiumStack { stack in
            let anonymous = try client(stack)
            defer { Task { await anonymous.close() } }
            // The same hand-built payload to every type: the credential is checked before it is read.
            let closed = [
                GatewayRequests.publish.type, GatewayRequests.subscribe.type, AuthRequests.profile.type,
                AuthRequests.friendList.type,
                ServiceRequests.testNotification(of: "challenge").type,
            ]
            for type in closed {
                let reply = try await anonymous.request(type, gameId: "dash", playerId: "p1", payload: ["name": "x"])
                #expect(reply.errorCode == .unauthenticated, "\(type)")
            }
            #expect(try await anonymous.exchange(GatewayRequests.health).type == .reply)
            #expect(try await anonymous.exchange(GatewayRequests.gatewayHealth).type == .reply)
            #expect(try await anonymous.exchange(ServiceRequests.health(of: "leaderboard")).type == .reply)
        }
    }

    @Test("usernames that are oversized, not UTF-8, or hide whitespace are refused and create nothing")
    func badUsernames() async throws {
        try await withPodiumStack { stack in
            let anonymous = try client(stack)
            defer { Task { await anonymous.close() } }
            #expect(try await anonymous.register(String(repeating: "x", count: 200)).errorCode == .invalidUsername)
            #expect(try await anonymous.register("two words").errorCode == .invalidUsername)
            #expect(try await anonymous.register("zero\u{200B}width").errorCode == .invalidUsername)
            #expect(try await anonymous.register("ctrl\u{1}char").errorCode == .invalidUsername)
            #expect(try await anonymous.register("shorty", password: "short").errorCode == .invalidPassword)
            var raw = Data(#"{"type":"auth.register","id":"bad-utf8","payload":{"username":"ab"#.utf8)
            raw.append(contentsOf: [0xC3, 0x28, 0xFF])
            raw.append(contentsOf: Data(#"","password":"long enough"}}"#.utf8))
            try await anonymous.sendFrames([raw])
            #expect(try await anonymous.nextReply().errorCode == .malformedJSON)
            // None of them exists now.
            #expect(try await anonymous.login("shorty", password: "short").errorCode == .invalidCredentials)
        }
    }

    @Test("a registration racing itself (and its case and width variants) creates exactly one account")
    func duplicateRace() async throws {
        try await withPodiumStack { stack in
            let names = ["Racer", "racer", "RACER", "Ｒａｃｅｒ", "racer", "Racer", "rAcEr", "racer"]
            let clients = try names.map { _ in try client(stack) }
            defer { Task { for client in clients { await client.close() } } }
            let results = try await withThrowingTaskGroup(of: PodiumReply<SessionGrant>.self) { group in
                for (client, name) in zip(clients, names) { group.addTask { try await client.register(name) } }
                return try await group.reduce(into: [PodiumReply<SessionGrant>]()) { $0.append($1) }
            }
            let outcomes = results.map {
                $0.type == .reply
                    ? "ok" : "\($0.errorCode.map { "\($0)" } ?? "?"): \($0.error?.errorReply?.message ?? "")"
            }
            #expect(results.filter { $0.type == .reply }.count == 1, "\(outcomes)")
            #expect(results.filter { $0.errorCode == .usernameTaken }.count == names.count - 1, "\(outcomes)")
        }
    }

    @Test(
        "a guesser is stopped per account-and-address with a retry-after, operators hear of it, and the window lets it go"
    )
    func bruteForce() async throws {
        let clock = OffsetClock()
        let admin = String(repeating: "a", count: 40)
        try await withPodiumStack(.init(clock: clock, adminKey: admin)) { stack in
            let anonymous = try client(stack)
            let operatorClient = try TestClient(endpoint: stack.endpoints.requests)
            operatorClient.use(.adminKey(admin))
            defer {
                Task {
                    await anonymous.close()
                    await operatorClient.close()
                }
            }
            let topic = try await operatorClient.call(GatewayRequests.subscribe).topic
            #expect(topic.hasPrefix("operator/"))
            let operators = try TestSubscriber(endpoint: stack.endpoints.notifications, topics: [topic])
            defer { Task { await operators.close() } }
            _ = try await anonymous.register("target")
            for _ in 0..<5 {
                #expect(try await anonymous.login("target", password: "guess guess").errorCode == .invalidCredentials)
            }
            let blocked = try await anonymous.login("target")
            #expect(blocked.errorCode == .rateLimited, "even the right password waits at this address")
            let retryAfter = blocked.error?.errorReply?.retryAfterMilliseconds
            #expect((retryAfter ?? 0) > 0)
            // Operators also hear of services coming and going; wait for the throttling notice.
            var throttledNotice: PlayerNotification?
            for _ in 0..<40 where throttledNotice == nil {
                if let heard = try? await operators.next(timeout: .milliseconds(250)) {
                    let notice = try heard.envelope.decodePayload(as: PlayerNotification.self)
                    if notice.kind == "operator.login-throttled" { throttledNotice = notice }
                } else {
                    _ = try await anonymous.login("target")
                }
            }
            #expect(throttledNotice?.kind == "operator.login-throttled")
            #expect(throttledNotice?.details["limit"]?.stringValue == "account-and-address")
            clock.advance(by: .seconds(15 * 60 + 1))
            #expect(try await anonymous.login("target").type == .reply)
        }
    }

    @Test(
        "behind one shared address a guesser is stopped while the other players there log in, and an operator sees and clears it"
    )
    func sharedAddress() async throws {
        let admin = String(repeating: "a", count: 40)
        var auth = PodiumTestStack.testAuthConfiguration
        auth.loginLimits = LoginGuard.Limits(accountAndAddress: 3, account: 10, address: 8)
        try await withPodiumStack(.init(adminKey: admin, auth: auth)) { stack in
            // Every client here connects from 127.0.0.1: the school behind one address.
            let guesser = try client(stack)
            let classmate = try client(stack)
            let operatorClient = try TestClient(endpoint: stack.endpoints.requests)
            operatorClient.use(.adminKey(admin))
            defer {
                Task {
                    await guesser.close()
                    await classmate.close()
                    await operatorClient.close()
                }
            }
            _ = try await classmate.register("classmate")
            _ = try await classmate.register("victim")
            _ = try await classmate.register("newcomer")
            for _ in 0..<3 {
                #expect(try await guesser.login("victim", password: "guess guess").errorCode == .invalidCredentials)
            }
            #expect(try await guesser.login("victim", password: "guess again").errorCode == .rateLimited)
            #expect(try await classmate.login("classmate").type == .reply, "another player on the same address logs in")
            #expect(try await classmate.login("newcomer").type == .reply)

            // The guesser moves on to other names: the address limit (8) stops that, but the
            // players who logged in from this address before still get in.
            for index in 0..<5 {
                #expect(
                    try await guesser.login("name\(index)", password: "guess guess").errorCode == .invalidCredentials)
            }
            #expect(try await guesser.login("name9", password: "guess guess").errorCode == .rateLimited)
            #expect(try await classmate.login("classmate").type == .reply, "known at this address")
            let stranger = "stranger\(UInt32.random(in: 0...UInt32.max))"
            #expect(try await guesser.login(stranger, password: "guess guess").errorCode == .rateLimited)

            let lockouts = try await operatorClient.call(AuthRequests.lockouts, LockoutQuery(address: "127.0.0.1"))
                .lockouts
            #expect(Set(lockouts.map(\.limit)) == ["account-and-address", "address"], "\(lockouts)")
            #expect(lockouts.first { $0.limit == "account-and-address" }?.username == "victim")
            #expect(lockouts.first { $0.limit == "address" }?.failures == 8)
            let forVictim = try await operatorClient.call(AuthRequests.lockouts, LockoutQuery(username: "VICTIM"))
                .lockouts
            #expect(forVictim.map(\.limit) == ["account-and-address"])
            #expect(try await guesser.exchange(AuthRequests.lockouts, LockoutQuery()).errorCode == .unauthenticated)
            #expect(try await operatorClient.exchange(AuthRequests.unlock, LockoutQuery()).errorCode == .missingField)

            let receipt = try await operatorClient.call(AuthRequests.unlock, LockoutQuery(address: "127.0.0.1"))
            #expect(receipt.cleared >= 2)
            #expect(try await guesser.login("victim").type == .reply, "cleared: the right password gets in")
            #expect(
                try await operatorClient.call(AuthRequests.lockouts, LockoutQuery()).lockouts.isEmpty)
        }
    }

    @Test("server keys act for any player of their game only; admin-only and service-only types are closed to players")
    func serverAndAdminKeys() async throws {
        let serverKey = String(repeating: "s", count: 40)
        let admin = String(repeating: "a", count: 40)
        try await withPodiumStack(.init(serverKeys: ["dash": serverKey], adminKey: admin)) { stack in
            let (player, grant) = try await stack.player("grunt")
            let server = try TestClient(endpoint: stack.endpoints.requests)
            server.use(.serverKey(serverKey))
            let adminClient = try TestClient(endpoint: stack.endpoints.requests)
            adminClient.use(.adminKey(admin))
            defer {
                Task {
                    await player.close()
                    await server.close()
                    await adminClient.close()
                }
            }
            #expect(try await server.publish(playerId: grant.playerId).type == .reply)
            #expect(try await server.publish(playerId: nil).errorCode == .missingField)
            #expect(
                try await server.publish(gameId: "other", playerId: grant.playerId).errorCode == .invalidCredentials)
            let wrong = try TestClient(endpoint: stack.endpoints.requests)
            wrong.use(.serverKey(String(repeating: "x", count: 40)))
            #expect(try await wrong.publish(playerId: grant.playerId).errorCode == .invalidCredentials)
            await wrong.close()
            let badAdmin = try TestClient(endpoint: stack.endpoints.requests)
            badAdmin.use(.adminKey(String(repeating: "b", count: 40)))
            #expect(try await badAdmin.exchange(GatewayRequests.subscribe).errorCode == .invalidCredentials)
            await badAdmin.close()

            // An operator's name the protocol does not define.
            #expect(try await player.request("auth.admin.reset").errorCode == .forbidden)
            #expect(try await server.request("auth.admin.reset", gameId: "dash").errorCode == .forbidden)
            #expect(
                try await adminClient.request("auth.admin.reset").errorCode == .unknownType, "the gate opens for admins"
            )
            #expect(
                try await player.exchange(
                    AuthRequests.sessionCheck, SessionCheck(sessionId: grant.sessionId, playerId: grant.playerId)
                ).errorCode
                    == .forbidden)
            #expect(
                try await player.exchange(AuthRequests.friendsOf, FriendsOfQuery(playerId: grant.playerId)).errorCode
                    == .forbidden)
            #expect(
                try await server.exchange(GatewayRequests.subscribe, gameId: "dash", playerId: grant.playerId).errorCode
                    == .forbidden)
            #expect(try await player.exchange(GatewayRequests.subscribe).errorCode == .missingField)
        }
    }
}

@Suite("Server-only boards")
struct ServerOnlyBoardTests {
    @Test("a player's score on a server-only board is refused and stored nowhere; the game server's is accepted")
    func serverOnly() async throws {
        let serverKey = String(repeating: "s", count: 40)
        try await withPodiumStack(.init(serverKeys: ["dash": serverKey])) { stack in
            let (player, grant) = try await stack.player("cheater")
            let server = try TestClient(endpoint: stack.endpoints.requests)
            server.use(.serverKey(serverKey))
            defer {
                Task {
                    await player.close()
                    await server.close()
                }
            }
            let ranked = ScoreSubmission(boardId: "dash.ranked", value: 999)
            let refused = try await player.exchange(LeaderboardRequests.submit, ranked, gameId: "dash")
            #expect(refused.errorCode == .forbidden)
            let nothing = try await player.call(
                LeaderboardRequests.entry, BoardQuery(boardId: "dash.ranked"), gameId: "dash")
            #expect(nothing.entry == nil, "the refused score was not stored")
            let accepted = try await server.exchange(
                LeaderboardRequests.submit, ranked, gameId: "dash", playerId: grant.playerId)
            #expect(accepted.type == .reply)
            let stored = try await player.call(
                LeaderboardRequests.entry, BoardQuery(boardId: "dash.ranked"), gameId: "dash")
            #expect(stored.entry?.value == 999)
            // On an open board the player submits for themselves.
            #expect(
                try await player.exchange(
                    LeaderboardRequests.submit, ScoreSubmission(boardId: "dash.highscore", value: 5), gameId: "dash"
                ).type
                    == .reply)
        }
    }
}
