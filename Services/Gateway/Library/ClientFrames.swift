import Foundation
import PodiumMessages

/// One message from a client, as the request ROUTER received it.
struct ClientFrames: Sendable {
    /// The connection's routing id, frame 0.
    let routingID: Data
    /// Whether the client sent an empty delimiter first (a REQ socket); the reply mirrors it.
    let hasDelimiter: Bool
    /// The JSON request.
    let body: Data

    /// The frames of a reply to this client.
    func reply(_ body: Data) -> [Data] {
        hasDelimiter ? [routingID, Data(), body] : [routingID, body]
    }

    /// Splits ROUTER frames: `[id, body]` from a DEALER, `[id, "", body]` from a REQ.
    static func parse(_ frames: [Data]) -> Result<ClientFrames, FrameRejection> {
        guard let routingID = frames.first else { return .failure(FrameRejection(routingID: nil, hasDelimiter: false)) }
        switch frames.count {
        case 2:
            return .success(ClientFrames(routingID: routingID, hasDelimiter: false, body: frames[1]))
        case 3 where frames[1].isEmpty:
            return .success(ClientFrames(routingID: routingID, hasDelimiter: true, body: frames[2]))
        default:
            return .failure(FrameRejection(routingID: routingID, hasDelimiter: frames.count > 2 && frames[1].isEmpty))
        }
    }
}

/// A client message with the wrong number of frames.
struct FrameRejection: Error {
    let routingID: Data?
    let hasDelimiter: Bool

    var error: ErrorReply {
        ErrorReply(
            code: .wrongFrameCount,
            message: "a request is exactly one frame holding a JSON object (after the empty delimiter a REQ socket adds)")
    }

    func reply(_ body: Data) -> [Data]? {
        guard let routingID else { return nil }
        return hasDelimiter ? [routingID, Data(), body] : [routingID, body]
    }
}
