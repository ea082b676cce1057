import Foundation
import PodiumMessages
import ZeroMQ

/// One message from a client, as the request ROUTER received it.
struct ClientFrames: Sendable {
    /// The connection's routing id, frame 0.
    let routingID: Data
    /// Whether the client sent an empty delimiter first (a REQ socket); the reply mirrors it.
    let hasDelimiter: Bool
    /// The JSON request.
    let body: Data

    /// Most frames a request may have: the routing id, a REQ socket's empty delimiter, the body.
    static let maxFrames = 3

    /// The frames of a reply to this client.
    func reply(_ body: Data) -> [Data] {
        hasDelimiter ? [routingID, Data(), body] : [routingID, body]
    }

    /// Splits ROUTER frames: `[id, body]` from a DEALER, `[id, "", body]` from a REQ.
    static func parse(_ frames: [Data]) -> Result<ClientFrames, FrameRejection> {
        parse(ZMQMessage(frames: frames), maxBytes: .max)
    }

    /// Splits a received message, refusing one with too many frames or more than `maxBytes` in
    /// all its frames together (whether or not the receiver kept them all).
    static func parse(_ message: ZMQMessage, maxBytes: Int) -> Result<ClientFrames, FrameRejection> {
        let frames = message.frames
        guard let routingID = frames.first else { return .failure(FrameRejection(routingID: nil, hasDelimiter: false)) }
        let hasDelimiter = frames.count > 2 && frames[1].isEmpty
        if message.frameCount > maxFrames {
            return .failure(
                FrameRejection(
                    routingID: routingID, hasDelimiter: hasDelimiter,
                    error: ErrorReply(
                        code: .wrongFrameCount,
                        message: "a request has at most \(maxFrames - 1) frames (an empty delimiter and the JSON); "
                            + "this one had \(message.frameCount - 1)")))
        }
        if message.byteCount > maxBytes || message.isTruncated {
            // Truncated: its bytes went past what the receiver keeps, which no valid request does.
            return .failure(
                FrameRejection(
                    routingID: routingID, hasDelimiter: hasDelimiter,
                    error: ErrorReply(
                        code: .messageTooLarge,
                        message: message.byteCount > maxBytes
                            ? "the message's frames hold \(message.byteCount) bytes together; the limit is \(maxBytes)"
                            : "the message holds \(message.byteCount) bytes, more than any valid request (see PODIUM_MAX_MESSAGE_BYTES)"
                    )))
        }
        switch frames.count {
        case 2:
            return .success(ClientFrames(routingID: routingID, hasDelimiter: false, body: frames[1]))
        case 3 where frames[1].isEmpty:
            return .success(ClientFrames(routingID: routingID, hasDelimiter: true, body: frames[2]))
        default:
            return .failure(FrameRejection(routingID: routingID, hasDelimiter: hasDelimiter))
        }
    }
}

/// A client message refused before its JSON was read: the wrong number of frames, or too big.
struct FrameRejection: Error {
    let routingID: Data?
    let hasDelimiter: Bool
    var error = ErrorReply(
        code: .wrongFrameCount,
        message: "a request is exactly one frame holding a JSON object (after the empty delimiter a REQ socket adds)")

    func reply(_ body: Data) -> [Data]? {
        guard let routingID else { return nil }
        return hasDelimiter ? [routingID, Data(), body] : [routingID, body]
    }
}
