import Foundation
import PodiumMessages

/// A reply as a transport received it: the envelope, and its exact bytes when the transport
/// has them (a socket does; the console's in-process path does not).
public struct ReceivedReply: Sendable {
    public var envelope: RawEnvelope
    public var body: Data?

    public init(envelope: RawEnvelope, body: Data? = nil) {
        self.envelope = envelope
        self.body = body
    }

    /// Decodes a reply from its bytes; nil if they are not an envelope.
    public init?(body: Data) {
        guard let envelope = try? WireCodec.decode(RawEnvelope.self, from: body) else { return nil }
        self.init(envelope: envelope, body: body)
    }

    /// Whether it is a `reply` (not an `error`).
    public var isSuccess: Bool { envelope.type == .reply }

    /// The bytes as received, or the envelope written out in the wire's one JSON form.
    public var text: String {
        if let body { return String(decoding: body, as: UTF8.self) }
        return String(decoding: (try? WireCodec.encode(envelope)) ?? Data(), as: UTF8.self)
    }
}

/// The reply to one typed call, error or not, before it is decoded: for callers that show the
/// reply as received (the CLI's `--json`) or read the envelope (its `playerId`), and for tests.
/// ``value()`` gives the definition's typed reply, or throws the error reply as a
/// ``PodiumClientError``.
public struct PodiumReply<Value: Codable & Sendable>: Sendable {
    /// The request as sent.
    public let request: ClientRequest
    /// The reply as received.
    public let received: ReceivedReply

    public init(request: ClientRequest, received: ReceivedReply) {
        self.request = request
        self.received = received
    }

    public var envelope: RawEnvelope { received.envelope }
    /// The envelope's type: `reply` or `error`.
    public var type: MessageType { envelope.type }
    /// The reply as received, as text.
    public var text: String { received.text }
    /// Whether it is a `reply` (not an `error`).
    public var isSuccess: Bool { envelope.type == .reply }

    /// The stable code of an `error` reply; nil for a `reply`.
    public var errorCode: ErrorCode? { error?.code }

    /// The error of an `error` reply; nil for a `reply`.
    public var error: PodiumClientError? {
        guard envelope.type == .error else { return nil }
        guard let reply = try? envelope.decodePayload(as: ErrorReply.self) else {
            return PodiumClientError(
                kind: .unreadableReply, type: request.type, requestId: request.id, reply: envelope,
                detail: "an error reply without a readable error")
        }
        return PodiumClientError(
            kind: .errorReply, type: request.type, requestId: request.id, errorReply: reply, reply: envelope)
    }

    /// The typed reply; an error reply, or a reply that is not a `Value`, throws a ``PodiumClientError``.
    public func value() throws(PodiumClientError) -> Value {
        if let error { throw error }
        guard envelope.type == .reply else {
            throw PodiumClientError(
                kind: .unreadableReply, type: request.type, requestId: request.id, reply: envelope,
                detail: "a \(envelope.type) message is no reply")
        }
        do {
            return try envelope.decodePayload(as: Value.self)
        } catch {
            throw PodiumClientError(
                kind: .unreadableReply, type: request.type, requestId: request.id, reply: envelope,
                detail: "not a \(Value.self): \(error)")
        }
    }
}
