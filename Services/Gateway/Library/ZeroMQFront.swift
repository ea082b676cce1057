import Foundation
import Logging
import PodiumMessages
import PodiumRuntime
import ZeroMQ

/// The ZeroMQ front: the request ROUTER (`PODIUM_GATEWAY_REQUESTS`). It splits each message into
/// the client's routing id and the request body, refuses what is not a request by its frames
/// alone, and hands the body to the request pipeline with a connection whose replies go back on
/// the ROUTER with the frames the client expects (a REQ socket's empty delimiter mirrored).
final class ZeroMQFront: Sendable {
    /// One request the ROUTER read, waiting in its connection's lane.
    struct Work: Sendable {
        let frames: ClientFrames
        let peer: String?
    }

    let socket: AsyncSocket
    /// Replies to clients, handed to the socket in batches.
    private let sends: SendQueue
    /// Requests waiting for their connection's turn.
    private let lanes = Locked(ClientLanes<Work>(capacity: ZeroMQFront.laneCapacity))
    private let pipeline: any RequestPipeline
    /// Messages that cannot be read pay their connection's rate too.
    private let limits: RequestLimits
    /// Largest message read as a request (`ClientFrames`).
    private let maxWholeMessageBytes: Int
    private let clock: any PodiumClock
    private let logger: Logger

    init(
        socket: AsyncSocket, pipeline: any RequestPipeline, limits: RequestLimits, maxWholeMessageBytes: Int,
        clock: any PodiumClock,
        logger: Logger
    ) {
        self.socket = socket
        self.sends = SendQueue(socket: socket)
        self.pipeline = pipeline
        self.limits = limits
        self.maxWholeMessageBytes = maxWholeMessageBytes
        self.clock = clock
        self.logger = logger
    }

    /// Requests waiting in all lanes before the front stops reading (the socket's own inbox and
    /// high-water mark then hold the rest back).
    static let laneCapacity = 4096

    /// Messages the front takes from its socket at a time.
    static let batch = 256

    /// Reads client requests until cancelled; each gets exactly one reply. A connection's
    /// requests enter the pipeline in order; different connections' side by side (ClientLanes).
    func serve() async {
        await withDiscardingTaskGroup { group in
            while true {
                while !lanes.value.hasRoom {
                    try? await Task.sleep(for: .milliseconds(1))
                    if Task.isCancelled { return }
                }
                // Everything read and waiting, in one hand-over from the socket's thread.
                let messages: [ZMQMessage]
                do {
                    guard let next = try await socket.receiveBatch(maximum: Self.batch) else { return }
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

    /// Stops: replies queued in the last moment leave before the socket closes.
    func close() async {
        await sends.waitUntilSent()
        await socket.close()
    }

    /// Handles a lane's requests one after the other until it has none left.
    private func runLane(_ first: Work) async {
        let lane = first.frames.routingID
        var next: Work? = first
        while let work = next {
            await pipeline.handle(work.frames.body, from: connection(work.frames, peer: work.peer))
            next = lanes.withLock { $0.next(on: lane) }
        }
    }

    /// The request a message holds, or nil after answering a message that holds none.
    private func accept(_ message: ZMQMessage) -> Work? {
        let peer = message.peerAddress
        switch ClientFrames.parse(message, maxBytes: maxWholeMessageBytes) {
        case .success(let frames):
            return Work(frames: frames, peer: peer)
        case .failure(let rejection):
            // Messages that cannot be read pay the connection's rate too, so that a flood of
            // garbage is refused like any other flood.
            let error =
                message.frames.first.flatMap { limits.connectionRateRefusal(.init(transport: .zeromq, id: $0)) }
                ?? rejection.error
            if error.code == .messageTooLarge { RequestLimits.countRefusal(.messageTooLarge) }
            logger.warning(
                "request rejected",
                metadata: [
                    "error.code": "\(error.code)", "frames": "\(message.frameCount)", "bytes": "\(message.byteCount)",
                    "transport": "zeromq", "peer": "\(peer ?? "-")",
                ])
            if let reply = rejection.reply(Envelopes.encode(Envelopes(clock: clock).error(error, correlationId: nil))) {
                send(reply)
            }
            return nil
        }
    }

    /// The pipeline's view of the ROUTER connection a message came from.
    private func connection(_ frames: ClientFrames, peer: String?) -> ClientConnection {
        ClientConnection(
            key: .init(transport: .zeromq, id: frames.routingID), peer: peer,
            deliver: { [self] envelope in send(frames.reply(Envelopes.encode(envelope))) },
            deliverEncoded: { [self] body in send(frames.reply(body)) })
    }

    /// Sends to a client through the batching queue (``SendQueue``): the reply is on its way
    /// when this returns.
    private func send(_ frames: [Data]) {
        sends.send(frames) { [logger] error in
            logger.warning("reply not delivered", metadata: ["error": "\(error)"])
        }
    }
}
