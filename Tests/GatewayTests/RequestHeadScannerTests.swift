import Testing

@testable import Gateway

/// The byte-level view of an HTTP/1.1 connection the head guard keeps (RequestHeadGuard): heads
/// bounded in size and fields, bodies of known length skipped, chunked bodies and upgrades left
/// to the decoder; every way a head can be cut across reads.
@Suite("Request head scanner")
struct RequestHeadScannerTests {
    static func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

    static func head(fields: Int, path: String = "/v1/health") -> String {
        "GET \(path) HTTP/1.1\r\n" + (0..<fields).map { "X-Field-\($0): \($0)\r\n" }.joined() + "\r\n"
    }

    @Test("heads, bodies of known length and pipelined requests are followed, in any cut")
    func followsRequests() {
        let post = "POST /v1/call/x HTTP/1.1\r\nHost: a\r\nContent-Length: 7\r\n\r\n{\"a\":1}"
        let stream = Self.bytes("\r\n" + Self.head(fields: 2) + post + Self.head(fields: 1))
        // Whole, and cut at every byte into two reads: the same outcome.
        for cut in 0...stream.count {
            var scanner = RequestHeadScanner(rules: .init())
            #expect(scanner.read(stream[..<cut]) == .proceed)
            #expect(scanner.read(stream[cut...]) == .proceed)
            #expect(scanner.headsCompleted == 3, "cut at \(cut)")
            #expect(scanner.isAwaitingHead && scanner.headBytes == 0, "between requests after all three")
        }
        var scanner = RequestHeadScanner(rules: .init())
        _ = scanner.read(Self.bytes("POST / HTTP/1.1\r\nContent-Length: 10\r\n\r\n12345"))
        #expect(scanner.phase == .body(remaining: 5))
        _ = scanner.read(Self.bytes("67890GET / HT"))
        #expect(scanner.isAwaitingHead && scanner.headBytes == 8, "the next head begun")
    }

    @Test("a line ending in LF alone ends lines and heads too")
    func bareLineFeeds() {
        var scanner = RequestHeadScanner(rules: .init())
        #expect(scanner.read(Self.bytes("GET / HTTP/1.1\nHost: a\n\n")) == .proceed)
        #expect(scanner.headsCompleted == 1)
    }

    @Test("a chunked body is followed to its end, extensions and trailers too, in any cut")
    func chunked() {
        let body = "5;ext=1\r\nhello\r\n1A\r\n" + String(repeating: "z", count: 26) + "\r\n0\r\nX-Trailer: t\r\n\r\n"
        let stream = Self.bytes(
            "POST /v1/call/x HTTP/1.1\r\nTransfer-Encoding: Chunked\r\n\r\n" + body + Self.head(fields: 3))
        for cut in 0...stream.count {
            var scanner = RequestHeadScanner(rules: .init())
            #expect(scanner.read(stream[..<cut]) == .proceed)
            #expect(scanner.read(stream[cut...]) == .proceed)
            #expect(scanner.headsCompleted == 2, "cut at \(cut)")
            #expect(scanner.isAwaitingHead && scanner.headBytes == 0, "cut at \(cut)")
        }
        // The head after a chunked body is held to the limits too.
        var scanner = RequestHeadScanner(rules: .init())
        _ = scanner.read(Self.bytes("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n"))
        #expect(scanner.read(Self.bytes(Self.head(fields: 101))) == .refuse(.tooManyFields))
    }

    @Test("upgrades and lengths or codings it cannot read are left to the decoder")
    func passthrough() {
        for field in [
            "Upgrade: websocket", "content-length: -1", "Content-Length: x", "Transfer-Encoding: gzip, chunked",
            "Transfer-Encoding: chunked\r\nContent-Length: 5",
        ] {
            var scanner = RequestHeadScanner(rules: .init())
            _ = scanner.read(Self.bytes("POST / HTTP/1.1\r\n\(field)\r\n\r\n"))
            #expect(scanner.phase == .passthrough, "\(field)")
            #expect(scanner.read(Self.bytes(String(repeating: "x", count: 100_000))) == .proceed)
        }
    }

    @Test("a head over the size limit is refused at the first byte past it, in any cut")
    func tooLarge() {
        let rules = RequestHeadRules()
        let line = "X-Long: " + String(repeating: "a", count: rules.maxHeadBytes) + "\r\n"
        let stream = Self.bytes("GET / HTTP/1.1\r\n" + line)
        var scanner = RequestHeadScanner(rules: rules)
        #expect(scanner.read(stream[..<rules.maxHeadBytes]) == .proceed)
        #expect(scanner.read(stream[rules.maxHeadBytes...]) == .refuse(.headTooLarge))
        // Exactly at the limit, complete: accepted.
        let fill = rules.maxHeadBytes - "GET / HTTP/1.1\r\nX: \r\n\r\n".utf8.count
        var exact = RequestHeadScanner(rules: rules)
        #expect(
            exact.read(Self.bytes("GET / HTTP/1.1\r\nX: \(String(repeating: "b", count: fill))\r\n\r\n")) == .proceed)
        #expect(exact.headsCompleted == 1)
    }

    @Test("more header fields than the limit are refused before the head ends; the limit itself passes")
    func tooManyFields() {
        let rules = RequestHeadRules()
        var atLimit = RequestHeadScanner(rules: rules)
        #expect(atLimit.read(Self.bytes(Self.head(fields: rules.maxFields))) == .proceed)
        #expect(atLimit.headsCompleted == 1)
        var over = RequestHeadScanner(rules: rules)
        // Without the empty line that would end it ("\r\n" is one Character).
        let unfinished = Self.bytes(String(Self.head(fields: rules.maxFields + 1).dropLast(1)))
        #expect(over.read(unfinished) == .refuse(.tooManyFields), "refused without waiting for the end")
    }

    @Test("refusals are problems with stable codes: 431 and 408, the connection closed")
    func responses() {
        let rules = RequestHeadRules()
        let large = String(decoding: RequestHeadScanner.Refusal.headTooLarge.response(rules: rules), as: UTF8.self)
        #expect(large.hasPrefix("HTTP/1.1 431 Request Header Fields Too Large\r\n"))
        #expect(large.contains("Connection: close\r\n"))
        #expect(large.contains("\"code\":\"header_too_large\""))
        let slow = String(decoding: RequestHeadScanner.Refusal.headTimeout.response(rules: rules), as: UTF8.self)
        #expect(slow.hasPrefix("HTTP/1.1 408 Request Timeout\r\n"))
        #expect(slow.contains("\"code\":\"request_timeout\""))
        let body = slow.components(separatedBy: "\r\n\r\n")[1]
        #expect(slow.contains("Content-Length: \(body.utf8.count)\r\n"))
    }
}
