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
                let left = Self.skip(remaining, in: bytes, from: &index)
                phase = left > 0 ? .body(remaining: left) : .head
            case .chunkData(let remaining):
                let left = Self.skip(remaining, in: bytes, from: &index)
                phase = left > 0 ? .chunkData(remaining: left) : .chunkSize(line: [])
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

    /// Moves `index` past at most `count` bytes; how many are still to skip in later reads.
    private static func skip<Bytes: Collection<UInt8>>(_ count: Int, in bytes: Bytes, from index: inout Bytes.Index)
        -> Int
    {
        let taken = min(count, bytes.distance(from: index, to: bytes.endIndex))
        index = bytes.index(index, offsetBy: taken)
        return count - taken
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
        // Read as bytes, without a String per field: this runs for every request.
        for line in head.split(separator: lf).dropFirst() {
            guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else { continue }
            let name = line[line.startIndex..<colon]
            let value = trimmed(line[(colon + 1)...])
            if matches(name, "upgrade") { return .passthrough }
            if matches(name, "transfer-encoding") {
                guard matches(value, "chunked") else { return .passthrough }
                chunked = true
            } else if matches(name, "content-length") {
                guard let parsed = decimal(value) else { return .passthrough }
                length = parsed
            }
        }
        if chunked { return length == 0 ? .chunkSize(line: []) : .passthrough }
        return length == 0 ? .head : .body(remaining: length)
    }

    /// Whether `bytes` are the ASCII `lowercase` text, compared without case.
    private static func matches(_ bytes: ArraySlice<UInt8>, _ lowercase: String) -> Bool {
        bytes.count == lowercase.utf8.count
            && zip(bytes, lowercase.utf8).allSatisfy { byte, letter in
                byte == letter || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") && byte | 0x20 == letter)
            }
    }

    /// `bytes` without the spaces, tabs and CR around them.
    private static func trimmed(_ bytes: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        let blank: (UInt8) -> Bool = { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") || $0 == cr }
        guard let first = bytes.firstIndex(where: { !blank($0) }), let last = bytes.lastIndex(where: { !blank($0) })
        else { return bytes[bytes.endIndex...] }
        return bytes[first...last]
    }

    /// A length of decimal digits only (at most 18 of them), or nil.
    private static func decimal(_ bytes: ArraySlice<UInt8>) -> Int? {
        guard !bytes.isEmpty, bytes.count <= 18 else { return nil }
        var value = 0
        for byte in bytes {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            value = value * 10 + Int(byte - UInt8(ascii: "0"))
        }
        return value
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
