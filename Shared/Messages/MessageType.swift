/// The `type` of an envelope: which request, reply, event or notification it carries.
///
/// Names are dotted, lower case, service first (`leaderboard.health`). The full list, with each
/// payload, is in docs/PROTOCOL.md.
public struct MessageType: RawRepresentable, Codable, Sendable, Hashable, CustomStringConvertible,
    ExpressibleByStringLiteral
{
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public init(_ rawValue: String) { self.rawValue = rawValue }
    public init(stringLiteral value: String) { self.rawValue = value }
    public var description: String { rawValue }

    /// The service a request type belongs to: the part before the first dot.
    public var serviceName: String {
        let prefix = rawValue.prefix(while: { $0 != "." })
        // The notification inbox is the challenge service's (docs/PROTOCOL.md 14.5).
        return prefix == "inbox" ? "challenge" : String(prefix)
    }

    // Replies.
    /// A successful reply; `correlationId` is the request's id.
    public static let reply: MessageType = "reply"
    /// A failed request; the payload is an ``ErrorReply``.
    public static let error: MessageType = "error"

    // Requests the gateway answers itself.
    /// Readiness of the gateway and every service.
    public static let health: MessageType = "health"
    /// Readiness of the gateway alone.
    public static let gatewayHealth: MessageType = "gateway.health"
    /// A game event to acknowledge and fan out.
    public static let eventPublish: MessageType = "event.publish"
    /// What became of an earlier request with a given id (accepted, sequence, what it caused).
    public static let receipt: MessageType = "receipt.get"
    /// Reads a range of the gateway's event log (services catching up; operators).
    public static let eventsRead: MessageType = "events.read"
    /// Asks for the topic that carries a player's private notifications.
    public static let notificationsSubscribe: MessageType = "notifications.subscribe"
    /// Everything Podium holds about a player, as one document (the player's own, or an operator's).
    public static let accountExport: MessageType = "account.export"
    /// Reads the gateway's audit log of operator requests (admin key).
    public static let adminAudit: MessageType = "admin.audit"

    // Published on the bus.
    /// A game event, as fanned out by the gateway.
    public static let gameEvent: MessageType = "game.event"
    /// A notification for one player.
    public static let notification: MessageType = "notification"

    // Published by services (their outboxes and bus topics), for other services.
    /// A score the leaderboard service accepted (its outbox; the challenge service follows it).
    public static let scoreAccepted: MessageType = "leaderboard.score-accepted"
    /// An achievement a player earned (the achievement service's outbox; challenges follow it).
    public static let achievementEarned: MessageType = "achievement.earned"
    /// Sessions the auth service revoked (the gateway drops them from its cache).
    public static let sessionsRevoked: MessageType = "auth.sessions-revoked"
    /// The auth service's heartbeat on its revocation family of topics.
    public static let authHeartbeat: MessageType = "auth.heartbeat"
    /// A player asked another to be friends (the auth service's outbox; challenges follow it).
    public static let friendRequested: MessageType = "auth.friend-requested"
    /// A player accepted another's friend request (the auth service's outbox).
    public static let friendAccepted: MessageType = "auth.friend-accepted"
    /// A player's account was deleted (the auth service's outbox): every service erases the
    /// player's data (``AccountErasure``).
    public static let accountDeleted: MessageType = "auth.account-deleted"

    // Between the gateway and the services.
    /// A service announces itself and what it handles; repeated as its heartbeat.
    public static let serviceAnnouncement: MessageType = "service.announce"

    /// Reads a range of a service's outbox, such as `leaderboard.outbox.read`.
    public static func outboxRead(of service: String) -> MessageType { MessageType("\(service).outbox.read") }
    /// A service's readiness request, such as `leaderboard.health`.
    public static func health(of service: String) -> MessageType { MessageType("\(service).health") }
    /// A service's diagnostic request that makes it publish a test notification.
    public static func testNotification(of service: String) -> MessageType {
        MessageType("\(service).test-notification")
    }
}
