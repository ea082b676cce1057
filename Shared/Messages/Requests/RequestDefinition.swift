/// One request type of the protocol, typed: its name, its payload, its reply, who may send it,
/// and whether it changes state and keeps a receipt.
///
/// Every request a client or a service can send is defined once, in `Shared/Messages/Requests`
/// (``AuthRequests``, ``LeaderboardRequests``, ``AchievementRequests``, ``ChallengeRequests``,
/// ``GatewayRequests``): the owning service registers a typed handler for it, other services call
/// it through the same value and get its typed reply, and the gateway takes its lists of public,
/// operator-only and receipt-keeping types from ``RequestCatalog``. The JSON on the wire is the
/// payload's and reply's `Codable` form, as docs/PROTOCOL.md documents it.
public struct RequestDefinition<Payload: Codable & Sendable, Reply: Codable & Sendable>: Sendable {
    /// What the definition says about the type, without its payload and reply types.
    public let info: RequestInfo

    /// The type's name on the wire (`leaderboard.submit`).
    public var type: MessageType { info.type }

    /// - Parameters:
    ///   - owner: the service that answers it; by default the part of `type` before the first dot.
    public init(
        _ type: MessageType, access: RequestAccess, changesState: Bool = false,
        keepsReceipt: Bool = false,
        owner: String? = nil
    ) {
        info = RequestInfo(
            type: type, access: access, changesState: changesState || keepsReceipt,
            keepsReceipt: keepsReceipt,
            owner: owner ?? type.serviceName)
    }
}

/// The untyped part of a ``RequestDefinition``: enough for the gateway to route, authorize and
/// find receipts.
public struct RequestInfo: Sendable, Hashable {
    public let type: MessageType
    /// Who may send it.
    public let access: RequestAccess
    /// Whether it changes state (a read does not).
    public let changesState: Bool
    /// Whether its request id is an idempotency key: the answer is kept as a receipt, a resend
    /// gets it again, and `receipt.get` finds it (docs/PROTOCOL.md 4.2).
    public let keepsReceipt: Bool
    /// The service that answers it (`gateway` for the types the gateway answers itself).
    public let owner: String
}

/// Who may send a request type, by the kind of credential the gateway established
/// (``Actor/Kind``).
public struct RequestAccess: Sendable, Hashable, CustomStringConvertible {
    /// The credential kinds admitted.
    public let kinds: Set<Actor.Kind>
    /// For errors and documentation: `public`, `player`, …
    public let description: String

    public init(_ description: String, kinds: Set<Actor.Kind>) {
        self.description = description
        self.kinds = kinds
    }

    /// Anyone, without a credential: logging in, readiness.
    public static let anyone = RequestAccess(
        "public", kinds: [.anonymous, .player, .server, .admin, .service])
    /// Any credential: a player's session, a game server's key, the admin key, another service.
    public static let signedIn = RequestAccess(
        "signed in", kinds: [.player, .server, .admin, .service])
    /// A player's own session token only (their profile, friends, sessions).
    public static let player = RequestAccess("player", kinds: [.player])
    /// A game server's key or the admin key (and services), not a player.
    public static let gameServer = RequestAccess("game server", kinds: [.server, .admin, .service])
    /// The operator's admin key only.
    public static let `operator` = RequestAccess("operator", kinds: [.admin])
    /// Other Podium services only: never clients.
    public static let service = RequestAccess("service", kinds: [.service])
    /// Other Podium services and the operator.
    public static let serviceOrOperator = RequestAccess(
        "service or operator", kinds: [.service, .admin])

    /// Whether a request acting as `kind` may be sent (nil: the gateway stamped no actor, as anonymous).
    public func admits(_ kind: Actor.Kind?) -> Bool { kinds.contains(kind ?? .anonymous) }

    /// Needs no credential.
    public var isPublic: Bool { kinds.contains(.anonymous) }
    /// Only the admin key.
    public var isOperatorOnly: Bool { kinds == [.admin] }

    /// The error for an actor this access does not admit: `unauthenticated` without a
    /// credential, else `forbidden`.
    public func refusal(of type: MessageType, kind: Actor.Kind?) -> ErrorReply {
        if kind == nil || kind == .anonymous {
            return ErrorReply(
                code: .unauthenticated, message: "'\(type)' needs a session token, server key or admin key",
                field: "token")
        }
        switch self {
        case .player:
            return ErrorReply(code: .forbidden, message: "'\(type)' needs a player's session token")
        case .operator: return ErrorReply(code: .forbidden, message: "'\(type)' is for operators only")
        case .service:
            return ErrorReply(
                code: .forbidden, message: "'\(type)' is sent by Podium's services only, not by clients")
        case .serviceOrOperator:
            return ErrorReply(
                code: .forbidden, message: "'\(type)' is sent by Podium's services and operators (the admin key) only")
        default:
            return ErrorReply(
                code: .forbidden, message: "'\(type)' is not for this credential (\(description) only)")
        }
    }
}
