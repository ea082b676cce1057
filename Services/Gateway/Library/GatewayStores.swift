import Foundation
import PodiumMessages
import PodiumRuntime

/// One event to log: who sent it, its request id and payload digest, and the envelope to publish.
public struct EventLogEntry: Sendable {
    public var gameId: String
    public var playerId: String
    public var requestId: String
    public var fingerprint: String
    public var topic: Topic
    public var envelope: Envelope<GameEvent>
    /// The event's and the actor's JSON text, written when the entry is made (on the request's
    /// task), so that the log's one writer only writes the numbered envelope's header around them.
    public var payloadText: Data
    public var actorText: Data?

    public init(
        gameId: String, playerId: String, requestId: String, fingerprint: String? = nil, topic: Topic,
        envelope: Envelope<GameEvent>
    ) {
        self.gameId = gameId
        self.playerId = playerId
        self.requestId = requestId
        self.topic = topic
        self.envelope = envelope
        self.payloadText = (try? WireCodec.encode(envelope.payload)) ?? Data("{}".utf8)
        self.actorText = envelope.actor?.jsonText
        // The payload digest of a resend check: the digest of the same text.
        self.fingerprint = fingerprint ?? RequestReceipts.fingerprint(ofText: payloadText)
    }
}

/// A logged event as the bus carries it: its topic and its numbered envelope.
public struct CommittedEvent: Sendable, Equatable {
    public var topic: String
    public var body: Data
}

/// What logging one entry did.
public enum EventLogOutcome: Sendable {
    /// Logged now under the next sequence; `event` goes on the bus.
    case logged(EventAcknowledgement, event: CommittedEvent)
    /// The request id was logged before with the same payload: the original acknowledgement.
    case repeated(EventAcknowledgement)
    /// Refused, nothing logged (the request id came with another payload).
    case refused(ErrorReply)
}

/// The numbering rules of the event log, the same for every store: inside one transaction, each
/// entry either repeats a logged request id (same payload: the original acknowledgement; another
/// payload: `id_reused`) or takes the next sequence after the stored head, without gaps.
public struct EventNumbering: Sendable {
    /// What an earlier log entry of the same request id holds.
    public typealias Earlier = (fingerprint: String, acknowledgement: EventAcknowledgement)

    public private(set) var head: UInt64
    private var inBatch: [String: Earlier] = [:]

    /// Numbering after the stored head, read in the same transaction as the inserts.
    public init(head: UInt64) { self.head = head }

    /// An entry of this batch with the same request id, if any (checked before the store).
    public func earlierInBatch(_ entry: EventLogEntry) -> Earlier? { inBatch[Self.key(entry)] }

    /// Decides an entry, given what the store holds for its request id (`earlier`): its outcome,
    /// and for a new event the row to insert (sequence and numbered envelope).
    public mutating func admit(_ entry: EventLogEntry, earlier: Earlier?) throws -> (
        outcome: EventLogOutcome, sequence: UInt64?
    ) {
        if let earlier = earlierInBatch(entry) ?? earlier {
            guard earlier.fingerprint == entry.fingerprint else {
                return (.refused(RequestReceipts.reused(entry.requestId)), nil)
            }
            var repeated = earlier.acknowledgement
            repeated.duplicate = true
            return (.repeated(repeated), nil)
        }
        head += 1
        var envelope = entry.envelope
        envelope.publisher = StreamName.events
        envelope.sequence = head
        let acknowledgement = EventAcknowledgement(
            eventId: envelope.id, topic: entry.topic.rawValue, publisher: StreamName.events, sequence: head,
            acceptedAt: envelope.timestamp)
        inBatch[Self.key(entry)] = (entry.fingerprint, acknowledgement)
        let event = CommittedEvent(
            topic: entry.topic.rawValue,
            body: try EnvelopeWriter.encode(envelope, payload: entry.payloadText, actor: entry.actorText))
        return (.logged(acknowledgement, event: event), head)
    }

    /// An entry's request id in its game and player: what a resend is recognised by.
    static func key(_ entry: EventLogEntry) -> String {
        "\(entry.gameId)\u{0}\(entry.playerId)\u{0}\(entry.requestId)"
    }
}

/// Where the gateway's event log is kept: every acknowledged event, numbered 1, 2, 3… for good.
/// It prunes as a ``StreamRetention`` (never its newest event: the next is numbered after it).
public protocol EventLogStore: StreamRetention {
    /// Where the data is, for health and logs (`sqlite:/path`, `postgresql://host/db`).
    /// Lets go of the database (its connections) once the service has stopped.
    func close() async
    var location: String { get }
    /// Files on this machine that hold it (for the database size metric), if any.
    var files: [String] { get }
    /// The last sequence logged (0 when empty).
    func head() async throws -> UInt64
    /// Logs a batch in one transaction (one commit): each entry decided by ``EventNumbering``
    /// after the head stored at that moment. Throwing means nothing of the batch was logged.
    func append(_ entries: [EventLogEntry]) async throws -> [EventLogOutcome]
    /// The acknowledgement of a logged request id, if any.
    func acknowledgement(gameId: String, playerId: String, requestId: String) async throws -> EventAcknowledgement?
    /// Events after a sequence, as published, and the head.
    func page(after: UInt64, limit: Int) async throws -> StreamPage
    /// Rewrites every logged event of a deleted player with the deletion's pseudonym in the
    /// player's place (``Pseudonyms``), in its row and its envelope; how many events.
    func pseudonymise(playerId: String, as pseudonym: String) async throws -> Int
    /// A player's newest `limit` logged events, newest first (a read: the log has no index by
    /// player, so this scans it; exports are rare).
    func events(ofPlayer playerId: String, limit: Int) async throws -> [StreamMessage]
}

/// Where the gateway's audit log is kept: append-only, numbered.
public protocol AuditStore: Sendable {
    /// Lets go of the database (its connections) once the service has stopped.
    func close() async
    var location: String { get }
    var files: [String] { get }
    /// Appends an entry (its `seq` is assigned by the store) and returns its sequence number.
    func append(_ entry: AuditEntry) async throws -> Int64
    /// Up to `limit` entries before `before` (newest first), filtered by type and player.
    func entries(before: Int64, type: String?, playerId: String?, limit: Int) async throws -> [AuditEntry]
    /// Rewrites every entry that names a deleted player (as its player, its actor or in its
    /// payload) with the deletion's pseudonym in the player's place; how many entries.
    func pseudonymise(playerId: String, as pseudonym: String) async throws -> Int
}

/// The gateway's stores.
public struct GatewayStorage: Sendable {
    public var eventLog: any EventLogStore
    public var audit: any AuditStore
    /// Operator accounts (kept beside the audit log).
    public var operators: any OperatorStore
    /// Where the gateways share the players' admitted requests (PostgreSQL); nil: one gateway.
    public var rateUsage: (any SharedRateUsage)?
    /// What the stores run while open (a connection pool): one of the gateway's parts.
    public var runner: (any StorageRunner)?

    public init(
        eventLog: any EventLogStore, audit: any AuditStore & OperatorStore, runner: (any StorageRunner)? = nil
    ) {
        self.eventLog = eventLog
        self.audit = audit
        self.operators = audit
        self.runner = runner
    }
}

/// Opens the gateway's stores once its settings are known.
public typealias GatewayStorageOpener = @Sendable (RuntimeSettings) async throws -> GatewayStorage

extension EventLogStore {
    /// Nothing to let go of (SQLite files close with their last reference).
    public func close() async {}
}

extension AuditStore {
    /// Nothing to let go of (SQLite files close with their last reference).
    public func close() async {}
}
