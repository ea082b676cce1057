import Foundation
import PodiumClient
import PodiumMessages
import PodiumRuntime
import ZeroMQ

/// A client of the gateway's request endpoint for tests: a ``PodiumClient`` over a real DEALER
/// socket (``DealerTransport``), with the raw socket at hand for tests about malformed input.
///
/// Tests call the typed surface (``call(_:_:gameId:playerId:id:credential:timeout:)``,
/// ``exchange(_:_:gameId:playerId:id:credential:timeout:)``); ``request(_:gameId:playerId:payload:id:timeout:)``
/// sends a hand-built payload and is kept for tests that deliberately send what no definition
/// would (wrong shapes, unknown types).
public final class TestClient: Sendable {
    public let transport: DealerTransport
    /// The typed client every call goes through.
    public let client: PodiumClient
    public var socket: AsyncSocket { transport.socket }

    /// What the client sends with each request unless told otherwise.
    public typealias Credential = ClientCredential

    /// Sends this credential with every request from now on.
    public func use(_ credential: Credential) { client.use(credential) }

    /// The credential in use.
    public var currentCredential: Credential { client.credential }

    /// Connects a DEALER; with `curveServerKey`, as a CURVE client with a fresh key pair.
    public init(endpoint: String, context: ZMQContext? = nil, curveServerKey: CurveKey? = nil) throws {
        transport = try DealerTransport(
            endpoint: endpoint, context: context, curveServerKey: curveServerKey, name: "test.client")
        client = PodiumClient(transport: transport, idPrefix: "t-", randomIDCharacters: 8)
    }

    /// A request id unique to this client: ids of state-changing requests are idempotency keys,
    /// so a new client (say, after a restart) must not reuse an earlier client's ids.
    public func nextID() -> String { client.nextID() }

    /// Sends a typed request and returns its typed reply; an error reply throws a
    /// ``PodiumClientError`` (see ``errorCode(_:)``).
    public func call<Payload, Reply>(
        _ definition: RequestDefinition<Payload, Reply>, _ payload: Payload, gameId: String? = nil,
        playerId: String? = nil, id: String? = nil, credential: Credential? = nil, timeout: Duration? = nil
    ) async throws -> Reply {
        try await client.call(
            definition, payload, gameId: gameId, playerId: playerId, id: id, credential: credential, timeout: timeout)
    }

    /// ``call(_:_:gameId:playerId:id:credential:timeout:)`` for a request without payload.
    public func call<Reply>(
        _ definition: RequestDefinition<EmptyPayload, Reply>, gameId: String? = nil, playerId: String? = nil,
        id: String? = nil, credential: Credential? = nil, timeout: Duration? = nil
    ) async throws -> Reply {
        try await client.call(
            definition, gameId: gameId, playerId: playerId, id: id, credential: credential, timeout: timeout)
    }

    /// Sends a typed request and returns the reply as received, error or not.
    public func exchange<Payload, Reply>(
        _ definition: RequestDefinition<Payload, Reply>, _ payload: Payload, gameId: String? = nil,
        playerId: String? = nil, id: String? = nil, credential: Credential? = nil, timeout: Duration? = nil
    ) async throws -> PodiumReply<Reply> {
        try await client.exchange(
            definition, payload, gameId: gameId, playerId: playerId, id: id, credential: credential, timeout: timeout)
    }

    /// ``exchange(_:_:gameId:playerId:id:credential:timeout:)`` for a request without payload.
    public func exchange<Reply>(
        _ definition: RequestDefinition<EmptyPayload, Reply>, gameId: String? = nil, playerId: String? = nil,
        id: String? = nil, credential: Credential? = nil, timeout: Duration? = nil
    ) async throws -> PodiumReply<Reply> {
        try await client.exchange(
            definition, gameId: gameId, playerId: playerId, id: id, credential: credential, timeout: timeout)
    }

    /// The raw escape hatch: sends a request of any type with a hand-built payload and waits
    /// for the reply to it (replies to other ids are skipped). For tests about what no
    /// definition sends (malformed payloads, unknown types); everything else uses ``call(_:_:gameId:playerId:id:credential:timeout:)``.
    public func request(
        _ type: MessageType, gameId: String? = nil, playerId: String? = nil, payload: JSONValue? = nil,
        id: String? = nil, timeout: Duration = .seconds(10)
    ) async throws -> RawEnvelope {
        var request = ClientRequest(
            type: type, id: id ?? nextID(), gameId: gameId, playerId: playerId, payload: payload)
        client.credential.apply(to: &request)
        try await send(request)
        while true {
            let reply = try await nextReply(timeout: timeout)
            if reply.correlationId == request.id { return reply }
        }
    }

    /// Sends a request without waiting.
    public func send(_ request: ClientRequest) async throws {
        try await transport.send(request)
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
        guard let frames = try await transport.nextFrames(until: .now + timeout) else {
            throw TestStackError("no answer within \(timeout)")
        }
        return frames
    }

    public func close() async { await transport.close() }
}

/// The stable code of the error `operation` ended with: nil when it succeeded. Other failures
/// (no reply in time, a closed socket) are rethrown, so that they never pass for a code.
///
/// ```swift
/// #expect(try await errorCode { try await player.call(LeaderboardRequests.top, query, gameId: "dash") } == .unknownBoard)
/// ```
public func errorCode<Value>(_ operation: () async throws -> Value) async throws -> ErrorCode? {
    do {
        _ = try await operation()
        return nil
    } catch let error as PodiumClientError where error.kind == .errorReply {
        return error.code
    } catch let error as ErrorReply {
        // A library called directly (no client between) throws the reply itself.
        return error.code
    }
}

/// A subscriber to the gateway's notification endpoint: a real SUB socket.
public final class TestSubscriber: Sendable {
    public let socket: AsyncSocket

    /// Connects and subscribes to the given topic prefixes (exactly as given, even if refused);
    /// with `curveServerKey`, as a CURVE client with a fresh key pair.
    public init(endpoint: String, topics: [String], context: ZMQContext? = nil, curveServerKey: CurveKey? = nil) throws
    {
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
