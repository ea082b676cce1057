import Foundation
import PodiumMessages
import ZeroMQ

/// A DEALER connection to the gateway's request endpoint. Used from the command's own thread
/// only (the CLI is a plain synchronous program, so blocking here blocks nothing else).
final class GatewayConnection {
    let context: ZMQContext
    let socket: ZMQSocket
    private var counter = 0
    /// Unique per run: request ids of state-changing requests are idempotency keys, so a later run
    /// must never repeat an earlier run's ids (process ids are reused).
    private let prefix = "cli-\(UUID().uuidString.prefix(13).lowercased())-"

    /// CURVE client options for every socket of this run (empty without a server key): one key
    /// pair made for the run, so nothing secret is stored on the client's side.
    let curveOptions: [SocketOption]

    convenience init(_ gateway: GatewayOptions) throws {
        try self.init(endpoint: gateway.endpoint, curveServerKey: try gateway.curveServerKey())
    }

    init(endpoint: String, curveServerKey: CurveKey? = nil) throws {
        curveOptions = try curveServerKey.map { try CurveKeyPair.generate().clientOptions(server: $0) } ?? []
        context = try ZMQContext()
        socket = try context.makeSocket(.dealer)
        try socket.set(.lingerMilliseconds(500))
        try socket.set(.sendHighWaterMark(100_000))
        try socket.set(.receiveHighWaterMark(100_000))
        // Before connect: libzmq picks the security mechanism when the connection starts.
        for option in curveOptions { try socket.set(option) }
        try socket.connect(endpoint)
    }

    deinit { socket.close() }

    /// A fresh request id.
    func nextRequestID() -> String {
        counter += 1
        return prefix + String(counter)
    }

    /// Sends one request (one frame).
    func send(_ request: ClientRequest) throws {
        try socket.send([try WireCodec.encode(request)])
    }

    /// Sends bytes exactly as given.
    func sendRaw(_ body: Data) throws {
        try socket.send([body])
    }

    /// The next reply, or nil if none arrives within the timeout.
    func receive(timeoutMilliseconds: Int) throws -> Reply? {
        let ready = try ZMQSocket.poll([(socket, .readable)], timeoutMilliseconds: timeoutMilliseconds)
        guard ready[0].contains(.readable), let frames = try socket.receive(wait: false) else { return nil }
        let body = frames.last ?? Data()
        return Reply(body: body, envelope: try? WireCodec.decode(RawEnvelope.self, from: body))
    }

    /// Sends a request and waits for the reply that answers it.
    func call(_ request: ClientRequest, timeoutMilliseconds: Int) throws -> Reply? {
        try send(request)
        let deadline = Date().addingTimeInterval(Double(timeoutMilliseconds) / 1000)
        while true {
            let remaining = Int(deadline.timeIntervalSinceNow * 1000)
            guard remaining > 0, let reply = try receive(timeoutMilliseconds: remaining) else { return nil }
            if reply.envelope?.correlationId == request.id { return reply }
        }
    }
}

/// A reply as received: the exact bytes, and the envelope if they decode.
struct Reply {
    let body: Data
    let envelope: RawEnvelope?

    var text: String { String(decoding: body, as: UTF8.self) }
    var isSuccess: Bool { envelope?.type == .reply }
}
