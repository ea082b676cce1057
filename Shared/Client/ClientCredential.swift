import PodiumMessages

/// The one credential a request carries (the protocol allows exactly one, docs/PROTOCOL.md 5).
public enum ClientCredential: Sendable, Hashable {
    /// None: only public requests (logging in, readiness) succeed.
    case none
    /// A player's session token (from `auth.login` and friends).
    case token(String)
    /// A game server's key for the request's game.
    case serverKey(String)
    /// The operator's admin key.
    case adminKey(String)

    /// Sets the request's credential field (and clears the others).
    public func apply(to request: inout ClientRequest) {
        request.token = nil
        request.serverKey = nil
        request.adminKey = nil
        switch self {
        case .none: break
        case .token(let token): request.token = token
        case .serverKey(let key): request.serverKey = key
        case .adminKey(let key): request.adminKey = key
        }
    }
}
