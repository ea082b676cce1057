import Foundation
import PodiumMessages
import PodiumRuntime
import PodiumTokens

/// `podium-auth`: accounts, sessions and friends.
public enum AuthService {
    /// The service name: its request types start with `auth.`.
    public static let name = "auth"

    /// Bus topic prefixes the service subscribes to (game events, as player activity).
    public static let subscriptions: [String] = []

    /// The topic on which revoked sessions are announced.
    public static let revocationTopic = Topic(rawValue: "auth/revoked")
    /// The auth family's heartbeat (see ``definition(accounts:)``).
    public static let heartbeatTopic = Topic(rawValue: "auth/heartbeat")
    static let heartbeatInterval = Duration.seconds(2)

    /// Builds the service on the store `openStore` opens; `configuration` nil reads it from the
    /// environment.
    public static func blueprint(configuration: AuthConfiguration? = nil, openStore: @escaping AccountStoreOpener)
        -> ServiceBlueprint
    {
        ServiceBlueprint(name: name) { settings, clock in
            let configuration =
                try configuration
                ?? AuthConfiguration(
                    reader: RuntimeSettings.environmentReader(), developmentMode: settings.developmentMode)
            let store = try await openStore(settings)
            let accounts = Accounts(
                store: store, tokens: await SessionTokens(key: configuration.tokenKey),
                hasher: PasswordHasher(cost: configuration.passwordCost), configuration: configuration, clock: clock)
            var service = definition(accounts: accounts)
            // Friend requests are news for the challenge service's inbox: stream `auth`, on
            // `friend/…` topics (``FriendNews``), apart from the live `auth/…` family.
            // Auth keeps no request receipts (`receipt.get` does not reach it): its durable tables
            // are the outbox and the stream positions.
            service.use(store, outboxStream: StreamName.auth, answersReceipts: false)
            // With several instances (leases in PostgreSQL) the data is split into partitions
            // that no request is keyed by: every instance that holds one serves every request
            // (auth keeps nothing in memory that another instance could change: the throttles'
            // counts are shared), and the outbox relay and retention run on partition 0's holder.
            if store.leases != nil, settings.partitions > 1 {
                service.partitionMap = PartitionMap(partitions: settings.partitions)
            }
            return service
        }
    }

    static func definition(accounts: Accounts) -> ServiceDefinition {
        typealias Requests = AuthRequests
        let handlers: [TypedRequestHandler] = [
            Requests.register.handler { request, context in
                try await accounts.register(request.payload, peer: request.caller.peer, context: context)
            },
            Requests.login.handler { request, context in
                try await accounts.login(request.payload, peer: request.caller.peer, context: context)
            },
            Requests.deviceLogin.handler { request, context in
                try await accounts.deviceLogin(request.payload, context: context)
            },
            Requests.refresh.handler { request, context in try await accounts.refresh(request.payload, context: context)
            },
            Requests.link.handler { request, _ in try await accounts.link(try request.player(), request.payload) },
            Requests.logout.handler { request, context in
                let (playerId, sessionId) = try request.session()
                return try await accounts.revoke(playerId: playerId, sessionId: sessionId, context: context)
            },
            Requests.revoke.handler { request, context in
                let (playerId, current) = try request.session()
                let revocation = request.payload
                guard revocation.allSessions == true || revocation.sessionId != nil else {
                    throw ErrorReply(
                        code: .missingField, message: "give a sessionId, or allSessions: true",
                        field: "payload.sessionId")
                }
                let target = revocation.allSessions == true ? nil : (revocation.sessionId ?? current)
                return try await accounts.revoke(playerId: playerId, sessionId: target, context: context)
            },
            Requests.ban.handler { request, context in try await accounts.ban(request.payload, context: context) },
            Requests.deleteAccount.handler { request, context in
                try await accounts.deleteOwnAccount(
                    try request.player(), request.payload, peer: request.caller.peer, context: context)
            },
            Requests.adminDeleteAccount.handler { request, context in
                try await accounts.deleteAccount(request.payload, context: context)
            },
            Requests.pendingErasures.handler { _, _ in try await accounts.pendingErasures() },
            Requests.erasureDone.handler { request, _ in try await accounts.markErased(request.payload) },
            Requests.export.handler { request, _ in try await accounts.export(request.payload) },
            Requests.unban.handler { request, context in try await accounts.unban(request.payload, context: context) },
            Requests.revokeSession.handler { request, context in
                try await accounts.revokeSession(request.payload, context: context)
            },
            Requests.lookup.handler { request, _ in try await accounts.lookup(request.payload) },
            Requests.search.handler { request, _ in try await accounts.search(request.payload) },
            Requests.unlinkDevice.handler { request, context in
                let deviceId = request.payload.deviceId
                try AccountRules.checkDeviceID(deviceId)
                let owner = try await accounts.store.unlinkDevice(deviceId: deviceId)
                if let owner {
                    context.logger.notice("device unlinked", metadata: ["player.id": "\(owner)"])
                }
                return DeviceUnlinkReceipt(deviceId: deviceId, playerId: owner)
            },
            Requests.lockouts.handler { request, _ in try await accounts.lockouts(request.payload) },
            Requests.unlock.handler { request, context in
                try await accounts.unlock(request.payload, context: context)
            },
            Requests.profile.handler { request, _ in try await accounts.profile(try request.player()) },
            Requests.displayName.handler { request, _ in
                try await accounts.rename(try request.player(), request.payload)
            },
            Requests.players.handler { request, _ in try await accounts.profiles(request.payload) },
            Requests.sessionCheck.handler { request, _ in try await accounts.check(request.payload) },
            friendHandler(Requests.friendRequest, accounts) { friends, me, other, request, context in
                try await friends.request(
                    from: me, to: other, now: context.clock.nowMilliseconds, request: request, context: context)
            },
            friendHandler(Requests.friendAccept, accounts) { friends, me, other, request, context in
                try await friends.accept(
                    playerId: me, from: other, now: context.clock.nowMilliseconds, request: request, context: context)
            },
            friendHandler(Requests.friendDecline, accounts) { friends, me, other, _, _ in
                try await friends.decline(playerId: me, from: other)
            },
            friendHandler(Requests.friendRemove, accounts) { friends, me, other, _, _ in
                try await friends.remove(playerId: me, otherPlayerId: other)
            },
            friendHandler(Requests.friendBlock, accounts) { friends, me, other, _, context in
                try await friends.block(playerId: me, otherPlayerId: other, now: context.clock.nowMilliseconds)
            },
            friendHandler(Requests.friendUnblock, accounts) { friends, me, other, _, _ in
                try await friends.unblock(playerId: me, otherPlayerId: other)
            },
            Requests.friendList.handler { request, _ in try await accounts.friendList(try request.player()) },
            Requests.createInvite.handler { request, _ in
                try await accounts.createInvite(
                    request.payload, playerId: try request.player(),
                    requestId: request.envelope.correlationId ?? request.envelope.id)
            },
            Requests.listInvites.handler { request, context in
                InviteList(
                    invites: try await accounts.store.invites(
                        ownerId: try request.player(), now: context.clock.nowMilliseconds))
            },
            Requests.revokeInvite.handler { request, _ in
                try await accounts.revokeInvite(request.payload, playerId: try request.player())
            },
            Requests.redeemInvite.handler { request, context in
                try await accounts.redeem(
                    request.payload, playerId: try request.player(), request: request.envelope, context: context)
            },
            Requests.issueInvite.handler { request, _ in try await accounts.issue(request.payload) },
            Requests.resolveInvite.handler { request, context in
                let found = try await accounts.resolve(request.payload, context: context)
                return ResolvedInvite(
                    ownerId: found.ownerId, purpose: found.invite.purpose, challengeId: found.invite.challengeId,
                    gameId: found.invite.gameId)
            },
            Requests.friendCheck.handler { request, _ in try await accounts.friendship(request.payload) },
            Requests.friendsOf.handler { request, _ in try await accounts.friendIDs(request.payload) },
        ]
        return ServiceDefinition(
            name: name, subscriptions: subscriptions, handlers: handlers,
            background: { context in
                // A steady heartbeat in the `auth` family, so that a lost revocation shows up at
                // the gateway as a sequence gap within seconds even when no other one follows.
                var lastRelease: Int64 = 0
                while !Task.isCancelled {
                    // Deleted accounts' usernames whose quarantine ended are forgotten once a minute.
                    let now = context.clock.nowMilliseconds
                    if now - lastRelease >= 60_000 {
                        lastRelease = now
                        _ = try? await accounts.store.releaseQuarantine(now: now)
                    }
                    _ = try? await context.publisher.publish(
                        type: .authHeartbeat, topic: heartbeatTopic, payload: EmptyPayload())
                    try? await context.clock.sleep(for: heartbeatInterval)
                }
            })
    }

    private static func friendHandler(
        _ definition: RequestDefinition<FriendTarget, FriendRelation>, _ accounts: Accounts,
        _ change:
            @escaping @Sendable (Accounts.Friends, String, String, RawEnvelope, ServiceContext) async throws ->
            FriendState
    ) -> TypedRequestHandler {
        definition.handler { request, context in
            let playerId = try request.player()
            guard request.payload.playerId != playerId else {
                throw ErrorReply(code: .invalidField, message: "that is you", field: "payload.playerId")
            }
            let state = try await change(
                accounts.friends, playerId, request.payload.playerId, request.envelope, context)
            return FriendRelation(playerId: request.payload.playerId, state: state)
        }
    }
}
