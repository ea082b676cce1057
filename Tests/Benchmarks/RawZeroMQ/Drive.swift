import Foundation
import Synchronization
import ZeroMQ

/// `podium-bench-zmq --drive <endpoint>`: a load generator for Podium's ZeroMQ front, the
/// counterpart of `wrk` for its HTTP front in scripts/bench. Compiled and on blocking sockets on
/// their own threads, as wrk is, so that the two fronts are driven at the same cost.
///
/// `--connections` DEALERs each keep `--window` requests in flight for `--seconds` seconds
/// (after one second of warm-up). The request is the JSON in the file `--request`, with
/// `__ID__` replaced by a fresh request id and `__VALUE__` by a random integer in each request.
/// Prints one JSON line: requests answered, errors among them (replies of type "error"), seconds,
/// requests per second. Exits 1 if any reply was an error.
struct Drive {
    let endpoint: String
    let template: String
    let connections: Int
    let window: Int
    let seconds: Double

    struct Counts: Sendable {
        var answered = 0
        var errors = 0
        var firstError: String?
    }

    func run(context: ZMQContext) throws -> (answered: Int, errors: Int, seconds: Double, firstError: String?) {
        let parts = template.components(separatedBy: "__ID__")
        guard parts.count == 2 else { fatalError("podium-bench-zmq: the request needs exactly one __ID__") }
        let measuring = Atomic<Bool>(false)
        let stopping = Atomic<Bool>(false)
        let endpoint = self.endpoint
        let window = self.window
        let errorMarker = Data(#""type":"error""#.utf8)
        let results = Mutex<Counts>(Counts())
        let done = DispatchSemaphore(value: 0)
        for connection in 0..<connections {
            let thread = Thread {
                defer { done.signal() }
                do {
                    let dealer = try context.makeSocket(.dealer)
                    try dealer.set(.lingerMilliseconds(0))
                    try dealer.connect(endpoint)
                    var generator = SystemRandomNumberGenerator()
                    var counter = 0
                    func request() -> Data {
                        counter += 1
                        var text =
                            parts[0]
                            + "c\(connection)-\(counter)-\(UInt32.random(in: 0...UInt32.max, using: &generator))"
                            + parts[1]
                        if text.contains("__VALUE__") {
                            text = text.replacingOccurrences(
                                of: "__VALUE__", with: "\(Int.random(in: 0..<1_000_000, using: &generator))")
                        }
                        return Data(text.utf8)
                    }
                    var local = Counts()
                    var inFlight = 0
                    while true {
                        while inFlight < window && !stopping.load(ordering: .relaxed) {
                            _ = try dealer.send([request()])
                            inFlight += 1
                        }
                        if inFlight == 0 { break }
                        guard let reply = try dealer.receive() else { break }
                        inFlight -= 1
                        guard measuring.load(ordering: .relaxed) else { continue }
                        local.answered += 1
                        if let body = reply.last, body.range(of: errorMarker) != nil {
                            local.errors += 1
                            if local.firstError == nil {
                                local.firstError = String(decoding: body.prefix(300), as: UTF8.self)
                            }
                        }
                    }
                    dealer.close()
                    results.withLock { total in
                        total.answered += local.answered
                        total.errors += local.errors
                        total.firstError = total.firstError ?? local.firstError
                    }
                } catch {
                    results.withLock {
                        $0.firstError = $0.firstError ?? "\(error)"
                        $0.errors += 1
                    }
                }
            }
            thread.stackSize = 1 << 20
            thread.start()
        }
        Thread.sleep(forTimeInterval: 1)
        measuring.store(true, ordering: .relaxed)
        let start = ContinuousClock.now
        Thread.sleep(forTimeInterval: seconds)
        measuring.store(false, ordering: .relaxed)
        let elapsed = ContinuousClock.now - start
        stopping.store(true, ordering: .relaxed)
        for _ in 0..<connections { done.wait() }
        let counts = results.withLock { $0 }
        let measured = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        return (counts.answered, counts.errors, measured, counts.firstError)
    }
}
