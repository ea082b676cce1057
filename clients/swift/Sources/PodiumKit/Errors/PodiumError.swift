import Foundation

/// Every failure PodiumKit throws: an error reply of the server (an HTTP problem or a WebSocket
/// `error` message), or the client's own ``PodiumErrorCode/network``, ``PodiumErrorCode/timeout``
/// and ``PodiumErrorCode/invalidReply``.
public struct PodiumError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The stable code; switch on this.
    public var code: PodiumErrorCode
    /// The HTTP status (404 for `unknown_board`…); nil over the WebSocket and for the client's own codes.
    public var status: Int?
    /// A sentence for people. It may change between versions: never parse it.
    public var message: String
    /// The field to blame, as a dotted path (`payload.boardId`), when one is.
    public var field: String?
    /// How long to wait before trying again (`rate_limited`, `rebuilding`, `overloaded`…).
    public var retryAfter: Duration?
    /// The request id (the idempotency key) the error answers, when known.
    public var requestId: String?
    /// The WebSocket close code, when the error is why a socket stopped (4003, 4004, 4005).
    public var closeCode: Int?

    public init(
        code: PodiumErrorCode, status: Int? = nil, message: String, field: String? = nil, retryAfter: Duration? = nil,
        requestId: String? = nil, closeCode: Int? = nil
    ) {
        self.code = code
        self.status = status
        self.message = message
        self.field = field
        self.retryAfter = retryAfter
        self.requestId = requestId
        self.closeCode = closeCode
    }

    public var description: String {
        var text = "\(code.rawValue): \(message)"
        if let field { text += " (field \(field))" }
        return text
    }
}

extension PodiumError {
    /// The RFC 9457 problem of an HTTP error response (docs/PROTOCOL.md 20.2); a body that is not
    /// one still gives an error with the status (`http_<status>`, as the JavaScript client does).
    static func problem(status: Int, body: Data, requestId: String?, retryAfterHeader: String?) -> PodiumError {
        let problem = try? JSONDecoder().decode(Problem.self, from: body)
        let retryAfter =
            problem?.retryAfterMilliseconds.map { Duration.milliseconds($0) }
            ?? retryAfterHeader.flatMap { Int64($0.trimmingCharacters(in: .whitespaces)) }.map { Duration.seconds($0) }
        guard let problem else {
            let text = String(decoding: body.prefix(500), as: UTF8.self)
            return PodiumError(
                code: PodiumErrorCode(rawValue: "http_\(status)"), status: status,
                message: text.isEmpty ? "HTTP status \(status)" : text,
                retryAfter: retryAfter, requestId: requestId)
        }
        return PodiumError(
            code: problem.code, status: status, message: problem.detail ?? problem.title ?? problem.code.rawValue,
            field: problem.field, retryAfter: retryAfter, requestId: problem.requestId ?? requestId)
    }

    /// The payload of a WebSocket `error` message (docs/PROTOCOL.md section 6).
    static func errorPayload(_ payload: PodiumJSON?, requestId: String?) -> PodiumError {
        PodiumError(
            code: PodiumErrorCode(rawValue: payload?["code"]?.stringValue ?? PodiumErrorCode.internalError.rawValue),
            message: payload?["message"]?.stringValue ?? "error", field: payload?["field"]?.stringValue,
            retryAfter: payload?["retryAfterMilliseconds"]?.integerValue.map { Duration.milliseconds($0) },
            requestId: requestId)
    }

    private struct Problem: Decodable {
        var code: PodiumErrorCode
        var detail: String?
        var title: String?
        var field: String?
        var requestId: String?
        var retryAfterMilliseconds: Int64?
    }
}
