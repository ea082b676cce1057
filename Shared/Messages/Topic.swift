import Foundation

/// A pub/sub topic: the first frame of every bus and notification message.
///
/// One scheme, segments separated by `/`, most general first, so that a prefix subscription
/// selects a family (`event/`), a game (`event/<gameId>/`) or one name (`event/<gameId>/<name>`):
///
/// | topic | carries | published by |
/// |---|---|---|
/// | `event/<gameId>/<eventName>` | a game event | gateway |
/// | `notify/<gameId>/<playerId>` | a notification for one player | any service |
/// | `player/<key>` | the same notification, on the public endpoint | gateway |
///
/// A subscriber ends a prefix with `/` so that `event/g1/` does not also match `event/g10/…`.
public struct Topic: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public var description: String { rawValue }

    /// The bytes of the topic frame.
    public var frame: Data { Data(rawValue.utf8) }

    /// A game event fanned out by the gateway.
    public static func gameEvent(gameId: String, name: String) -> Topic {
        Topic(rawValue: "event/\(gameId)/\(name)")
    }

    /// A private notification on the internal bus.
    public static func notification(gameId: String, playerId: String) -> Topic {
        Topic(rawValue: "notify/\(gameId)/\(playerId)")
    }

    /// Prefix of every game event.
    public static let allGameEvents = "event/"
    /// Prefix of every internal notification.
    public static let allNotifications = "notify/"
    /// Prefix of every public per-player notification topic.
    public static let playerNotificationPrefix = "player/"

    /// Splits an internal notification topic into its game and player, or `nil`.
    public var notificationTarget: (gameId: String, playerId: String)? {
        guard rawValue.hasPrefix(Self.allNotifications) else { return nil }
        let rest = rawValue.dropFirst(Self.allNotifications.count)
        guard let slash = rest.firstIndex(of: "/") else { return nil }
        let gameId = String(rest[..<slash])
        let playerId = String(rest[rest.index(after: slash)...])
        guard !gameId.isEmpty, !playerId.isEmpty else { return nil }
        return (gameId, playerId)
    }
}
