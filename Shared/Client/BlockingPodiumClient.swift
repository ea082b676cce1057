import PodiumMessages

/// ``PodiumClient``'s typed surface for synchronous programs (the `podium` command): the same
/// ``RequestCodec``, ids and errors, over a ``BlockingPodiumTransport`` whose calls block the
/// calling thread. Use it from one thread.
public final class BlockingPodiumClient<Transport: BlockingPodiumTransport> {
    public let transport: Transport
    /// How long a call waits for its reply unless told otherwise.
    public var timeout: Duration
    /// The credential sent with every request unless a call gives one.
    public var credential: ClientCredential
    private let ids: RequestIDs
    private var counter = 0

    public init(
        transport: Transport, credential: ClientCredential = .none, idPrefix: String = "c-",
        timeout: Duration = .seconds(5)
    ) {
        self.transport = transport
        self.credential = credential
        self.timeout = timeout
        ids = RequestIDs(prefix: idPrefix)
    }

    /// A fresh request id, unique to this client.
    public func nextID() -> String {
        counter += 1
        return ids.id(counter)
    }

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
    ) throws -> PodiumReply<Reply> {
        let request = try request(
            definition, payload, gameId: gameId, playerId: playerId, id: id, credential: credential)
        let wait = timeout ?? self.timeout
        return try RequestCodec.reply(
            try transport.exchange(request, timeout: wait), to: request, as: Reply.self, timeout: wait)
    }

    /// Sends a typed request and returns its typed reply; an error reply throws a
    /// ``PodiumClientError`` carrying its ``ErrorCode``.
    public func call<Payload, Reply>(
        _ definition: RequestDefinition<Payload, Reply>, _ payload: Payload, gameId: String? = nil,
        playerId: String? = nil, id: String? = nil, credential: ClientCredential? = nil, timeout: Duration? = nil
    ) throws -> Reply {
        try exchange(
            definition, payload, gameId: gameId, playerId: playerId, id: id, credential: credential, timeout: timeout
        )
        .value()
    }

    /// ``call(_:_:gameId:playerId:id:credential:timeout:)`` for a request without payload.
    public func call<Reply>(
        _ definition: RequestDefinition<EmptyPayload, Reply>, gameId: String? = nil, playerId: String? = nil,
        id: String? = nil, credential: ClientCredential? = nil, timeout: Duration? = nil
    ) throws -> Reply {
        try call(
            definition, EmptyPayload(), gameId: gameId, playerId: playerId, id: id, credential: credential,
            timeout: timeout)
    }
}
