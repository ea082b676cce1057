import Foundation
import Logging
import PodiumMessages
import ZeroMQ

extension Gateway {
    /// Moves each bus notification to its player's private topic on the public endpoint.
    /// The envelope bytes are forwarded unchanged.
    func forwardNotifications() async {
        while true {
            let frames: [Data]
            do {
                guard let next = try await notificationFeed.receive() else { return }
                frames = next
            } catch {
                return
            }
            guard frames.count == 2, let topicText = String(data: frames[0], encoding: .utf8),
                let target = Topic(rawValue: topicText).notificationTarget
            else {
                logger.warning("notification dropped: malformed bus message", metadata: ["frames": "\(frames.count)"])
                continue
            }
            let topic = topics.topic(gameId: target.gameId, playerId: target.playerId)
            do {
                try await notificationSocket.send([Data(topic.utf8), frames[1]])
            } catch {
                return
            }
        }
    }

    /// Runs on the notification socket's owner thread for each subscription message: accepts
    /// complete player topics, refuses everything else (including the empty "everything" prefix).
    static func applySubscription(_ frames: [Data], on socket: ZMQSocket, logger: Logger) {
        guard frames.count == 1, let kind = frames[0].first, kind == 0 || kind == 1 else {
            logger.warning("notification endpoint: unexpected message dropped")
            return
        }
        let topic = Data(frames[0].dropFirst())
        guard NotificationTopics.isAcceptableSubscription(topic) else {
            logger.warning(
                "notification subscription refused",
                metadata: ["topic.length": "\(topic.count)", "reason": "not a complete player topic"])
            return
        }
        do {
            try socket.set(kind == 1 ? .subscribe(topic) : .unsubscribe(topic))
        } catch {
            logger.error("notification subscription failed", metadata: ["error": "\(error)"])
        }
    }
}
