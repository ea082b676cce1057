import Foundation
import PodiumMessages
import ZeroMQ

/// The ZeroMQ front: the request ROUTER (`PODIUM_GATEWAY_REQUESTS`). It splits each message into
/// the client's routing id and the request body, refuses what is not a request by its frames
/// alone, and hands the body to the request pipeline with a connection whose replies go back on
/// the ROUTER with the frames the client expects (a REQ socket's empty delimiter mirrored).
extension Gateway {
    /// Reads client requests until cancelled; each gets exactly one reply.
    func serveClients() async {
        while true {
            let message: ZMQMessage
            do {
                guard let next = try await clientSocket.receiveMessage() else { return }
                message = next
            } catch {
                return
            }
            await handleClientMessage(message)
        }
    }

    func handleClientMessage(_ message: ZMQMessage) async {
        let peer = message.peerAddress
        switch ClientFrames.parse(message, maxBytes: settings.maxWholeMessageBytes) {
        case .success(let frames):
            await handle(frames.body, from: zeroMQConnection(frames, peer: peer))
        case .failure(let rejection):
            // Messages that cannot be read pay the connection's rate too, so that a flood of
            // garbage is refused like any other flood.
            let error = message.frames.first.flatMap { connectionRateRefusal(.init(transport: .zeromq, id: $0)) }
                ?? rejection.error
            logger.warning(
                "request rejected",
                metadata: [
                    "error.code": "\(error.code)", "frames": "\(message.frameCount)", "bytes": "\(message.byteCount)",
                    "transport": "zeromq", "peer": "\(peer ?? "-")",
                ])
            if let reply = rejection.reply(encode(errorEnvelope(error, correlationId: nil))) {
                await sendToClient(reply)
            }
        }
    }

    /// The pipeline's view of the ROUTER connection a message came from.
    func zeroMQConnection(_ frames: ClientFrames, peer: String?) -> ClientConnection {
        ClientConnection(key: .init(transport: .zeromq, id: frames.routingID), peer: peer) { [self] body in
            await sendToClient(frames.reply(body))
        }
    }

    func sendToClient(_ frames: [Data]) async {
        do {
            try await clientSocket.send(frames)
        } catch {
            logger.warning("reply not delivered", metadata: ["error": "\(error)"])
        }
    }
}
