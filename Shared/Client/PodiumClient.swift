import PodiumMessages
import Synchronization

/// A typed client of Podium's request endpoint, built from the request catalog: one call per
/// ``RequestDefinition`` (``AuthRequests``, ``LeaderboardRequests``, ``AchievementRequests``,
/// ``ChallengeRequests``, ``GatewayRequests``), its payload in, its reply type out.
///
/// ```swift
/// let client = try PodiumClient(dealer: "tcp://127.0.0.1:5555", credential: .serverKey(key))
/// let page = try await client.call(
///     LeaderboardRequests.top, BoardQuery(boardId: "dash.highscore", limit: 10), gameId: "dash")
/// ```
///
/// - The request: ``RequestCodec`` writes the envelope (type, id, `gameId`, `playerId`, the one
///   credential) around the payload's `Codable` form; nothing is spelled as a string or built as
///   a dictionary by hand.
/// - The credential: the client's (``use(_:)``: a session token, a game server's key or the
///   admin key), or one given for a call.
/// - Request ids: fresh and unique to this client instance (``RequestIDs``: a random prefix and
///   a counter), since ids of state-changing requests are idempotency keys; pass `id:` to resend
///   a request under its first id and get its first answer again.
/// - The reply: ``call(_:_:gameId:playerId:id:credential:timeout:)`` returns the definition's
///   reply type. An error reply throws a ``PodiumClientError`` whose ``PodiumClientError/code``
///   is Podium's stable ``ErrorCode``; no reply within the timeout throws one of kind
///   ``PodiumClientError/Kind/noReply``. ``exchange(_:_:gameId:playerId:id:credential:timeout:)``
///   returns the reply as received instead (``PodiumReply``: the envelope, its bytes, and
///   ``PodiumReply/value()``), for callers that print it or read its envelope.
/// - The transport (``PodiumTransport``) only moves a ``ClientRequest`` and its reply: a ZeroMQ
///   DEALER with its own thread (``DealerTransport``, tests and benchmarks), the gateway's
///   pipeline in the same process (``InProcessTransport``, the console). Synchronous programs
///   (the `podium` command) use ``BlockingPodiumClient``, the same surface over a blocking DEALER.
///
/// Calls on one client may run one at a time or pipelined through the transport's own
/// `send`/`nextReply`; a call skips replies to other ids, so concurrent calls need a client each.
public final class PodiumClient: Sendable {
    public let transport: any PodiumTransport
    /// How long a call waits for its reply unless told otherwise.
    public let timeout: Duration
    private let ids: RequestIDs
    private let counter = Atomic<Int>(0)
    private let state: Mutex<ClientCredential>

    /// - Parameters:
    ///   - idPrefix: what the request ids start with (`t-`, `console-`), before a random part of
    ///     `randomIDCharacters` characters (up to 36, a whole UUID) and a counter.
    public init(
        transport: any PodiumTransport, credential: ClientCredential = .none, idPrefix: String = "c-",
        randomIDCharacters: Int = 13, timeout: Duration = .seconds(10)
    ) {
        self.transport = transport
        self.timeout = timeout
        ids = RequestIDs(prefix: idPrefix, randomCharacters: randomIDCharacters)
        state = Mutex(credential)
    }

    /// Sends this credential with every request from now on.
    public func use(_ credential: ClientCredential) { state.withLock { $0 = credential } }

    /// The credential sent with every request.
    public var credential: ClientCredential { state.withLock { $0 } }

    /// A fresh request id, unique to this client.
    public func nextID() -> String { ids.id(counter.add(1, ordering: .relaxed).newValue) }

    /// The request a call would send (for pipelining it through the transport by hand).
    public func request<Payload, Reply>(
        _ definition: RequestDefinition<Payload, Reply>, _ payload: Payload, gameId: String? = nil,
        playerId: String? = nil, id: String? = nil, credential: ClientCredential? = nil
    ) throws -> ClientRequest {
        try RequestCodec.request(
            definition, payload, id: id ?? nextID(), gameId: gameId, playerId: playerId,
            credential: credential ?? self.credential)
    }

    /// Sends a typed request and returns its reply as received, error or not.
    public func exchange<Payload, Reply>(
        _ definition: RequestDefinition<Payload, Reply>, _ payload: Payload, gameId: String? = nil,
        playerId: String? = nil, id: String? = nil, credential: ClientCredential? = nil, timeout: Duration? = nil
    ) async throws -> PodiumReply<Reply> {
        let request = try request(
            definition, payload, gameId: gameId, playerId: playerId, id: id, credential: credential)
        let wait = timeout ?? self.timeout
        return try RequestCodec.reply(
            try await transport.exchange(request, timeout: wait), to: request, as: Reply.self, timeout: wait)
    }

    /// Sends a typed request and returns its typed reply; an error reply throws a
    /// ``PodiumClientError`` carrying its ``ErrorCode``.
    public func call<Payload, Reply>(
        _ definition: RequestDefinition<Payload, Reply>, _ payload: Payload, gameId: String? = nil,
        playerId: String? = nil, id: String? = nil, credential: ClientCredential? = nil, timeout: Duration? = nil
    ) async throws -> Reply {
        try await exchange(
            definition, payload, gameId: gameId, playerId: playerId, id: id, credential: credential, timeout: timeout
        ).value()
    }

    /// ``exchange(_:_:gameId:playerId:id:credential:timeout:)`` for a request without payload.
    public func exchange<Reply>(
        _ definition: RequestDefinition<EmptyPayload, Reply>, gameId: String? = nil, playerId: String? = nil,
        id: String? = nil, credential: ClientCredential? = nil, timeout: Duration? = nil
    ) async throws -> PodiumReply<Reply> {
        try await exchange(
            definition, EmptyPayload(), gameId: gameId, playerId: playerId, id: id, credential: credential,
            timeout: timeout)
    }

    /// ``call(_:_:gameId:playerId:id:credential:timeout:)`` for a request without payload.
    public func call<Reply>(
        _ definition: RequestDefinition<EmptyPayload, Reply>, gameId: String? = nil, playerId: String? = nil,
        id: String? = nil, credential: ClientCredential? = nil, timeout: Duration? = nil
    ) async throws -> Reply {
        try await exchange(
            definition, EmptyPayload(), gameId: gameId, playerId: playerId, id: id, credential: credential,
            timeout: timeout
        ).value()
    }
}
