import Foundation
import PodiumClient
import PodiumMessages

/// A failure the command reports in one sentence on standard error (`Error: …`), exiting 1.
struct CommandFailure: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) { self.description = description }

    /// No reply arrived in time.
    static func noReply(from endpoint: String, within seconds: Double) -> CommandFailure {
        CommandFailure("no reply from the gateway at \(endpoint) within \(seconds) s")
    }
}

/// An error reply, described for a person: its code, its message, the field to blame and,
/// for the codes a user can act on, what to do next.
struct ReplyFailure: Error, CustomStringConvertible {
    /// The decoded error, when the reply held one.
    let error: ErrorReply?
    /// The reply as received, for replies that are not readable errors.
    let text: String

    init(_ reply: ReceivedReply) {
        self.init(text: reply.text, envelope: reply.envelope)
    }

    /// A reply as received: its bytes as text, and its envelope when they decode.
    init(text: String, envelope: RawEnvelope?) {
        error = envelope.flatMap { $0.type == .error ? try? $0.decodePayload(as: ErrorReply.self) : nil }
        self.text = text
    }

    var description: String {
        guard let error else { return "unexpected reply: \(text)" }
        var sentence = "\(error.code): \(error.message)"
        if let field = error.field { sentence += " (field \(field))" }
        if let hint = Self.hint(for: error) { sentence += "\n  hint: \(hint)" }
        return sentence
    }

    private static func hint(for error: ErrorReply) -> String? {
        switch error.code {
        case .unauthenticated:
            return "log in first (podium register / podium login), or pass --server-key or --admin-key"
        case .tokenExpired:
            return "the session expired: podium refresh, or podium login"
        case .sessionRevoked, .invalidToken:
            return "log in again: podium login"
        case .rateLimited:
            return error.retryAfterMilliseconds.map { "try again in \(($0 + 999) / 1000) s" }
        default:
            return nil
        }
    }
}
