import Foundation
import PodiumMessages
import PodiumRuntime
import ZeroMQ

/// A client of the gateway's request endpoint for tests: a real DEALER socket.
public final class TestClient: Sendable {
    public let socket: AsyncSocket
    private let idPrefix = UUID().uuidString.prefix(8).lowercased()
    private let counter = Locked(0)
    private let credential = Locked(Credential.none)

    /// What the client sends with each request unless told otherwise.
    public enum Credential: Sendable, Equatable {
        case none
        case token(String)
        case serverKey(String)
        case adminKey(String)
    }

    /// Sends this credential with every request from now on.
    public func use(_ credential: Credential) { self.credential.withLock { $0 = credential } }

    /// The credential in use.
    public var currentCredential: Credential { credential.value }

    /// Connects a DEALER; with `curveServerKey`, as a CURVE client with a fresh key pair.
    public init(endpoint: String, context: ZMQContext? = nil, curveServerKey: CurveKey? = nil) throws {
        let curve = try curveServerKey.map { try CurveKeyPair.generate().clientOptions(server: $0) } ?? []
        socket = try AsyncSocket(
            context: try context ?? ZMQContext(), type: .dealer, name: "test.client",
            options: [.lingerMilliseconds(0)] + curve, connect: [endpoint])
    }

    /// A fresh request id.
    /// A request id unique to this client: ids of state-changing requests are idempotency keys,
    /// so a new client (say, after a restart) must not reuse an earlier client's ids.
    public func nextID() -> String { "t-\(idPrefix)-\(counter.withLock { $0 += 1; return $0 })" }

    /// Sends a request and waits for the reply to it (replies to other ids are skipped).
    public func request(
        _ type: MessageType, gameId: String? = nil, playerId: String? = nil, payload: JSONValue? = nil,
        id: String? = nil, timeout: Duration = .seconds(10)
    ) async throws -> RawEnvelope {
        var request = ClientRequest(
            type: type, id: id ?? nextID(), gameId: gameId, playerId: playerId, payload: payload)
        switch credential.value {
        case .none: break
        case .token(let token): request.token = token
        case .serverKey(let key): request.serverKey = key
        case .adminKey(let key): request.adminKey = key
        }
        try await send(request)
        while true {
            let reply = try await nextReply(timeout: timeout)
            if reply.correlationId == request.id { return reply }
        }
    }

    /// Sends a request without waiting.
    public func send(_ request: ClientRequest) async throws {
        try await socket.send([try WireCodec.encode(request)])
    }

    /// Sends frames exactly as given.
    public func sendFrames(_ frames: [Data]) async throws {
        try await socket.send(frames)
    }

    /// The next reply, decoded.
    public func nextReply(timeout: Duration = .seconds(10)) async throws -> RawEnvelope {
        let frames = try await nextFrames(timeout: timeout)
        guard frames.count == 1 else { throw TestStackError("reply has \(frames.count) frames") }
        return try WireCodec.decode(RawEnvelope.self, from: frames[0])
    }

    /// The next message's frames.
    public func nextFrames(timeout: Duration = .seconds(10)) async throws -> [Data] {
        let socket = self.socket
        guard let frames = try await withDeadline(timeout, { try await socket.receive() }) ?? nil else {
            throw TestStackError("socket closed")
        }
        return frames
    }

    public func close() async { await socket.close() }
}

/// A subscriber to the gateway's notification endpoint: a real SUB socket.
public final class TestSubscriber: Sendable {
    public let socket: AsyncSocket

    /// Connects and subscribes to the given topic prefixes (exactly as given, even if refused);
    /// with `curveServerKey`, as a CURVE client with a fresh key pair.
    public init(endpoint: String, topics: [String], context: ZMQContext? = nil, curveServerKey: CurveKey? = nil) throws {
        let curve = try curveServerKey.map { try CurveKeyPair.generate().clientOptions(server: $0) } ?? []
        socket = try AsyncSocket(
            context: try context ?? ZMQContext(), type: .subscriber, name: "test.subscriber",
            options: [.lingerMilliseconds(0)] + curve + topics.map { .subscribe(Data($0.utf8)) }, connect: [endpoint])
    }

    /// The next notification as `(topic, envelope)`.
    public func next(timeout: Duration = .seconds(10)) async throws -> (topic: String, envelope: RawEnvelope) {
        let socket = self.socket
        guard let frames = try await withDeadline(timeout, { try await socket.receive() }) ?? nil else {
            throw TestStackError("socket closed")
        }
        guard frames.count == 2 else { throw TestStackError("notification has \(frames.count) frames") }
        return (String(decoding: frames[0], as: UTF8.self), try WireCodec.decode(RawEnvelope.self, from: frames[1]))
    }

    public func close() async { await socket.close() }
}

/// Runs `operation`, failing with a ``TestStackError`` if it takes longer than `limit`.
public func withDeadline<Value: Sendable>(
    _ limit: Duration, _ operation: @escaping @Sendable () async throws -> Value
) async throws -> Value {
    try await withThrowingTaskGroup(of: Value?.self) { group in
        group.addTask { try await operation() }
        group.addTask {
            try await Task.sleep(for: limit)
            return nil
        }
        defer { group.cancelAll() }
        guard let first = try await group.next(), let value = first else {
            throw TestStackError("no answer within \(limit)")
        }
        return value
    }
}

