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
    public static func blueprint(configuration: AuthConfiguration? = nil, openStore: @escaping AccountStoreOpener) -> ServiceBlueprint {
        ServiceBlueprint(name: name) { settings, clock in
            let configuration = try configuration
                ?? AuthConfiguration(reader: RuntimeSettings.environmentReader(), developmentMode: settings.developmentMode)
            let store = try await openStore(settings)
            let accounts = Accounts(
                store: store, tokens: await SessionTokens(key: configuration.tokenKey),
                hasher: PasswordHasher(cost: configuration.passwordCost), configuration: configuration, clock: clock)
            var service = definition(accounts: accounts)
            service.storage = store.location
            service.shutdown = { await store.close() }
            service.sizedStorage = store as? any StorageSize
            return service
        }
    }

    static func definition(accounts: Accounts) -> ServiceDefinition {
        let handlers: [MessageType: RequestHandler] = [
            "auth.register": { request, context in
                let registration = try payload(request, as: Registration.self)
                return try encode(await accounts.register(registration, context: context))
            },
            "auth.login": { request, context in
                try encode(await accounts.login(try payload(request, as: PasswordLogin.self), peer: request.actor?.peer, context: context))
            },
            "auth.device-login": { request, context in
                try encode(await accounts.deviceLogin(try payload(request, as: DeviceLogin.self), context: context))
            },
            "auth.refresh": { request, context in
                try encode(await accounts.refresh(try payload(request, as: SessionRefresh.self), context: context))
            },
            "auth.link": { request, _ in
                try encode(await accounts.link(try player(request), try payload(request, as: AccountLink.self)))
            },
            "auth.logout": { request, context in
                let (playerId, sessionId) = try session(request)
                return try encode(await accounts.revoke(playerId: playerId, sessionId: sessionId, context: context))
            },
            "auth.revoke": { request, context in
                let (playerId, current) = try session(request)
                let revocation = try payload(request, as: SessionRevocation.self)
                guard revocation.allSessions == true || revocation.sessionId != nil else {
                    throw ErrorReply(
                        code: .missingField, message: "give a sessionId, or allSessions: true", field: "payload.sessionId")
                }
                let target = revocation.allSessions == true ? nil : (revocation.sessionId ?? current)
                return try encode(await accounts.revoke(playerId: playerId, sessionId: target, context: context))
            },
            "auth.admin.ban": { request, context in
                try request.requireOperator()
                return try encode(await accounts.ban(try payload(request, as: BanRequest.self), context: context))
            },
            "auth.admin.unban": { request, context in
                try request.requireOperator()
                return try encode(await accounts.unban(try payload(request, as: PlayerTarget.self), context: context))
            },
            "auth.admin.revoke-session": { request, context in
                try request.requireOperator()
                return try encode(await accounts.revokeSession(try payload(request, as: SessionTarget.self), context: context))
            },
            "auth.admin.lookup": { request, _ in
                try request.requireOperator()
                return try encode(await accounts.lookup(try payload(request, as: PlayerLookup.self)))
            },
            "auth.profile": { request, _ in try encode(await accounts.profile(try player(request))) },
            "auth.display-name": { request, _ in
                try encode(await accounts.rename(try player(request), try payload(request, as: DisplayNameChange.self)))
            },
            "auth.players": { request, _ in
                _ = try authenticated(request)
                return try encode(await accounts.profiles(try payload(request, as: ProfileLookup.self)))
            },
            "auth.session-check": { request, _ in
                try internalOnly(request)
                return try encode(await accounts.check(try payload(request, as: SessionCheck.self)))
            },
            "auth.friends.request": friendHandler(accounts) { try await $0.request(from: $1, to: $2, now: $3) },
            "auth.friends.accept": friendHandler(accounts) { try await $0.accept(playerId: $1, from: $2, now: $3) },
            "auth.friends.decline": friendHandler(accounts) { friends, me, other, _ in try await friends.decline(playerId: me, from: other) },
            "auth.friends.remove": friendHandler(accounts) { friends, me, other, _ in try await friends.remove(playerId: me, otherPlayerId: other) },
            "auth.friends.block": friendHandler(accounts) { try await $0.block(playerId: $1, otherPlayerId: $2, now: $3) },
            "auth.friends.unblock": friendHandler(accounts) { friends, me, other, _ in try await friends.unblock(playerId: me, otherPlayerId: other) },
            "auth.friends.list": { request, _ in try encode(await accounts.friendList(try player(request))) },
            "auth.friends.check": { request, _ in
                try internalOnly(request)
                return try encode(await accounts.friendship(try payload(request, as: FriendshipQuery.self)))
            },
            "auth.friends.of": { request, _ in
                try internalOnly(request)
                return try encode(await accounts.friendIDs(try payload(request, as: FriendsOfQuery.self)))
            },
        ]
        return ServiceDefinition(
            name: name, subscriptions: subscriptions, requestHandlers: handlers,
            background: { context in
                // A steady heartbeat in the `auth` family, so that a lost revocation shows up at
                // the gateway as a sequence gap within seconds even when no other one follows.
                while !Task.isCancelled {
                    _ = try? await context.publisher.publish(type: "auth.heartbeat", topic: heartbeatTopic, payload: EmptyPayload())
                    try? await context.clock.sleep(for: heartbeatInterval)
                }
            })
    }

    private static func friendHandler(
        _ accounts: Accounts,
        _ change: @escaping @Sendable (Accounts.Friends, String, String, Int64) async throws -> FriendState
    ) -> RequestHandler {
        { request, context in
            let playerId = try player(request)
            let target = try payload(request, as: FriendTarget.self)
            guard target.playerId != playerId else {
                throw ErrorReply(code: .invalidField, message: "that is you", field: "payload.playerId")
            }
            let state = try await change(accounts.friends, playerId, target.playerId, context.clock.nowMilliseconds)
            return try encode(FriendRelation(playerId: target.playerId, state: state))
        }
    }

    // MARK: - Request helpers

    static func payload<Value: Decodable>(_ request: RawEnvelope, as type: Value.Type) throws -> Value {
        try request.requestPayload(as: type)
    }

    /// The authenticated player, or `forbidden`.
    static func player(_ request: RawEnvelope) throws -> String {
        guard let actor = request.actor, actor.kind == .player, let playerId = actor.playerId else {
            throw ErrorReply(code: .forbidden, message: "this request needs a player's session token")
        }
        return playerId
    }

    static func session(_ request: RawEnvelope) throws -> (playerId: String, sessionId: String) {
        guard let actor = request.actor, actor.kind == .player, let playerId = actor.playerId, let sessionId = actor.sessionId else {
            throw ErrorReply(code: .forbidden, message: "this request needs a player's session token")
        }
        return (playerId, sessionId)
    }

    static func authenticated(_ request: RawEnvelope) throws -> Actor {
        guard let actor = request.actor, actor.kind != .anonymous else {
            throw ErrorReply(code: .unauthenticated, message: "this request needs a credential")
        }
        return actor
    }

    static func internalOnly(_ request: RawEnvelope) throws {
        guard let kind = request.actor?.kind, kind == .service || kind == .admin else {
            throw ErrorReply(code: .forbidden, message: "only Podium's services and operators may ask this")
        }
    }

    static func encode<Value: Encodable>(_ value: Value) throws -> JSONValue {
        try WireCodec.jsonValue(value)
    }
}
