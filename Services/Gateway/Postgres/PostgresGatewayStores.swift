import Foundation
import Gateway
import Logging
import PodiumMessages
import PodiumPostgres
import PodiumRuntime
import PostgresNIO

/// The event log in PostgreSQL (table `event` in the gateway's schema).
///
/// Gap-free under concurrent writers: a batch's transaction takes the table's lock (readers
/// still read), reads the head and numbers after it, so sequences follow commit order and a
/// rolled-back batch leaves no hole.
public final class PostgresEventLogStore: EventLogStore, StorageSize {
    let database: PostgresStorage
    public var location: String { database.settings.location }
    public var files: [String] { [] }

    static let migrations = [
        PostgresMigration(
            "v1-event-log",
            [
                """
                CREATE TABLE event (seq bigint PRIMARY KEY, game_id text NOT NULL, player_id text NOT NULL, request_id text NOT NULL,
                    fingerprint text NOT NULL, event_id text NOT NULL, topic text NOT NULL, accepted_at bigint NOT NULL,
                    envelope bytea NOT NULL, UNIQUE (game_id, player_id, request_id))
                """
            ]),
        PostgresMigration("v2-retention", ["CREATE INDEX event_accepted_at ON event (accepted_at)"]),
    ]

    public func streamBounds(agedBefore: Int64) async throws -> StreamBounds {
        let logger = database.logger
        return try await database.read { connection in try await Self.bounds(agedBefore: agedBefore, connection, logger)
        }
    }

    public func pruneStream(through: UInt64, atMost: Int) async throws -> Int {
        let logger = database.logger
        return try await database.transaction { connection in
            try await PostgresDurable.deletedCount(
                """
                DELETE FROM event WHERE seq IN (SELECT seq FROM event WHERE seq <= \(Int64(clamping: through)) ORDER BY seq LIMIT \(atMost))
                RETURNING 1
                """, on: connection, logger: logger)
        }
    }

    private static func bounds(agedBefore: Int64, _ connection: PostgresConnection, _ logger: Logger) async throws
        -> StreamBounds
    {
        try await PostgresDurable.streamBounds(
            table: "event", timeColumn: "accepted_at", agedBefore: agedBefore, on: connection, logger: logger)
    }

    public init(database: PostgresStorage) { self.database = database }

    public func close() async { database.close() }
    public var storageName: String { database.settings.schema }
    public func storageBytes() async throws -> Int { try await database.schemaBytes() }

    public func head() async throws -> UInt64 {
        let logger = database.logger
        return try await database.read { connection in try await Self.head(connection, logger) }
    }

    public func append(_ entries: [EventLogEntry]) async throws -> [EventLogOutcome] {
        let logger = database.logger
        return try await database.transaction { connection in
            try await connection.query("LOCK TABLE event IN EXCLUSIVE MODE", logger: logger)
            var numbering = EventNumbering(head: try await Self.head(connection, logger))
            var outcomes: [EventLogOutcome] = []
            outcomes.reserveCapacity(entries.count)
            for entry in entries {
                let earlier =
                    numbering.earlierInBatch(entry) == nil
                    ? try await Self.find(entry.gameId, entry.playerId, entry.requestId, connection, logger) : nil
                let (outcome, sequence) = try numbering.admit(entry, earlier: earlier)
                if let sequence, case .logged(let acknowledgement, let event) = outcome {
                    try await connection.query(
                        """
                        INSERT INTO event (seq, game_id, player_id, request_id, fingerprint, event_id, topic, accepted_at, envelope)
                        VALUES (\(Int64(sequence)), \(entry.gameId), \(entry.playerId), \(entry.requestId), \(entry.fingerprint),
                            \(acknowledgement.eventId), \(event.topic), \(acknowledgement.acceptedAt), \(event.body))
                        """, logger: logger)
                }
                outcomes.append(outcome)
            }
            return outcomes
        }
    }

    public func acknowledgement(gameId: String, playerId: String, requestId: String) async throws
        -> EventAcknowledgement?
    {
        let logger = database.logger
        return try await database.read { connection in
            try await Self.find(gameId, playerId, requestId, connection, logger)?.acknowledgement
        }
    }

    public func page(after: UInt64, limit: Int) async throws -> StreamPage {
        let logger = database.logger
        return try await database.read { connection in
            var messages: [StreamMessage] = []
            let rows = try await connection.query(
                "SELECT topic, envelope FROM event WHERE seq > \(Int64(clamping: after)) ORDER BY seq LIMIT \(limit)",
                logger: logger)
            for try await (topic, body) in rows.decode((String, Data).self) {
                messages.append(
                    StreamMessage(topic: topic, envelope: try WireCodec.decode(RawEnvelope.self, from: body)))
            }
            let bounds = try await Self.bounds(agedBefore: .min, connection, logger)
            return StreamPage(messages: messages, head: bounds.head, first: bounds.first > 1 ? bounds.first : nil)
        }
    }

    private static func head(_ connection: PostgresConnection, _ logger: Logger) async throws -> UInt64 {
        for try await head in try await connection.query(
            "SELECT COALESCE(MAX(seq), 0)::bigint FROM event", logger: logger
        )
        .decode(Int64.self) {
            return UInt64(max(0, head))
        }
        return 0
    }

    private static func find(
        _ gameId: String, _ playerId: String, _ requestId: String, _ connection: PostgresConnection, _ logger: Logger
    ) async throws -> EventNumbering.Earlier? {
        let rows = try await connection.query(
            """
            SELECT seq, fingerprint, event_id, topic, accepted_at FROM event
            WHERE game_id = \(gameId) AND player_id = \(playerId) AND request_id = \(requestId)
            """, logger: logger)
        for try await (seq, fingerprint, eventId, topic, acceptedAt) in rows.decode(
            (Int64, String, String, String, Int64).self)
        {
            return (
                fingerprint,
                EventAcknowledgement(
                    eventId: eventId, topic: topic, publisher: StreamName.events, sequence: UInt64(seq),
                    acceptedAt: acceptedAt)
            )
        }
        return nil
    }
}

/// The audit log in PostgreSQL (table `audit` in the gateway's schema).
public final class PostgresAuditStore: AuditStore, StorageSize {
    let database: PostgresStorage
    public var location: String { database.settings.location }
    public var files: [String] { [] }

    static let migrations = [
        PostgresMigration(
            "v1-audit",
            [
                """
                CREATE TABLE audit (seq bigserial PRIMARY KEY, at bigint NOT NULL, actor text NOT NULL, transport text NOT NULL,
                    peer text, type text NOT NULL, game_id text, player_id text, payload bytea NOT NULL, request_id text,
                    outcome text NOT NULL)
                """,
                "CREATE INDEX audit_type ON audit (type, seq)",
                "CREATE INDEX audit_player ON audit (player_id, seq)",
            ])
    ]

    public init(database: PostgresStorage) { self.database = database }

    public func close() async { database.close() }
    public var storageName: String { database.settings.schema }
    public func storageBytes() async throws -> Int { try await database.schemaBytes() }

    public func append(_ entry: AuditEntry) async throws -> Int64 {
        let payload = try WireCodec.encode(entry.payload)
        let logger = database.logger
        return try await database.transaction { connection in
            let rows = try await connection.query(
                """
                INSERT INTO audit (at, actor, transport, peer, type, game_id, player_id, payload, request_id, outcome)
                VALUES (\(entry.at), \(entry.actor), \(entry.transport), \(entry.peer), \(entry.type), \(entry.gameId),
                    \(entry.playerId), \(payload), \(entry.requestId), \(entry.outcome))
                RETURNING seq
                """, logger: logger)
            for try await seq in rows.decode(Int64.self) { return seq }
            return 0
        }
    }

    public func entries(before: Int64, type: String?, playerId: String?, limit: Int) async throws -> [AuditEntry] {
        let logger = database.logger
        return try await database.read { connection in
            let rows = try await connection.query(
                """
                SELECT seq, at, actor, transport, peer, type, game_id, player_id, payload, request_id, outcome FROM audit
                WHERE seq < \(before) AND (\(type)::text IS NULL OR type = \(type)) AND (\(playerId)::text IS NULL OR player_id = \(playerId))
                ORDER BY seq DESC LIMIT \(limit)
                """, logger: logger)
            var entries: [AuditEntry] = []
            for try await row in rows {
                let (seq, at, actor, transport, peer, type, gameId, playerId, payload, requestId, outcome) =
                    try row.decode(
                        (Int64, Int64, String, String, String?, String, String?, String?, Data, String?, String).self)
                entries.append(
                    AuditEntry(
                        seq: seq, at: at, actor: actor, transport: transport, peer: peer, type: type, gameId: gameId,
                        playerId: playerId, payload: try WireCodec.decode(JSONValue.self, from: payload),
                        requestId: requestId,
                        outcome: outcome))
            }
            return entries
        }
    }
}

extension GatewayStorage {
    /// The gateway's tables in PostgreSQL (`PODIUM_DATABASE_URL`), in its schema.
    public static func postgres(_ database: DatabaseSettings, logger: Logger) async throws -> GatewayStorage {
        let opened = try await PostgresStorage.open(
            database, migrations: PostgresEventLogStore.migrations + PostgresAuditStore.migrations, logger: logger)
        return GatewayStorage(
            eventLog: PostgresEventLogStore(database: opened), audit: PostgresAuditStore(database: opened),
            runner: opened)
    }
}
