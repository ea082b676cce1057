/// A message for one player (a challenge received, a challenge completed, …).
///
/// The envelope's `gameId` and `playerId` say whose it is; the payload says what happened.
public struct PlayerNotification: Codable, Sendable, Equatable {
    /// What kind of notification this is, such as `challenge.received` or `diagnostic.test`.
    public var kind: String
    /// A short text a client can show as is.
    public var message: String
    /// Kind-specific details (who, what, the scores involved).
    public var details: [String: JSONValue]

    public init(kind: String, message: String, details: [String: JSONValue] = [:]) {
        self.kind = kind
        self.message = message
        self.details = details
    }
}

/// The reply to `notifications.subscribe`: where a player's private notifications arrive.
public struct NotificationSubscription: Codable, Sendable, Equatable {
    /// The exact topic to subscribe to on the notification endpoint.
    public var topic: String
    /// The game the topic belongs to.
    public var gameId: String
    /// The player the topic belongs to.
    public var playerId: String

    public init(topic: String, gameId: String, playerId: String) {
        self.topic = topic
        self.gameId = gameId
        self.playerId = playerId
    }
}

/// The reply to a service's `<service>.test-notification` request.
public struct TestNotificationReceipt: Codable, Sendable, Equatable {
    /// The id of the published notification message.
    public var notificationId: String
    /// The internal bus topic it was published on.
    public var topic: String

    public init(notificationId: String, topic: String) {
        self.notificationId = notificationId
        self.topic = topic
    }
}
