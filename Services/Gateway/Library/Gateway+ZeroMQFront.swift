import Foundation
import PodiumMessages
import ZeroMQ

/// The ZeroMQ front: the request ROUTER (`PODIUM_GATEWAY_REQUESTS`). It splits each message into
/// the client's routing id and the request body, refuses what is not a request by its frames
/// alone, and hands the body to the request pipeline with a connection whose replies go back on
/// the ROUTER with the frames the client expects (a REQ socket's empty delimiter mirrored).
extension Gateway {
    /// One request the ROUTER read, waiting in its connection's lane.
    struct ZeroMQWork: Sendable {
        let frames: ClientFrames
        let peer: String?
    }

    /// Requests waiting in all lanes before the front stops reading (the socket's own inbox and
    /// high-water mark then hold the rest back).
    static let laneCapacity = 4096

    /// Reads client requests until cancelled; each gets exactly one reply. A connection's
    /// requests enter the pipeline in order; different connections' side by side (ClientLanes).
    func serveClients() async {
        await withDiscardingTaskGroup { group in
            while true {
                while !lanes.value.hasRoom {
                    try? await Task.sleep(for: .milliseconds(1))
                    if Task.isCancelled { return }
                }
                // Everything read and waiting, in one hand-over from the socket's thread.
                let messages: [ZMQMessage]
                do {
                    guard let next = try await clientSocket.receiveBatch(maximum: Self.frontBatch) else { return }
                    messages = next
                } catch {
                    return
                }
                for message in messages {
                    guard let work = accept(message) else { continue }
                    if lanes.withLock({ $0.enqueue(work, on: work.frames.routingID) }) {
                        group.addTask { await self.runLane(work) }
                    }
                }
            }
        }
    }

    /// Messages the front takes from its socket at a time.
    static let frontBatch = 256

    /// Handles a lane's requests one after the other until it has none left.
    private func runLane(_ first: ZeroMQWork) async {
        let lane = first.frames.routingID
        var next: ZeroMQWork? = first
        while let work = next {
            await handle(work.frames.body, from: zeroMQConnection(work.frames, peer: work.peer))
            next = lanes.withLock { $0.next(on: lane) }
        }
    }

    /// The request a message holds, or nil after answering a message that holds none.
    private func accept(_ message: ZMQMessage) -> ZeroMQWork? {
        let peer = message.peerAddress
        switch ClientFrames.parse(message, maxBytes: settings.maxWholeMessageBytes) {
        case .success(let frames):
            return ZeroMQWork(frames: frames, peer: peer)
        case .failure(let rejection):
            // Messages that cannot be read pay the connection's rate too, so that a flood of
            // garbage is refused like any other flood.
            let error = message.frames.first.flatMap { connectionRateRefusal(.init(transport: .zeromq, id: $0)) }
                ?? rejection.error
            if error.code == .messageTooLarge { Self.countRefusal(.messageTooLarge) }
            logger.warning(
                "request rejected",
                metadata: [
                    "error.code": "\(error.code)", "frames": "\(message.frameCount)", "bytes": "\(message.byteCount)",
                    "transport": "zeromq", "peer": "\(peer ?? "-")",
                ])
            if let reply = rejection.reply(encode(errorEnvelope(error, correlationId: nil))) {
                sendToClient(reply)
            }
            return nil
        }
    }

    /// The pipeline's view of the ROUTER connection a message came from.
    func zeroMQConnection(_ frames: ClientFrames, peer: String?) -> ClientConnection {
        ClientConnection(
            key: .init(transport: .zeromq, id: frames.routingID), peer: peer,
            deliver: { [self] envelope in sendToClient(frames.reply(encode(envelope))) },
            deliverEncoded: { [self] body in sendToClient(frames.reply(body)) })
    }

    /// Sends to a client through the batching queue (``SendQueue``): the reply is on its way
    /// when this returns.
    func sendToClient(_ frames: [Data]) {
        clientSends.send(frames) { [logger] error in
            logger.warning("reply not delivered", metadata: ["error": "\(error)"])
        }
    }
}
