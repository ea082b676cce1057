import Foundation
import Logging
import Metrics
import PodiumMessages
import PodiumRuntime
import ZeroMQ

/// The notification endpoint (`PODIUM_GATEWAY_NOTIFICATIONS`, XPUB with manual subscriptions)
/// and the bus feed it relays: each `notify/<game>/<player>` message goes to that player's
/// private topic only, `ops/…` to the operators' topic, both also to the WebSockets listening to
/// the topic; `auth/…` messages go to the session cache instead (``ClientSessions``).
final class NotificationRelay: Sendable {
    /// The bus messages the gateway follows (an inproc subscriber on its own hub).
    let feed: AsyncSocket
    /// The public notification endpoint.
    let socket: AsyncSocket
    private let topics: NotificationTopics
    private let sessions: ClientSessions
    /// The WebSockets listening to notification topics.
    let sockets: WebSocketHub
    /// The top pages the gateway keeps: accepted scores drop their game's.
    private let readCache: ReadCache?
    private let logger: Logger

    init(
        feed: AsyncSocket, socket: AsyncSocket, topics: NotificationTopics, sessions: ClientSessions,
        sockets: WebSocketHub, readCache: ReadCache? = nil,
        logger: Logger
    ) {
        self.readCache = readCache
        self.feed = feed
        self.socket = socket
        self.topics = topics
        self.sessions = sessions
        self.sockets = sockets
        self.logger = logger
    }

    /// Bus topics the gateway follows besides notifications: session revocations and operator news.
    static let revocationPrefix = "auth/"
    static let operatorBusPrefix = "ops/"

    /// Relays until the feed or the endpoint closes.
    func run() async {
        var tracker = SequenceTracker()
        let forwarded = Counter(label: MetricNames.notificationsForwarded)
        while true {
            // What the feed holds goes out in one hand-over, in the order it came.
            let messages: [ZMQMessage]
            do {
                guard let next = try await feed.receiveBatch() else { return }
                messages = next
            } catch {
                return
            }
            var outgoing: [[Data]] = []
            for message in messages {
                if let published = route(message.frames, tracker: &tracker) { outgoing.append(published) }
            }
            guard !outgoing.isEmpty else { continue }
            if await socket.send(batch: outgoing).contains(where: { $0.error == .socketClosed }) { return }
            forwarded.increment(by: outgoing.count)
        }
    }

    /// Closes the feed and the endpoint (``run()`` returns).
    func close() async {
        await feed.close()
        await socket.close()
    }

    /// What one bus message becomes on the notification socket (nil: nothing, it was a
    /// revocation or malformed); WebSocket listeners of the topic get it at once.
    private func route(_ frames: [Data], tracker: inout SequenceTracker) -> [Data]? {
        guard frames.count == 2, let topicText = String(data: frames[0], encoding: .utf8) else {
            logger.warning("bus message dropped: malformed", metadata: ["frames": "\(frames.count)"])
            return nil
        }
        if let gameId = PopularReads.game(ofScoreTopic: topicText) {
            readCache?.invalidate(gameId: gameId)
            return nil
        }
        if topicText.hasPrefix(Self.revocationPrefix) {
            sessions.follow(authMessage: frames[1], isRevocation: topicText == "auth/revoked", tracker: &tracker)
            return nil
        }
        let topic: String
        if topicText.hasPrefix(Self.operatorBusPrefix) {
            topic = topics.operatorTopic
        } else if let target = Topic(rawValue: topicText).notificationTarget {
            topic = topics.topic(gameId: target.gameId, playerId: target.playerId)
        } else {
            logger.warning("notification dropped: malformed topic", metadata: ["topic": "\(topicText)"])
            return nil
        }
        sockets.deliver(frames[1], topic: topic)
        return [Data(topic.utf8), frames[1]]
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
                metadata: ["topic.length": "\(topic.count)", "reason": "not a complete player or operator topic"])
            return
        }
        do {
            try socket.set(kind == 1 ? .subscribe(topic) : .unsubscribe(topic))
        } catch {
            logger.error("notification subscription failed", metadata: ["error": "\(error)"])
        }
    }
}

/// Tells operators something about the deployment (services coming and going) on their topic
/// of the notification endpoint.
struct OperatorNotifier: Sendable {
    let socket: AsyncSocket
    let topic: String
    /// Names the gateway instance as the notifications' publisher.
    let instanceID: String
    let clock: any PodiumClock

    func notify(kind: String, message: String, details: [String: JSONValue] = [:]) async {
        let envelope = Envelope(
            type: .notification, timestamp: clock.nowMilliseconds, publisher: instanceID,
            payload: PlayerNotification(kind: kind, message: message, details: details))
        guard let body = try? WireCodec.encode(envelope) else { return }
        _ = try? await socket.send([Data(topic.utf8), body])
    }
}
