import PodiumMessages

/// Why a typed call gave no typed reply: the server answered with an error (its stable
/// ``ErrorCode`` is ``code``), no reply came in time, or the reply was not the definition's
/// reply type.
///
/// ```swift
/// do {
///     let page = try await client.call(LeaderboardRequests.top, BoardQuery(boardId: "dash.highscore"))
/// } catch let error as PodiumClientError where error.code == .unknownBoard {
///     …
/// }
/// ```
public struct PodiumClientError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What kind of failure: a small set of static constants, open to more.
    public struct Kind: Sendable, Hashable, CustomStringConvertible {
        public let description: String
        private init(_ description: String) { self.description = description }

        /// The server answered with an `error` reply (``PodiumClientError/errorReply``).
        public static let errorReply = Kind("error reply")
        /// No reply to the request arrived within the timeout; it may or may not have taken effect.
        public static let noReply = Kind("no reply")
        /// A reply arrived but is not the definition's reply type (nor an error).
        public static let unreadableReply = Kind("unreadable reply")
        /// The request could not be encoded or sent.
        public static let sendFailed = Kind("send failed")
    }

    public var kind: Kind
    /// The request's type and id.
    public var type: MessageType
    public var requestId: String
    /// The server's error, for ``Kind/errorReply``.
    public var errorReply: ErrorReply?
    /// The reply as received, when one was (for ``Kind/errorReply`` and ``Kind/unreadableReply``).
    public var reply: RawEnvelope?
    /// More about a failure that has no error reply (the decoding error, the socket's error).
    public var detail: String?

    public init(
        kind: Kind, type: MessageType, requestId: String, errorReply: ErrorReply? = nil, reply: RawEnvelope? = nil,
        detail: String? = nil
    ) {
        self.kind = kind
        self.type = type
        self.requestId = requestId
        self.errorReply = errorReply
        self.reply = reply
        self.detail = detail
    }

    /// The stable error code of an error reply; nil for the other kinds.
    public var code: ErrorCode? { errorReply?.code }

    public var description: String {
        switch kind {
        case .errorReply:
            let error =
                errorReply.map { "\($0.code): \($0.message)" + ($0.field.map { " (field \($0))" } ?? "") } ?? "-"
            return "\(type) \(requestId): \(error)"
        default:
            return "\(type) \(requestId): \(kind)" + (detail.map { ": \($0)" } ?? "")
        }
    }
}
