import Crypto
import Foundation
import PodiumMessages

/// Derives each player's private notification topic: `player/` followed by the hex
/// HMAC-SHA256 of `"<length of gameId>:<gameId><playerId>"` under the gateway's notification
/// secret (the length prefix keeps every (game, player) pair distinct).
///
/// The topic is unguessable without the secret, and the notification endpoint accepts only
/// subscriptions to complete topics of this form, so a client cannot subscribe by prefix to
/// other players' notifications; it can only hear a topic the gateway gave it.
struct NotificationTopics: Sendable {
    private let key: SymmetricKey

    init(secret: [UInt8]) {
        key = SymmetricKey(data: secret)
    }

    /// The public topic carrying a player's notifications.
    func topic(gameId: String, playerId: String) -> String {
        let mac = HMAC<SHA256>.authenticationCode(
            for: Data("\(gameId.utf8.count):\(gameId)\(playerId)".utf8), using: key)
        return Topic.playerNotificationPrefix + mac.map { String(format: "%02x", $0) }.joined()
    }

    /// The operators' topic: `operator/` and the HMAC of the word `operator`.
    var operatorTopic: String {
        let mac = HMAC<SHA256>.authenticationCode(for: Data("operator".utf8), using: key)
        return Self.operatorPrefix + mac.map { String(format: "%02x", $0) }.joined()
    }

    static let operatorPrefix = "operator/"

    /// Length of a complete player topic: the prefix and 64 hex digits.
    static let topicLength = Topic.playerNotificationPrefix.utf8.count + 64

    /// Whether `topic` is a complete, well-formed player or operator topic (the only
    /// subscriptions accepted).
    static func isAcceptableSubscription(_ topic: Data) -> Bool {
        for prefix in [Topic.playerNotificationPrefix, operatorPrefix] {
            let prefixBytes = Data(prefix.utf8)
            guard topic.count == prefixBytes.count + 64, topic.starts(with: prefixBytes) else { continue }
            return topic.dropFirst(prefixBytes.count).allSatisfy { byte in
                (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
                    || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte)
            }
        }
        return false
    }
}
