import Foundation

/// The WebSocket connections that listen to each private notification topic: the same topics
/// the notification endpoint uses (``NotificationTopics``), so the gateway forwards one
/// notification to both kinds of subscriber from one place.
///
/// Pure state; a listener's `deliver` must not block (it queues the message for its socket).
struct SocketSubscribers: Sendable {
    struct Listener: Sendable {
        let id: UUID
        let deliver: @Sendable (Data) -> Void
    }

    private var byTopic: [String: [UUID: Listener]] = [:]

    /// How many (topic, socket) subscriptions there are.
    var count: Int { byTopic.values.reduce(0) { $0 + $1.count } }

    mutating func add(_ listener: Listener, topic: String) {
        byTopic[topic, default: [:]][listener.id] = listener
    }

    /// Removes every subscription of one socket.
    mutating func remove(_ id: UUID) {
        for topic in Array(byTopic.keys) {
            byTopic[topic]?.removeValue(forKey: id)
            if byTopic[topic]?.isEmpty == true { byTopic.removeValue(forKey: topic) }
        }
    }

    func listeners(_ topic: String) -> [Listener] {
        byTopic[topic].map { Array($0.values) } ?? []
    }
}
