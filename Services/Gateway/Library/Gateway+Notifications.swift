import Foundation
import Logging
import Metrics
import PodiumMessages
import PodiumRuntime
import ZeroMQ

extension Gateway {
    /// Follows the bus messages the gateway itself acts on:
    /// - `notify/<game>/<player>`: forwarded, envelope bytes unchanged, to the player's private topic;
    /// - `ops/…`: forwarded to the operators' topic;
    /// - `auth/revoked`: the sessions' cached tokens are forgotten at once. If a revocation may
    ///   have been missed (a gap in the auth service's sequence), every cached token is.
    func forwardNotifications() async {
        var tracker = SequenceTracker()
        let forwarded = Counter(label: MetricNames.notificationsForwarded)
        while true {
            // What the feed holds goes out in one hand-over, in the order it came.
            let messages: [ZMQMessage]
            do {
                guard let next = try await notificationFeed.receiveBatch() else { return }
                messages = next
            } catch {
                return
            }
            var outgoing: [[Data]] = []
            for message in messages {
                if let published = route(message.frames, tracker: &tracker) { outgoing.append(published) }
            }
            guard !outgoing.isEmpty else { continue }
            if await notificationSocket.send(batch: outgoing).contains(where: { $0.error == .socketClosed }) { return }
            forwarded.increment(by: outgoing.count)
        }
    }

    /// What one bus message becomes on the notification socket (nil: nothing, it was a
    /// revocation or malformed); WebSocket listeners of the topic get it at once.
    private func route(_ frames: [Data], tracker: inout SequenceTracker) -> [Data]? {
        guard frames.count == 2, let topicText = String(data: frames[0], encoding: .utf8) else {
            logger.warning("bus message dropped: malformed", metadata: ["frames": "\(frames.count)"])
            return nil
        }
        if topicText.hasPrefix(Self.revocationPrefix) {
            applyRevocation(frames[1], isRevocation: topicText == "auth/revoked", tracker: &tracker)
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
        for listener in socketSubscribers.withLock({ $0.listeners(topic) }) {
            listener.deliver(frames[1])
        }
        return [Data(topic.utf8), frames[1]]
    }

    /// Follows the auth service's `auth/…` family: a gap in its sequence (a revocation may be
    /// lost) flushes the token cache; a revocation drops its sessions' tokens.
    private func applyRevocation(_ body: Data, isRevocation: Bool, tracker: inout SequenceTracker) {
        guard let header = try? WireCodec.decode(RawEnvelope.self, from: body) else {
            logger.warning("auth message dropped: undecodable")
            return
        }
        if let publisher = header.publisher, let sequence = header.sequence,
            case .gap = tracker.observe(publisher: publisher, sequence: sequence)
        {
            logger.warning("revocations may have been missed; forgetting every cached session token")
            sessions.withLock { $0.flush() }
        }
        guard isRevocation, let envelope = try? header.decodePayload(as: SessionsRevoked.self) else { return }
        let payload = envelope
        let until = clock.nowMilliseconds + Self.revocationMemoryMilliseconds
        sessions.withLock { $0.revoke(sessionIds: payload.sessionIds, until: until, ban: payload.ban, playerId: payload.playerId) }
        endSockets(of: payload.sessionIds, .sessionRevoked)
        logger.info(
            "sessions revoked", metadata: ["player.id": "\(payload.playerId)", "sessions": "\(payload.sessionIds.count)"])
    }

    /// Closes the WebSockets that listen for these sessions (their subscriptions go first, so
    /// nothing more is pushed to them).
    func endSockets(of sessionIds: [String], _ reason: SocketEnd) {
        for listener in socketSubscribers.withLock({ $0.remove(sessionIds: sessionIds) }) {
            listener.end(reason)
        }
    }

    /// Closes the WebSockets whose hello's session token has expired.
    func endExpiredSockets() {
        for listener in socketSubscribers.withLock({ $0.removeExpired(now: clock.nowMilliseconds) }) {
            listener.end(.sessionExpired)
        }
    }

    /// How long a revoked session is remembered: longer than any session token lives.
    static let revocationMemoryMilliseconds: Int64 = 25 * 3_600_000

    /// Tells operators something about the deployment (services coming and going).
    func notifyOperators(kind: String, message: String, details: [String: JSONValue] = [:]) async {
        let envelope = Envelope(
            type: .notification, timestamp: clock.nowMilliseconds, publisher: settings.runtime.instanceID,
            payload: PlayerNotification(kind: kind, message: message, details: details))
        guard let body = try? WireCodec.encode(envelope) else { return }
        _ = try? await notificationSocket.send([Data(topics.operatorTopic.utf8), body])
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
