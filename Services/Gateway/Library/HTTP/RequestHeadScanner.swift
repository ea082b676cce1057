import Foundation
import NIOCore
import PodiumMessages

/// The limits on a request head (docs/PROTOCOL.md 20.2).
struct RequestHeadRules: Sendable {
    /// Largest request head: request line and fields together.
    var maxHeadBytes = 16 * 1024
    /// Most header fields in one head.
    var maxFields = 100
    /// How long a head may take from its first byte to its end.
    var headTimeout = TimeAmount.seconds(10)
    /// How long a new connection may send nothing (the idle timeout of a kept-alive one).
    var silentTimeout = TimeAmount.seconds(60)
    /// How long a connection with a request, a body or a WebSocket in progress is left to end
    /// after a graceful shutdown starts.
    var shutdownGrace = TimeAmount.seconds(5)
}

/// Where an HTTP/1.1 connection's byte stream stands, read ahead of the decoder: in a request
/// head (counted against ``RequestHeadRules``), in a body of known length or a chunked one
/// (RFC 9112 7.1), or past what it can follow (an upgrade, a length or chunk it cannot read:
/// from then on the decoder, which refuses what is broken, and the idle timeout bound the
/// connection). A value type: the guard (``RequestHeadGuard``) feeds it each read.
struct RequestHeadScanner: Sendable {
    enum Phase: Equatable {
        case head
        case body(remaining: Int)
        /// A chunk-size line so far (without its line end).
        case chunkSize(line: [UInt8])
        /// A chunk's data and the line end after it.
        case chunkData(remaining: Int)
        /// The trailer fields after the last chunk; `line`: bytes of the current one.
        case trailers(line: Int)
        case passthrough
    }

    /// The longest chunk-size line followed (size and extensions); a longer one is the decoder's.
    static let maxChunkLine = 1024

    /// A head refused: the reply says why and the connection closes.
    enum Refusal: Equatable {
        case headTooLarge
        case tooManyFields
        case headTimeout
    }

    enum Outcome: Equatable {
        case proceed
        case refuse(Refusal)
    }

    let rules: RequestHeadRules
    private(set) var phase = Phase.head
    /// The current head's bytes so far (bounded by the rules).
    private var head: [UInt8] = []
    /// Line ends seen in the current head.
    private var lineEnds = 0
    /// Heads completed on this connection.
    private(set) var headsCompleted = 0

    init(rules: RequestHeadRules) { self.rules = rules }

    var isAwaitingHead: Bool { phase == .head }
    /// Bytes of the head in progress (0 between requests).
    var headBytes: Int { head.count }

    /// Follows `bytes`, the next read of the connection.
    mutating func read<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> Outcome {
        var index = bytes.startIndex
        while index != bytes.endIndex {
            switch phase {
            case .passthrough:
                return .proceed
            case .body(let remaining):
                let available = bytes.distance(from: index, to: bytes.endIndex)
                guard available >= remaining else {
                    phase = .body(remaining: remaining - available)
                    return .proceed
                }
                index = bytes.index(index, offsetBy: remaining)
                phase = .head
            case .chunkData(let remaining):
                let available = bytes.distance(from: index, to: bytes.endIndex)
                guard available >= remaining else {
                    phase = .chunkData(remaining: remaining - available)
                    return .proceed
                }
                index = bytes.index(index, offsetBy: remaining)
                phase = .chunkSize(line: [])
            case .chunkSize(var line):
                let byte = bytes[index]
                index = bytes.index(after: index)
                guard byte == Self.lf else {
                    line.append(byte)
                    phase = line.count > Self.maxChunkLine ? .passthrough : .chunkSize(line: line)
                    continue
                }
                phase = Self.phase(afterChunkLine: line)
            case .trailers(let line):
                let byte = bytes[index]
                index = bytes.index(after: index)
                if byte == Self.lf {
                    // An empty line (or a bare CR before the LF) ends the trailers, and the body.
                    if line == 0 {
                        phase = .head
                    } else {
                        phase = .trailers(line: 0)
                    }
                } else if byte != Self.cr {
                    phase = line + 1 > rules.maxHeadBytes ? .passthrough : .trailers(line: line + 1)
                }
            case .head:
                let byte = bytes[index]
                index = bytes.index(after: index)
                // RFC 9112 2.2: empty lines before a request line are ignored.
                if head.isEmpty, byte == Self.cr || byte == Self.lf { continue }
                head.append(byte)
                if head.count > rules.maxHeadBytes { return .refuse(.headTooLarge) }
                guard byte == Self.lf else { continue }
                lineEnds += 1
                // Lines: the request line, the fields, the empty line that ends the head.
                if endsWithEmptyLine {
                    if lineEnds - 2 > rules.maxFields { return .refuse(.tooManyFields) }
                    phase = Self.phase(after: head)
                    head.removeAll(keepingCapacity: true)
                    lineEnds = 0
                    headsCompleted += 1
                } else if lineEnds - 1 > rules.maxFields {
                    return .refuse(.tooManyFields)
                }
            }
        }
        return .proceed
    }

    private var endsWithEmptyLine: Bool {
        let count = head.count
        if count >= 2, head[count - 2] == Self.lf { return true }
        return count >= 3 && head[count - 3] == Self.lf && head[count - 2] == Self.cr
    }

    /// What follows a complete head: a body of its `Content-Length`, a chunked body, the next
    /// head, or (an upgrade, a length or coding it cannot read) whatever the decoder makes of it.
    static func phase(after head: [UInt8]) -> Phase {
        var length = 0
        var chunked = false
        for line in head.split(separator: lf).dropFirst() {
            guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else { continue }
            let name = String(decoding: line[line.startIndex..<colon], as: UTF8.self).lowercased()
            let value = String(decoding: line[(colon + 1)...], as: UTF8.self)
                .trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
            switch name {
            case "upgrade":
                return .passthrough
            case "transfer-encoding":
                guard value == "chunked" else { return .passthrough }
                chunked = true
            case "content-length":
                guard let parsed = Int(value), parsed >= 0 else { return .passthrough }
                length = parsed
            default:
                continue
            }
        }
        if chunked { return length == 0 ? .chunkSize(line: []) : .passthrough }
        return length == 0 ? .head : .body(remaining: length)
    }

    /// After a chunk-size line (hex digits, then optional `;` extensions, then CR): the chunk's
    /// data and its line end, or the trailers after the last (0) chunk.
    static func phase(afterChunkLine line: [UInt8]) -> Phase {
        var digits = line.prefix { $0 != UInt8(ascii: ";") }
        if digits.last == cr { digits.removeLast() }
        let text = String(decoding: digits, as: UTF8.self).trimmingCharacters(in: .whitespaces)
        guard !text.isEmpty, text.count <= 15, let size = Int(text, radix: 16), size >= 0 else { return .passthrough }
        return size == 0 ? .trailers(line: 0) : .chunkData(remaining: size + 2)
    }

    static let cr = UInt8(ascii: "\r")
    static let lf = UInt8(ascii: "\n")
}

extension RequestHeadScanner.Refusal {
    /// The limit counted in `podium_limit_refusals_total`.
    var limit: RefusingLimit {
        switch self {
        case .headTooLarge, .tooManyFields: .requestHead
        case .headTimeout: .requestHeadTimeout
        }
    }

    func error(rules: RequestHeadRules) -> ErrorReply {
        switch self {
        case .headTooLarge:
            ErrorReply(
                code: .headerTooLarge, message: "the request head is larger than \(rules.maxHeadBytes) bytes")
        case .tooManyFields:
            ErrorReply(
                code: .headerTooLarge, message: "the request head has more than \(rules.maxFields) header fields")
        case .headTimeout:
            ErrorReply(
                code: .requestTimeout,
                message:
                    "the request head did not complete within \(rules.headTimeout.nanoseconds / 1_000_000_000) seconds")
        }
    }

    /// The whole HTTP response: the problem, and the connection closed after it.
    func response(rules: RequestHeadRules) -> [UInt8] {
        let problem = HTTPProblem(error(rules: rules), requestID: nil)
        let body = (try? JSONWriter.data(problem.body)).map(Array.init) ?? Array("{}".utf8)
        let reason = problem.status == 431 ? "Request Header Fields Too Large" : "Request Timeout"
        let head =
            "HTTP/1.1 \(problem.status) \(reason)\r\nContent-Type: application/problem+json\r\n"
            + "Content-Length: \(body.count)\r\nConnection: close\r\n\r\n"
        return Array(head.utf8) + body
    }
}
