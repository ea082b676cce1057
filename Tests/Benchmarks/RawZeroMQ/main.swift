import Foundation
import Synchronization
import ZeroMQ

/// `podium-bench-zmq`: the raw-libzmq reference for scripts/bench, through the project's own
/// ZeroMQ layer with blocking sockets on dedicated threads (no Podium, no JSON, no owner-thread
/// hand-off): PUB/SUB throughput, DEALER/ROUTER round trips and pipelined DEALER/ROUTER
/// throughput over TCP loopback with messages of `--bytes` bytes.
///
/// Usage: podium-bench-zmq [--runs 3] [--messages 1000000] [--samples 20000] [--clients 4]
///                         [--window 64] [--bytes 200] [--output zmq.json]
///        podium-bench-zmq --drive <endpoint> --request <file> [--connections 4] [--window 16] [--seconds 10]
///                         (a load generator for Podium's ZeroMQ front: Drive.swift)
let settings: [String: String] = {
    var settings: [String: String] = [:]
    var arguments = CommandLine.arguments.dropFirst().makeIterator()
    while let key = arguments.next() {
        guard key.hasPrefix("--"), let value = arguments.next() else {
            fatalError("usage: podium-bench-zmq [--key value]…")
        }
        settings[String(key.dropFirst(2))] = value
    }
    return settings
}()
func setting(_ key: String, _ fallback: Int) -> Int { settings[key].flatMap(Int.init) ?? fallback }
if let endpoint = settings["drive"] {
    guard let path = settings["request"], let template = try? String(contentsOfFile: path, encoding: .utf8) else {
        fatalError("podium-bench-zmq --drive needs --request <file>")
    }
    let drive = Drive(
        endpoint: endpoint, template: template.trimmingCharacters(in: .whitespacesAndNewlines),
        connections: setting("connections", 4), window: setting("window", 16),
        seconds: settings["seconds"].flatMap(Double.init) ?? 10)
    let result = try drive.run(context: try ZMQContext(ioThreads: 1))
    let rate = Double(result.answered) / result.seconds
    print(
        #"{"requests": \#(result.answered), "errors": \#(result.errors), "seconds": \#(result.seconds), "rate": \#(rate)}"#
    )
    if let first = result.firstError, result.errors > 0 {
        FileHandle.standardError.write(Data("podium-bench-zmq: first error: \(first)\n".utf8))
        exit(1)
    }
    exit(0)
}
let runs = setting("runs", 3)
let messages = setting("messages", 1_000_000)
let samples = setting("samples", 20_000)
let clients = setting("clients", 4)
let window = setting("window", 64)
let bytes = setting("bytes", 200)
let payload = Data(repeating: 0x61, count: bytes)
let context = try ZMQContext(ioThreads: 1)

/// Runs `body` on `count` new threads and returns their results in order.
func onThreads<T: Sendable>(_ count: Int, _ body: @escaping @Sendable (Int) throws -> T) throws -> [T] {
    let results = Mutex<[Int: Result<T, any Error>]>([:])
    let done = DispatchSemaphore(value: 0)
    for index in 0..<count {
        let thread = Thread {
            let result = Result { try body(index) }
            results.withLock { $0[index] = result }
            done.signal()
        }
        thread.stackSize = 1 << 20
        thread.start()
    }
    for _ in 0..<count { done.wait() }
    return try results.withLock { all in try (0..<count).map { try all[$0]!.get() } }
}

/// A ROUTER on its own thread that echoes every message until it receives an empty body.
/// Returns its endpoint once it is bound.
func startEcho(peers: Int) throws -> (endpoint: String, finished: DispatchSemaphore) {
    let endpoint = Mutex<Result<String, any Error>?>(nil)
    let bound = DispatchSemaphore(value: 0)
    let finished = DispatchSemaphore(value: 0)
    let thread = Thread {
        do {
            let router = try context.makeSocket(.router)
            try router.set(.lingerMilliseconds(0))
            try router.set(.sendHighWaterMark(0))
            try router.set(.receiveHighWaterMark(0))
            try router.bind("tcp://127.0.0.1:*")
            endpoint.withLock { $0 = .success((try? router.lastEndpoint()) ?? "") }
            bound.signal()
            var stopped = 0
            while stopped < peers, let frames = try router.receive() {
                if frames.count == 2 && frames[1].isEmpty { stopped += 1 }
                _ = try router.send(frames)
            }
            router.close()
        } catch {
            endpoint.withLock { if $0 == nil { $0 = .failure(error) } }
            bound.signal()
        }
        finished.signal()
    }
    thread.start()
    bound.wait()
    return (try endpoint.withLock { $0! }.get(), finished)
}

func seconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
}

/// PUB/SUB: one publisher sends `messages`; the subscriber's rate from first to last message.
func pubSubRun() throws -> Double {
    let endpoint = Mutex<String>("")
    let ready = DispatchSemaphore(value: 0)
    let subscribed = DispatchSemaphore(value: 0)
    let results = try onThreads(2) { index -> Double in
        if index == 0 {
            let publisher = try context.makeSocket(.publisher)
            try publisher.set(.sendHighWaterMark(0))
            // Closing waits (up to 30 s) until everything queued, the end markers included, is sent.
            try publisher.set(.lingerMilliseconds(30_000))
            try publisher.bind("tcp://127.0.0.1:*")
            endpoint.withLock { $0 = (try? publisher.lastEndpoint()) ?? "" }
            ready.signal()
            subscribed.wait()
            // A late joiner misses messages; the warm-up ones are sent until the subscriber is attached.
            Thread.sleep(forTimeInterval: 0.3)
            for _ in 0..<messages { _ = try publisher.send([payload]) }
            for _ in 0..<100 { _ = try publisher.send([Data()]) }
            Thread.sleep(forTimeInterval: 0.2)
            publisher.close()
            return 0
        }
        ready.wait()
        let subscriber = try context.makeSocket(.subscriber)
        try subscriber.set(.receiveHighWaterMark(0))
        try subscriber.set(.lingerMilliseconds(0))
        try subscriber.set(.subscribe(Data()))
        try subscriber.connect(endpoint.withLock { $0 })
        subscribed.signal()
        var received = 0
        var first: ContinuousClock.Instant?
        var last = ContinuousClock.now
        // Until an end marker, or 5 s of silence (a lost marker must not hang the run).
        while true {
            guard let frames = try subscriber.receive(wait: false) else {
                if try ZMQSocket.poll([(subscriber, .readable)], timeoutMilliseconds: 5_000)[0].contains(.readable) {
                    continue
                }
                break
            }
            if frames[0].isEmpty { break }
            if first == nil { first = .now }
            received += 1
            last = .now
        }
        subscriber.close()
        guard let first, received > 1 else { return 0 }
        return Double(received - 1) / seconds(last - first)
    }
    return results[1]
}

/// DEALER/ROUTER: one request at a time; the round trips in milliseconds.
func roundTripRun() throws -> [Double] {
    let echo = try startEcho(peers: 1)
    let result = try onThreads(1) { _ -> [Double] in
        let dealer = try context.makeSocket(.dealer)
        try dealer.set(.lingerMilliseconds(0))
        try dealer.connect(echo.endpoint)
        var latencies: [Double] = []
        latencies.reserveCapacity(samples)
        for index in 0..<(samples + 1000) {
            let start = ContinuousClock.now
            _ = try dealer.send([payload])
            _ = try dealer.receive()
            if index >= 1000 { latencies.append(seconds(ContinuousClock.now - start) * 1000) }
        }
        _ = try dealer.send([Data()])
        _ = try dealer.receive()
        dealer.close()
        return latencies
    }[0]
    echo.finished.wait()
    return result
}

/// DEALER/ROUTER pipelined: `clients` DEALERs, each with `window` messages in flight.
func pipelinedRun() throws -> Double {
    let echo = try startEcho(peers: clients)
    let perClient = messages / clients
    let start = ContinuousClock.now
    _ = try onThreads(clients) { _ -> Int in
        let dealer = try context.makeSocket(.dealer)
        try dealer.set(.lingerMilliseconds(0))
        try dealer.set(.sendHighWaterMark(0))
        try dealer.connect(echo.endpoint)
        var sent = 0
        var received = 0
        while received < perClient {
            while sent < perClient && sent - received < window {
                _ = try dealer.send([payload])
                sent += 1
            }
            _ = try dealer.receive()
            received += 1
        }
        _ = try dealer.send([Data()])
        _ = try dealer.receive()
        dealer.close()
        return received
    }
    let elapsed = ContinuousClock.now - start
    echo.finished.wait()
    return Double(perClient * clients) / seconds(elapsed)
}

func percentile(_ sorted: [Double], _ q: Double) -> Double {
    let rank = Int((Double(sorted.count) * q).rounded(.up)) - 1
    return sorted[max(0, min(sorted.count - 1, rank))]
}

var pubSub: [Double] = []
var pipelined: [Double] = []
var p50: [Double] = []
var p99: [Double] = []
var p999: [Double] = []
var allLatencies: [Double] = []
for run in 1...runs {
    pubSub.append(try pubSubRun())
    let latencies = try roundTripRun().sorted()
    allLatencies += latencies
    p50.append(percentile(latencies, 0.5))
    p99.append(percentile(latencies, 0.99))
    p999.append(percentile(latencies, 0.999))
    pipelined.append(try pipelinedRun())
    print(
        String(
            format:
                "zmq run %d: PUB/SUB %.0f msg/s, DEALER/ROUTER round trip p50 %.3f ms p99 %.3f ms, pipelined %.0f msg/s",
            run, pubSub.last!, p50.last!, p99.last!, pipelined.last!))
}
allLatencies.sort()
var quantiles: [Double] = stride(from: 0.01, through: 0.90, by: 0.01).map { $0 }
quantiles += stride(from: 0.905, through: 0.99, by: 0.005).map { $0 }
quantiles += [0.992, 0.994, 0.996, 0.998, 0.999, 0.9995, 0.9999, 1.0]
let report: [String: Any] = [
    "messageBytes": bytes, "clients": clients, "window": window, "messages": messages, "samples": samples,
    "pubSubMessagesPerSecond": pubSub, "roundTripP50Milliseconds": p50, "roundTripP99Milliseconds": p99,
    "roundTripP999Milliseconds": p999, "pipelinedMessagesPerSecond": pipelined,
    "roundTripCurve": quantiles.map { [$0, percentile(allLatencies, $0)] },
]
let json = try JSONSerialization.data(withJSONObject: report, options: [.prettyPrinted, .sortedKeys])
if let output = settings["output"] {
    try json.write(to: URL(fileURLWithPath: output))
    print("wrote \(output)")
} else {
    print(String(decoding: json, as: UTF8.self))
}
