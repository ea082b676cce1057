/// One entry of the gateway's audit log (docs/PROTOCOL.md 22.7).
public struct AuditEntry: Codable, Sendable, Equatable {
    /// 1, 2, 3… in the order written.
    public var seq: Int64
    /// Unix milliseconds.
    public var at: Int64
    /// Who: `admin:<first 8 hex digits of SHA-256 of the key>`.
    public var actor: String
    /// `zeromq`, `http` or `websocket`.
    public var transport: String
    public var peer: String?
    public var type: String
    public var gameId: String?
    public var playerId: String?
    /// The request's payload with secret-looking members replaced by "***".
    public var payload: JSONValue
    public var requestId: String?
    /// `ok` or the error code.
    public var outcome: String

    public init(
        seq: Int64, at: Int64, actor: String, transport: String, peer: String?, type: String, gameId: String?,
        playerId: String?,
        payload: JSONValue, requestId: String?, outcome: String
    ) {
        self.seq = seq
        self.at = at
        self.actor = actor
        self.transport = transport
        self.peer = peer
        self.type = type
        self.gameId = gameId
        self.playerId = playerId
        self.payload = payload
        self.requestId = requestId
        self.outcome = outcome
    }
}

/// `admin.audit`: which entries, newest first.
public struct AuditQuery: Codable, Sendable, Equatable {
    /// Entries before this sequence number (the previous page's `next`).
    public var before: Int64?
    /// 1-200, default 50.
    public var limit: Int?
    public var type: String?
    public var playerId: String?

    public init(before: Int64? = nil, limit: Int? = nil, type: String? = nil, playerId: String? = nil) {
        self.before = before
        self.limit = limit
        self.type = type
        self.playerId = playerId
    }
}

/// The reply to `admin.audit`.
public struct AuditPage: Codable, Sendable, Equatable {
    public var entries: [AuditEntry]
    /// Pass as `before` for the next (older) page; nil at the end.
    public var next: Int64?

    public init(entries: [AuditEntry], next: Int64?) {
        self.entries = entries
        self.next = next
    }

    enum CodingKeys: String, CodingKey { case entries, next }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(entries, forKey: .entries)
        try container.encode(next, forKey: .next)
    }
}
