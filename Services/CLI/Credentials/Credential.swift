import PodiumClient
import PodiumMessages

/// The one credential a request carries (the protocol allows exactly one), and where it came from.
enum Credential {
    /// None: only public requests (logging in, readiness checks) succeed.
    case anonymous
    /// The stored session of the logged-in player.
    case session(SessionGrant, file: SessionFile)
    /// A session token given with `--token`.
    case token(String)
    /// A game server's key (`--server-key`, `$PODIUM_SERVER_KEY`): acts for one game.
    case serverKey(String)
    /// The operator's key (`--admin-key`, `$PODIUM_ADMIN_KEY`).
    case adminKey(String)

    /// What the request carries.
    var client: ClientCredential {
        switch self {
        case .anonymous: return .none
        case .session(let grant, _): return .token(grant.sessionToken)
        case .token(let token): return .token(token)
        case .serverKey(let key): return .serverKey(key)
        case .adminKey(let key): return .adminKey(key)
        }
    }

    /// A server or admin key acts for no player of its own: requests about a player must name one.
    var needsPlayerNamed: Bool {
        switch self {
        case .serverKey, .adminKey: return true
        case .anonymous, .session, .token: return false
        }
    }

    var isAdmin: Bool {
        if case .adminKey = self { return true }
        return false
    }
}

/// The request types the gateway serves without a credential; the stored session is not sent
/// with them, so that an expired session never gets in the way of logging in again.
enum PublicRequestTypes {
    static let login: Set<MessageType> = [
        AuthRequests.register.type, AuthRequests.login.type, AuthRequests.deviceLogin.type, AuthRequests.refresh.type,
    ]

    /// Logging in, `health`, `gateway.health` and `<service>.health`.
    static func contains(_ type: MessageType) -> Bool {
        if login.contains(type) || type == .health || type == .gatewayHealth { return true }
        let name = type.rawValue
        return name.hasSuffix(".health") && !name.dropLast(".health".count).contains(".")
    }
}
