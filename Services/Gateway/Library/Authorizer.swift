import Crypto
import Foundation
import PodiumMessages
import PodiumRuntime
import PodiumTokens

/// Decides who a request acts for and whether it may: the gateway's side of authentication.
///
/// - Player session tokens are verified (HS256 only, expiry required, not a refresh token),
///   then checked once with the auth service (not revoked), then cached.
/// - Game server keys and the admin key are compared in constant time.
/// - Players act only as themselves: a request naming another player is `forbidden`, and the
///   player id on what is forwarded is always the token's.
struct Authorizer: Sendable {
    let tokens: SessionTokens
    let serverKeys: [String: [UInt8]]
    let adminKey: [UInt8]?

    init(settings: GatewaySettings, tokens: SessionTokens) {
        self.tokens = tokens
        serverKeys = settings.serverKeys.mapValues { Array(SHA256.hash(data: Data($0.utf8))) }
        adminKey = settings.adminKey.map { Array(SHA256.hash(data: Data($0.utf8))) }
    }

    /// The credential's actor, before any session check; throws for a bad credential.
    func identify(_ request: ClientRequest, peer: String?, now: Int64) async throws(ErrorReply) -> (Actor, TokenClaims?)
    {
        if let key = request.adminKey {
            guard let adminKey, Self.matches(key, adminKey) else {
                throw ErrorReply(code: .invalidCredentials, message: "the admin key is not valid", field: "adminKey")
            }
            return (Actor(kind: .admin, peer: peer), nil)
        }
        if let key = request.serverKey {
            guard let gameId = request.gameId else {
                throw ErrorReply(
                    code: .missingField, message: "a server key acts for one game: give gameId", field: "gameId")
            }
            guard let expected = serverKeys[gameId], Self.matches(key, expected) else {
                throw ErrorReply(
                    code: .invalidCredentials, message: "the server key is not valid for this game", field: "serverKey")
            }
            return (Actor(kind: .server, gameId: gameId, peer: peer), nil)
        }
        if let token = request.token {
            let claims = try await tokens.verify(token, as: .session, now: now)
            return (Actor(kind: .player, playerId: claims.playerId, sessionId: claims.sid, peer: peer), claims)
        }
        return (Actor(kind: .anonymous, peer: peer), nil)
    }

    /// Applies the rules for the request's type (its ``RequestDefinition``'s access) and returns
    /// the player id to stamp.
    func authorize(_ request: ClientRequest, as actor: Actor) throws(ErrorReply) -> String? {
        let access = RequestCatalog.info(request.type)?.access
        if actor.kind == .anonymous {
            guard access?.isPublic == true else {
                throw ErrorReply(
                    code: .unauthenticated, message: "'\(request.type)' needs a session token, server key or admin key",
                    field: "token")
            }
            return request.playerId
        }
        if let access, !access.admits(actor.kind) {
            throw access.refusal(of: request.type, kind: actor.kind)
        }
        if access == nil, RequestCatalog.isOperatorName(request.type), actor.kind != .admin {
            // Not a defined type, but named as an operator's: refused the same way, so that
            // probing does not tell which operator types exist.
            throw ErrorReply(code: .forbidden, message: "'\(request.type)' is for operators only")
        }
        if actor.kind == .player, let named = request.playerId, named != actor.playerId {
            throw ErrorReply(code: .forbidden, message: "a player can act only as themselves", field: "playerId")
        }
        return actor.kind == .player ? actor.playerId : request.playerId
    }

    /// Whether a type needs no credential: logging in, and readiness checks (`health`,
    /// `gateway.health`, `<service>.health`).
    static func isPublic(_ type: MessageType) -> Bool { RequestCatalog.publicTypes.contains(type) }

    /// Whether `key` is the configured admin key (compared in constant time).
    func isAdminKey(_ key: String) -> Bool {
        guard let adminKey else { return false }
        return Self.matches(key, adminKey)
    }

    private static func matches(_ presented: String, _ expectedDigest: [UInt8]) -> Bool {
        let digest = Array(SHA256.hash(data: Data(presented.utf8)))
        return zip(digest, expectedDigest).reduce(UInt8(0)) { $0 | ($1.0 ^ $1.1) } == 0
    }
}
