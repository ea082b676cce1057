import Foundation
import Synchronization
import Testing
import ZeroMQ

// Bounded waits and small conveniences shared by the ZeroMQ tests. Nothing here measures time:
// the limits only turn a hang into a failure with a message.

/// How long any single wait may last before the test fails.
enum TestWait {
    static let seconds = 10
    static var milliseconds: Int { seconds * 1000 }
    /// The slice a retry loop polls for before publishing again.
    static let retrySliceMilliseconds = 50
}

/// A bounded wait ran out.
struct TimedOut: Error, CustomStringConvertible {
    let what: String
    let seconds: Int
    init(_ what: String, seconds: Int = TestWait.seconds) {
        self.what = what
        self.seconds = seconds
    }
    var description: String { "timed out after \(seconds) s waiting for \(what)" }
}

/// An asynchronous socket was closed while a message was still expected on it.
struct SocketEnded: Error, CustomStringConvertible {
    let what: String
    var description: String { "socket ended before \(what)" }
}

/// The point after which a retry loop gives up.
struct Deadline {
    private let end: ContinuousClock.Instant
    private let what: String

    init(_ what: String, seconds: Int = TestWait.seconds) {
        self.end = .now + .seconds(seconds)
        self.what = what
    }

    /// Throws ``TimedOut`` once the deadline has passed.
    func check() throws {
        if ContinuousClock.now >= end { throw TimedOut(what) }
    }
}

/// An `inproc://` endpoint no other test uses (tests run in parallel).
func uniqueInproc(_ label: String) -> String {
    "inproc://zeromq-tests.\(label).\(UUID().uuidString)"
}

/// A loopback TCP endpoint with an ephemeral port; read the real one back after binding.
let anyLocalTCP = "tcp://127.0.0.1:*"

func bytes(_ text: String) -> Data { Data(text.utf8) }
func text(_ data: Data) -> String { String(decoding: data, as: UTF8.self) }
func texts(_ frames: [Data]) -> [String] { frames.map(text) }

/// `count` bytes from the system's random source.
func randomBytes(_ count: Int) -> Data {
    var generator = SystemRandomNumberGenerator()
    var data = Data(count: count)
    data.withUnsafeMutableBytes { buffer in
        var offset = 0
        while offset < count {
            let word: UInt64 = generator.next()
            let length = min(MemoryLayout<UInt64>.size, count - offset)
            withUnsafeBytes(of: word) { wordBytes in
                buffer.baseAddress!.advanced(by: offset).copyMemory(from: wordBytes.baseAddress!, byteCount: length)
            }
            offset += length
        }
    }
    return data
}

// MARK: - Synchronous sockets

/// Receives one whole message, waiting at most ``TestWait/seconds``.
func receive(_ socket: ZMQSocket, _ what: String) throws -> [Data] {
    let ready = try ZMQSocket.poll([(socket, .readable)], timeoutMilliseconds: TestWait.milliseconds)
    guard ready[0].contains(.readable), let message = try socket.receive(wait: false) else {
        throw TimedOut(what)
    }
    return message
}

/// Sends one message once the socket can take it, waiting at most ``TestWait/seconds``.
func send(_ socket: ZMQSocket, _ frames: [Data], _ what: String) throws {
    let ready = try ZMQSocket.poll([(socket, .writable)], timeoutMilliseconds: TestWait.milliseconds)
    guard ready[0].contains(.writable), try socket.send(frames, wait: false) else {
        throw TimedOut("\(what) to be accepted for sending")
    }
}

/// Every message already queued on the socket, without waiting.
func drain(_ socket: ZMQSocket) throws -> [[Data]] {
    var messages: [[Data]] = []
    while let message = try socket.receive(wait: false) { messages.append(message) }
    return messages
}

// MARK: - Asynchronous sockets

/// Runs `operation`, failing with ``TimedOut`` if it has not finished after `seconds`.
///
/// The operation runs in its own task, so the wait ends on time even when the operation ignores
/// cancellation (a send, a close, a proxy stop): on timeout it is cancelled and abandoned, and the
/// test fails instead of hanging.
func withTimeout<T: Sendable>(
    _ what: String,
    seconds: Int = TestWait.seconds,
    _ operation: @escaping @Sendable () async throws -> T
) async throws -> T {
    try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
        let race = Race(continuation)
        race.track(
            Task {
                do {
                    race.finish(.success(try await operation()))
                } catch {
                    race.finish(.failure(error))
                }
            })
        race.track(
            Task {
                do {
                    try await Task.sleep(for: .seconds(seconds))
                } catch {
                    return  // The operation finished first.
                }
                race.finish(.failure(TimedOut(what, seconds: seconds)))
            })
    }
}

/// Resumes a continuation with whichever of its tasks finishes first, then cancels the others.
private final class Race<T: Sendable>: Sendable {
    private struct State {
        var continuation: CheckedContinuation<T, any Error>?
        var tasks: [Task<Void, Never>] = []
    }

    private let state: Mutex<State>

    init(_ continuation: CheckedContinuation<T, any Error>) {
        state = Mutex(State(continuation: continuation))
    }

    func track(_ task: Task<Void, Never>) {
        let finished = state.withLock { state -> Bool in
            if state.continuation == nil { return true }
            state.tasks.append(task)
            return false
        }
        if finished { task.cancel() }
    }

    func finish(_ result: Result<T, any Error>) {
        let (continuation, tasks) = state.withLock { state in
            defer {
                state.continuation = nil
                state.tasks = []
            }
            return (state.continuation, state.tasks)
        }
        guard let continuation else { return }
        continuation.resume(with: result)
        for task in tasks { task.cancel() }
    }
}

/// Receives one message, waiting at most ``TestWait/seconds``; a closed socket is a failure.
func receive(_ socket: AsyncSocket, _ what: String) async throws -> [Data] {
    guard let message = try await withTimeout(what, { try await socket.receive() }) else {
        throw SocketEnded(what: what)
    }
    return message
}

/// Sends one message, waiting at most ``TestWait/seconds`` for libzmq to accept it.
func send(_ socket: AsyncSocket, _ frames: [Data], _ what: String) async throws {
    try await withTimeout("\(what) to be accepted for sending") { try await socket.send(frames) }
}

/// Runs `body`, then closes every socket, whether `body` succeeded or threw.
func closingAfterwards<T>(_ sockets: [AsyncSocket], _ body: () async throws -> T) async throws -> T {
    let result: Result<T, any Error>
    do {
        result = .success(try await body())
    } catch {
        result = .failure(error)
    }
    for socket in sockets {
        try await withTimeout("\(socket.name) to close") { await socket.close() }
    }
    return try result.get()
}

/// A counter any task may bump.
final class SharedCounter: Sendable {
    private let count = Mutex(0)
    func increment() { count.withLock { $0 += 1 } }
    var value: Int { count.withLock { $0 } }
}
