import Foundation
import Gateway
import Logging
import NIOCore
import PodiumMessages
import PodiumPostgres
import PodiumRuntime
import PostgresNIO

/// The event log in PostgreSQL (table `event` in the gateway's schema).
///
/// Gap-free under concurrent writers (several gateways): a batch's transaction takes the table's
/// lock (readers still read) just before its one insert, which numbers after the committed head,
/// and holds it through the commit, so sequences follow commit order and a rolled-back batch
/// leaves no hole. Everything else (the look-up of resent request ids, encoding) happens before
/// the lock: the lock covers one statement and the commit.
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

    /// A batch in one insert, numbered under the table's lock for the shortest time: what the
    /// log holds for the batch's request ids is read (one statement) and the batch decided and
    /// encoded (``EventBatch``) before the lock; under it, one `INSERT … SELECT` numbers the new
    /// rows after the committed head, and the commit follows. Another gateway that logged one of
    /// the same request ids in between makes the insert skip that row (`ON CONFLICT DO NOTHING`);
    /// the transaction is then rolled back (no number is used) and the batch decided again.
    public func append(_ entries: [EventLogEntry]) async throws -> [EventLogOutcome] {
        let logger = database.logger
        var attempt = 0
        while true {
            attempt += 1
            do {
                let (batch, head) = try await database.transaction { connection in
                    let batch = try EventBatch(entries, earlier: try await Self.earlier(entries, connection, logger))
                    return (batch, try await Self.insert(batch.rows, connection, logger))
                }
                return try batch.outcomes(after: head)
            } catch is LoggedMeanwhile where attempt < 5 {
                continue
            }
        }
    }

    /// A request id of the batch logged by another gateway between the look-up and the lock.
    private struct LoggedMeanwhile: Error {}

    /// What the log holds for each entry's request id, by the entry's position, in one statement.
    private static func earlier(_ entries: [EventLogEntry], _ connection: PostgresConnection, _ logger: Logger)
        async throws -> [Int: EventNumbering.Earlier]
    {
        guard !entries.isEmpty else { return [:] }
        let games = entries.map(\.gameId)
        let players = entries.map(\.playerId)
        let requests = entries.map(\.requestId)
        let rows = try await connection.query(
            """
            SELECT k.ord::bigint, e.seq, e.fingerprint, e.event_id, e.topic, e.accepted_at
            FROM unnest(\(games)::text[], \(players)::text[], \(requests)::text[]) WITH ORDINALITY AS k(game_id, player_id, request_id, ord)
            CROSS JOIN LATERAL (SELECT seq, fingerprint, event_id, topic, accepted_at FROM event
                WHERE game_id = k.game_id AND player_id = k.player_id AND request_id = k.request_id) e
            """, logger: logger)
        var found: [Int: EventNumbering.Earlier] = [:]
        for try await (ordinal, seq, fingerprint, eventId, topic, acceptedAt) in rows.decode(
            (Int64, Int64, String, String, String, Int64).self)
        {
            found[Int(ordinal) - 1] = (
                fingerprint,
                EventAcknowledgement(
                    eventId: eventId, topic: topic, publisher: StreamName.events, sequence: UInt64(seq),
                    acceptedAt: acceptedAt)
            )
        }
        return found
    }

    /// Takes the table's lock and inserts the rows numbered after the committed head, in one
    /// statement (it reads the head after the lock: a statement sees every commit before it).
    /// Returns that head; throws ``LoggedMeanwhile`` if a row's request id was logged meanwhile.
    private static func insert(_ rows: [EventBatch.Row], _ connection: PostgresConnection, _ logger: Logger)
        async throws -> UInt64
    {
        guard !rows.isEmpty else { return 0 }
        try await connection.query("LOCK TABLE event IN EXCLUSIVE MODE", logger: logger)
        let games = rows.map(\.entry.gameId)
        let players = rows.map(\.entry.playerId)
        let requests = rows.map(\.entry.requestId)
        let fingerprints = rows.map(\.entry.fingerprint)
        let eventIds = rows.map(\.entry.envelope.id)
        let topics = rows.map(\.entry.topic.rawValue)
        let times = rows.map(\.entry.envelope.timestamp)
        let bodies = rows.map { ByteBuffer(bytes: $0.body) }
        var head: Int64 = 0
        var inserted = 0
        for try await base in try await connection.query(
            """
            WITH head AS (SELECT COALESCE(MAX(seq), 0)::bigint AS seq FROM event)
            INSERT INTO event (seq, game_id, player_id, request_id, fingerprint, event_id, topic, accepted_at, envelope)
            SELECT head.seq + u.ord, u.g, u.p, u.r, u.f, u.e, u.t, u.a, u.b
            FROM head, unnest(\(games)::text[], \(players)::text[], \(requests)::text[], \(fingerprints)::text[],
                \(eventIds)::text[], \(topics)::text[], \(times)::bigint[], \(bodies)::bytea[])
                WITH ORDINALITY AS u(g, p, r, f, e, t, a, b, ord)
            ON CONFLICT (game_id, player_id, request_id) DO NOTHING
            RETURNING (SELECT seq FROM head)
            """, logger: logger
        ).decode(Int64.self) {
            inserted += 1
            head = base
        }
        guard inserted == rows.count else { throw LoggedMeanwhile() }
        return UInt64(max(0, head))
    }

    public func acknowledgement(gameId: String, playerId: String, requestId: String) async throws
        -> EventAcknowledgement?
    {
        let logger = database.logger
        return try await database.read { connection in
            try await Self.find(gameId, playerId, requestId, connection, logger)?.acknowledgement
        }
    }

    public func events(ofPlayer playerId: String, limit: Int) async throws -> [StreamMessage] {
        let logger = database.logger
        return try await database.read { connection in
            var messages: [StreamMessage] = []
            for try await (seq, topic, body) in try await connection.query(
                "SELECT seq, topic, envelope FROM event WHERE player_id = \(playerId) ORDER BY seq DESC LIMIT \(limit)",
                logger: logger
            ).decode((Int64, String, Data).self) {
                var envelope = try WireCodec.decode(RawEnvelope.self, from: body)
                envelope.publisher = StreamName.events
                envelope.sequence = UInt64(seq)
                messages.append(StreamMessage(topic: topic, envelope: envelope))
            }
            return messages
        }
    }

    public func pseudonymise(playerId: String, as pseudonym: String) async throws -> Int {
        let logger = database.logger
        // Found with a read (the log has no index by player: a scan, which does not hold up
        // appends), rewritten in batches by sequence.
        let rows = try await database.read { connection in
            var found: [(Int64, Data)] = []
            for try await row in try await connection.query(
                "SELECT seq, envelope FROM event WHERE player_id = \(playerId)", logger: logger
            ).decode((Int64, Data).self) {
                found.append(row)
            }
            return found
        }
        for start in stride(from: 0, to: rows.count, by: 500) {
            let batch = Array(rows[start..<min(start + 500, rows.count)])
            try await database.transaction { connection in
                for (seq, envelope) in batch {
                    let rewritten = Pseudonyms.replacing(playerId, with: pseudonym, in: envelope)
                    try await connection.query(
                        "UPDATE event SET player_id = \(pseudonym), envelope = \(rewritten) WHERE seq = \(seq)",
                        logger: logger)
                }
            }
        }
        return rows.count
    }

    public func page(after: UInt64, limit: Int) async throws -> StreamPage {
        let logger = database.logger
        return try await database.read { connection in
            var messages: [StreamMessage] = []
            let rows = try await connection.query(
                "SELECT seq, topic, envelope FROM event WHERE seq > \(Int64(clamping: after)) ORDER BY seq LIMIT \(limit)",
                logger: logger)
            for try await (seq, topic, body) in rows.decode((Int64, String, Data).self) {
                // Rows are stored without their sequence (``EventBatch``): the row's number is it.
                var envelope = try WireCodec.decode(RawEnvelope.self, from: body)
                envelope.publisher = StreamName.events
                envelope.sequence = UInt64(seq)
                messages.append(StreamMessage(topic: topic, envelope: envelope))
            }
            let (first, head) = try await PostgresDurable.ends(of: "event", on: connection, logger: logger)
            return StreamPage(messages: messages, head: head, first: first > 1 ? first : nil)
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
            ]),
        PostgresMigration(
            "v2-operators",
            [
                // Operator accounts (docs/SECURITY.md 3.10), shared by every gateway.
                """
                CREATE TABLE operator (name text PRIMARY KEY, password_hash text NOT NULL, role text NOT NULL,
                    totp_secret text, pending_totp_secret text, last_totp_step bigint, created_at bigint NOT NULL,
                    last_login_at bigint)
                """
            ]),
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

extension PostgresAuditStore {
    public func pseudonymise(playerId: String, as pseudonym: String) async throws -> Int {
        let logger = database.logger
        let pattern = Data(playerId.utf8)
        return try await database.transaction { connection in
            var rows: [(Int64, String, String?, Data)] = []
            for try await row in try await connection.query(
                """
                SELECT seq, actor, player_id, payload FROM audit
                WHERE player_id = \(playerId) OR position(\(playerId) IN actor) > 0 OR position(\(pattern) IN payload) > 0
                FOR UPDATE
                """, logger: logger
            ).decode((Int64, String, String?, Data).self) {
                rows.append(row)
            }
            for (seq, actor, player, payload) in rows {
                let newActor = Pseudonyms.replacing(playerId, with: pseudonym, in: actor)
                let newPlayer = player.map { Pseudonyms.replacing(playerId, with: pseudonym, in: $0) }
                let newPayload = Pseudonyms.replacing(playerId, with: pseudonym, in: payload)
                try await connection.query(
                    """
                    UPDATE audit SET actor = \(newActor), player_id = \(newPlayer), payload = \(newPayload) WHERE seq = \(seq)
                    """, logger: logger)
            }
            return rows.count
        }
    }
}

extension PostgresAuditStore: OperatorStore {
    private typealias OperatorRow = (String, String, String, String?, String?, Int64?, Int64, Int64?)
    private static let operatorColumns =
        "name, password_hash, role, totp_secret, pending_totp_secret, last_totp_step, created_at, last_login_at"

    private static func operatorRecord(_ row: OperatorRow) -> OperatorRecord? {
        guard let role = OperatorRole(rawValue: row.2) else { return nil }
        return OperatorRecord(
            name: row.0, passwordHash: row.1, role: role, totpSecret: row.3, pendingTOTPSecret: row.4,
            lastTOTPStep: row.5, createdAt: row.6, lastLoginAt: row.7)
    }

    public func insert(_ record: OperatorRecord) async throws -> Bool {
        let logger = database.logger
        return try await database.transaction { connection in
            var inserted = false
            for try await _ in try await connection.query(
                """
                INSERT INTO operator (name, password_hash, role, totp_secret, pending_totp_secret, last_totp_step,
                    created_at, last_login_at)
                VALUES (\(record.name), \(record.passwordHash), \(record.role.rawValue), \(record.totpSecret),
                    \(record.pendingTOTPSecret), \(record.lastTOTPStep), \(record.createdAt), \(record.lastLoginAt))
                ON CONFLICT DO NOTHING RETURNING name
                """, logger: logger
            ).decode(String.self) {
                inserted = true
            }
            return inserted
        }
    }

    public func record(named name: String) async throws -> OperatorRecord? {
        try await records(where: name).first
    }

    public func records() async throws -> [OperatorRecord] {
        try await records(where: nil)
    }

    private func records(where name: String?) async throws -> [OperatorRecord] {
        let logger = database.logger
        return try await database.read { connection in
            let query: PostgresQuery =
                "SELECT \(unescaped: Self.operatorColumns) FROM operator WHERE (\(name)::text IS NULL OR name = \(name)) ORDER BY name"
            var found: [OperatorRecord] = []
            for try await row in try await connection.query(query, logger: logger).decode(OperatorRow.self) {
                if let record = Self.operatorRecord(row) { found.append(record) }
            }
            return found
        }
    }

    public func update(_ record: OperatorRecord) async throws -> Bool {
        let logger = database.logger
        return try await database.transaction { connection in
            var updated = false
            for try await _ in try await connection.query(
                """
                UPDATE operator SET password_hash = \(record.passwordHash), role = \(record.role.rawValue),
                    totp_secret = \(record.totpSecret), pending_totp_secret = \(record.pendingTOTPSecret),
                    last_totp_step = \(record.lastTOTPStep), last_login_at = \(record.lastLoginAt)
                WHERE name = \(record.name) RETURNING name
                """, logger: logger
            ).decode(String.self) {
                updated = true
            }
            return updated
        }
    }

    public func claimTOTPStep(name: String, step: Int64, at time: Int64) async throws -> Bool {
        let logger = database.logger
        return try await database.transaction { connection in
            var claimed = false
            for try await _ in try await connection.query(
                """
                UPDATE operator SET last_totp_step = \(step), last_login_at = \(time)
                WHERE name = \(name) AND (last_totp_step IS NULL OR last_totp_step < \(step)) RETURNING name
                """, logger: logger
            ).decode(String.self) {
                claimed = true
            }
            return claimed
        }
    }

    public func remove(named name: String) async throws -> Bool {
        let logger = database.logger
        return try await database.transaction { connection in
            var removed = false
            for try await _ in try await connection.query(
                "DELETE FROM operator WHERE name = \(name) RETURNING name", logger: logger
            ).decode(String.self) {
                removed = true
            }
            return removed
        }
    }
}

extension GatewayStorage {
    /// The gateway's tables in PostgreSQL (`PODIUM_DATABASE_URL`), in its schema.
    public static func postgres(_ database: DatabaseSettings, logger: Logger) async throws -> GatewayStorage {
        let opened = try await PostgresStorage.open(
            database,
            migrations: PostgresEventLogStore.migrations + PostgresAuditStore.migrations + PostgresRateUsage.migrations,
            logger: logger)
        var storage = GatewayStorage(
            eventLog: PostgresEventLogStore(database: opened), audit: PostgresAuditStore(database: opened),
            runner: opened)
        storage.rateUsage = PostgresRateUsage(database: opened)
        return storage
    }
}
