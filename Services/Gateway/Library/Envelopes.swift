import Foundation
import PodiumMessages
import PodiumRuntime

/// Writes the envelopes the gateway itself sends (replies, errors), stamped by its clock.
struct Envelopes: Sendable {
    let clock: any PodiumClock

    /// The gateway's error, answering the request `correlationId` names.
    func error(_ error: ErrorReply, correlationId: String?) -> RawEnvelope {
        RawEnvelope(
            type: .error, correlationId: correlationId, timestamp: clock.nowMilliseconds,
            payload: (try? WireCodec.jsonValue(error)) ?? .null)
    }

    /// A successful reply to the request `correlationId` names.
    func reply(_ payload: JSONValue, correlationId: String?) -> RawEnvelope {
        RawEnvelope(type: .reply, correlationId: correlationId, timestamp: clock.nowMilliseconds, payload: payload)
    }

    /// The envelope's bytes.
    static func encode(_ envelope: RawEnvelope) -> Data {
        // Encoding a RawEnvelope cannot fail: every JSONValue is encodable.
        (try? WireCodec.encode(envelope)) ?? Data("{}".utf8)
    }
}
