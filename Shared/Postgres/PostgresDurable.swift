import Foundation
import Logging
import NIOCore
import PodiumMessages
import PodiumRuntime
import PostgresNIO

/// The durable tables in PostgreSQL: receipts, outbox and stream positions, written inside the
/// caller's transaction.
///
/// The outbox's sequence has no gaps and follows commit order: each transaction that appends
/// takes the table's lock (readers still read) and numbers after the highest number committed.
public enum PostgresDurable {
    static let migrations = [
        PostgresMigration(
            "podium-durable-v1",
            [
                "CREATE TABLE podium_outbox (seq bigint PRIMARY KEY, topic text NOT NULL, envelope bytea NOT NULL)",
                "CREATE TABLE podium_position (stream text PRIMARY KEY, sequence bigint NOT NULL)",
                """
                CREATE TABLE podium_receipt (scope text NOT NULL, request_id text NOT NULL, request_type text, fingerprint text NOT NULL,
                    reply text NOT NULL, created_at bigint NOT NULL, PRIMARY KEY (scope, request_id))
                """,
            ]),
        PostgresMigration(
            "podium-durable-v2-retention",
            [
                // Rows written before this version count as written at time 0: the oldest.
                "ALTER TABLE podium_outbox ADD COLUMN created_at bigint NOT NULL DEFAULT 0",
                "CREATE INDEX podium_outbox_created_at ON podium_outbox (created_at)",
                "CREATE INDEX podium_receipt_created_at ON podium_receipt (created_at)",
            ]),
        PostgresMigration(
            "podium-durable-v3-erased-players",
            [
                // Players whose accounts were deleted (docs/PROTOCOL.md 8.14).
                "CREATE TABLE podium_erased_player (player_id text PRIMARY KEY, erased_at bigint NOT NULL)"
            ]),
    ]

    /// The durable tables' part of erasing a deleted player (docs/PROTOCOL.md 8.14), inside the
    /// caller's transaction: the player's request receipts go, the outbox messages that name them
    /// name the pseudonym instead, and the player is recorded as erased.
    public static func erase(_ erasure: AccountErasure, on connection: PostgresConnection, logger: Logger) async throws
    {
        let playerId = erasure.playerId
        let suffix = "%/" + playerId
        try await connection.query(
            "DELETE FROM podium_receipt WHERE scope = \(playerId) OR scope LIKE \(suffix)", logger: logger)
        try await pseudonymiseOutbox(erasure, on: connection, logger: logger)
        try await connection.query(
            """
            INSERT INTO podium_erased_player (player_id, erased_at) VALUES (\(playerId), \(erasure.deletedAt))
            ON CONFLICT DO NOTHING
            """, logger: logger)
    }

    /// Rewrites the outbox messages that name a deleted player with the deletion's pseudonym.
    public static func pseudonymiseOutbox(_ erasure: AccountErasure, on connection: PostgresConnection, logger: Logger)
        async throws
    {
        let pattern = Data(erasure.playerId.utf8)
        try await connection.query(
            """
            UPDATE podium_outbox
            SET envelope = convert_to(replace(convert_from(envelope, 'UTF8'), \(erasure.playerId), \(erasure.pseudonym)), 'UTF8')
            WHERE position(\(pattern) IN envelope) > 0
            """, logger: logger)
    }

    /// Every erased player.
    public static func erasedPlayers(on connection: PostgresConnection, logger: Logger) async throws -> [String] {
        var players: [String] = []
        for try await player in try await connection.query(
            "SELECT player_id FROM podium_erased_player", logger: logger
        ).decode(String.self) {
            players.append(player)
        }
        return players
    }

    /// Writes a unit's receipts, outbox messages and stream positions inside the caller's
    /// transaction: one statement each, whatever the unit's size (arrays bound once and expanded
    /// with `unnest`), so a batch of any size costs the same few round trips.
    public static func commit(_ writes: DurableWrites, on connection: PostgresConnection, logger: Logger) async throws {
        try await recordAll(writes.receipts, on: connection, logger: logger)
        try await appendToOutbox(writes.outbox, on: connection, logger: logger)
        try await advanceAll(writes.positions, on: connection, logger: logger)
    }

    /// The outbox messages, numbered after the highest committed: the table's lock (readers still
    /// read) is taken just before the one insert and held until the commit, so numbers follow
    /// commit order without gaps. The insert reads the head after the lock (a statement of its
    /// own sees every commit before it).
    static func appendToOutbox(
        _ messages: [DurableWrites.OutboxMessage], on connection: PostgresConnection, logger: Logger
    ) async throws {
        guard !messages.isEmpty else { return }
        try await connection.query("LOCK TABLE podium_outbox IN EXCLUSIVE MODE", logger: logger)
        let topics = messages.map(\.topic)
        let envelopes = messages.map { ByteBuffer(bytes: $0.envelope) }
        let times = messages.map(\.time)
        try await connection.query(
            """
            INSERT INTO podium_outbox (seq, topic, envelope, created_at)
            SELECT (SELECT COALESCE(MAX(seq), 0) FROM podium_outbox) + m.ord, m.topic, m.envelope, m.created_at
            FROM unnest(\(topics)::text[], \(envelopes)::bytea[], \(times)::bigint[]) WITH ORDINALITY
                AS m(topic, envelope, created_at, ord)
            """, logger: logger)
    }

    /// The receipts of a batch, looked up in one statement: the stored fingerprint and reply of
    /// each key that has one, by the key's index in `keys`. `LATERAL` makes it a primary-key
    /// look-up per key (a join on the unnested arrays may be planned as a scan of the table).
    public static func storedReceipts(_ keys: [RequestKey], on connection: PostgresConnection, logger: Logger)
        async throws -> [Int: (fingerprint: String, reply: JSONValue)]
    {
        guard !keys.isEmpty else { return [:] }
        let scopes = keys.map(\.scope)
        let ids = keys.map(\.requestId)
        let rows = try await connection.query(
            """
            SELECT k.ord::bigint, r.fingerprint, r.reply
            FROM unnest(\(scopes)::text[], \(ids)::text[]) WITH ORDINALITY AS k(scope, request_id, ord)
            CROSS JOIN LATERAL (SELECT fingerprint, reply FROM podium_receipt
                WHERE scope = k.scope AND request_id = k.request_id) r
            """, logger: logger)
        var found: [Int: (fingerprint: String, reply: JSONValue)] = [:]
        for try await (ordinal, fingerprint, reply) in rows.decode((Int64, String, String).self) {
            found[Int(ordinal) - 1] = (fingerprint, try WireCodec.decode(JSONValue.self, from: Data(reply.utf8)))
        }
        return found
    }

    /// The stored answer for a resend, nil for a new id; throws `id_reused` for another payload.
    public static func replay(_ key: RequestKey, on connection: PostgresConnection, logger: Logger) async throws
        -> JSONValue?
    {
        guard let stored = try await storedReceipts([key], on: connection, logger: logger)[0] else { return nil }
        return try RequestReceipts.replay(key, storedFingerprint: stored.fingerprint, storedReply: stored.reply)
    }

    public static func record(
        _ key: RequestKey, reply: JSONValue, at time: Int64, on connection: PostgresConnection, logger: Logger
    ) async throws {
        var writes = DurableWrites()
        writes.recordReceipt(key, reply: reply, at: time)
        try await recordAll(writes.receipts, on: connection, logger: logger)
    }

    /// Receipts in one statement.
    static func recordAll(_ receipts: [DurableWrites.Receipt], on connection: PostgresConnection, logger: Logger)
        async throws
    {
        guard !receipts.isEmpty else { return }
        let scopes = receipts.map(\.key.scope)
        let ids = receipts.map(\.key.requestId)
        let types = receipts.map(\.key.requestType)
        let fingerprints = receipts.map(\.key.fingerprint)
        let replies = try receipts.map { String(decoding: try WireCodec.encode($0.reply), as: UTF8.self) }
        let times = receipts.map(\.time)
        try await connection.query(
            """
            INSERT INTO podium_receipt (scope, request_id, request_type, fingerprint, reply, created_at)
            SELECT * FROM unnest(\(scopes)::text[], \(ids)::text[], \(types)::text[], \(fingerprints)::text[],
                \(replies)::text[], \(times)::bigint[])
            """, logger: logger)
    }

    public static func position(_ stream: String, on connection: PostgresConnection, logger: Logger) async throws
        -> UInt64
    {
        for try await sequence in try await connection.query(
            "SELECT sequence FROM podium_position WHERE stream = \(stream)", logger: logger
        ).decode(Int64.self) {
            return UInt64(max(0, sequence))
        }
        return 0
    }

    public static func advance(_ stream: String, to sequence: UInt64, on connection: PostgresConnection, logger: Logger)
        async throws
    {
        try await advanceAll([stream: sequence], on: connection, logger: logger)
    }

    /// Stream positions in one statement; a position never moves back.
    static func advanceAll(_ positions: [String: UInt64], on connection: PostgresConnection, logger: Logger)
        async throws
    {
        guard !positions.isEmpty else { return }
        let streams = Array(positions.keys).sorted()
        let sequences = streams.map { Int64(clamping: positions[$0] ?? 0) }
        try await connection.query(
            """
            INSERT INTO podium_position (stream, sequence) SELECT * FROM unnest(\(streams)::text[], \(sequences)::bigint[])
            ON CONFLICT (stream) DO UPDATE SET sequence = excluded.sequence WHERE excluded.sequence > podium_position.sequence
            """, logger: logger)
    }

    /// The outbox's oldest and newest sequences and the newest written before `agedBefore`.
    static func outboxBounds(agedBefore: Int64, on connection: PostgresConnection, logger: Logger) async throws
        -> StreamBounds
    {
        try await streamBounds(
            table: "podium_outbox", timeColumn: "created_at", agedBefore: agedBefore, on: connection, logger: logger)
    }

    /// A stream table's bounds (`seq` numbered, written at `timeColumn`): `table` and
    /// `timeColumn` are the caller's constants, never input.
    public static func streamBounds(
        table: StaticString, timeColumn: StaticString, agedBefore: Int64, on connection: PostgresConnection,
        logger: Logger
    ) async throws -> StreamBounds {
        var binds = PostgresBindings()
        binds.append(agedBefore)
        let rows = try await connection.query(
            PostgresQuery(
                unsafeSQL: """
                    SELECT COALESCE(MIN(seq), 0)::bigint, COALESCE(MAX(seq), 0)::bigint,
                        COALESCE((SELECT MAX(seq) FROM \(table) WHERE \(timeColumn) < $1), 0)::bigint
                    FROM \(table)
                    """, binds: binds), logger: logger)
        for try await (first, head, aged) in rows.decode((Int64, Int64, Int64).self) {
            return StreamBounds(
                first: UInt64(max(0, first)), head: UInt64(max(0, head)), agedThrough: UInt64(max(0, aged)))
        }
        return StreamBounds(first: 0, head: 0, agedThrough: 0)
    }

    /// A stream table's first and last sequences (0 when empty): two ends of its primary key.
    /// `table` is the caller's constant, never input.
    public static func ends(of table: StaticString, on connection: PostgresConnection, logger: Logger) async throws
        -> (first: UInt64, head: UInt64)
    {
        let rows = try await connection.query(
            PostgresQuery(
                unsafeSQL: """
                    SELECT COALESCE((SELECT seq FROM \(table) ORDER BY seq LIMIT 1), 0)::bigint,
                        COALESCE((SELECT seq FROM \(table) ORDER BY seq DESC LIMIT 1), 0)::bigint
                    """), logger: logger)
        for try await (first, head) in rows.decode((Int64, Int64).self) {
            return (UInt64(max(0, first)), UInt64(max(0, head)))
        }
        return (0, 0)
    }

    /// Runs a `DELETE … RETURNING 1` and counts the rows it deleted.
    public static func deletedCount(_ query: PostgresQuery, on connection: PostgresConnection, logger: Logger)
        async throws -> Int
    {
        var count = 0
        for try await _ in try await connection.query(query, logger: logger).decode(Int.self) { count += 1 }
        return count
    }

    static func outboxHead(on connection: PostgresConnection, logger: Logger) async throws -> UInt64 {
        for try await head in try await connection.query(
            "SELECT COALESCE(MAX(seq), 0)::bigint FROM podium_outbox", logger: logger
        )
        .decode(Int64.self) {
            return UInt64(max(0, head))
        }
        return 0
    }
}

/// A service database's receipts and outbox, read for the runtime.
public struct PostgresDurableReader: DurableTablesAccess {
    let database: PostgresStorage

    public init(_ database: PostgresStorage) { self.database = database }

    public func storedReply(scope: String, requestId: String) async throws -> StoredReply {
        let logger = database.logger
        return try await database.read { connection in
            let rows = try await connection.query(
                "SELECT request_type, reply FROM podium_receipt WHERE scope = \(scope) AND request_id = \(requestId)",
                logger: logger)
            for try await (type, reply) in rows.decode((String?, String).self) {
                return StoredReply(
                    found: true, type: type, reply: try WireCodec.decode(JSONValue.self, from: Data(reply.utf8)))
            }
            return StoredReply(found: false, reply: nil)
        }
    }

    public func outboxPage(stream: String, after: UInt64, limit: Int) async throws -> StreamPage {
        let logger = database.logger
        return try await database.read { connection in
            var messages: [StreamMessage] = []
            let rows = try await connection.query(
                "SELECT seq, topic, envelope FROM podium_outbox WHERE seq > \(Int64(clamping: after)) ORDER BY seq LIMIT \(limit)",
                logger: logger)
            for try await (seq, topic, body) in rows.decode((Int64, String, Data).self) {
                var envelope = try WireCodec.decode(RawEnvelope.self, from: body)
                envelope.publisher = stream
                envelope.sequence = UInt64(seq)
                messages.append(StreamMessage(topic: topic, envelope: envelope))
            }
            let (first, head) = try await PostgresDurable.ends(of: "podium_outbox", on: connection, logger: logger)
            return StreamPage(messages: messages, head: head, first: first > 1 ? first : nil)
        }
    }

    public func streamBounds(agedBefore: Int64) async throws -> StreamBounds {
        let logger = database.logger
        return try await database.read { connection in
            try await PostgresDurable.outboxBounds(agedBefore: agedBefore, on: connection, logger: logger)
        }
    }

    public func pruneStream(through: UInt64, atMost: Int) async throws -> Int {
        let logger = database.logger
        return try await database.transaction { connection in
            try await PostgresDurable.deletedCount(
                """
                DELETE FROM podium_outbox WHERE seq IN
                    (SELECT seq FROM podium_outbox WHERE seq <= \(Int64(clamping: through)) ORDER BY seq LIMIT \(atMost))
                RETURNING 1
                """, on: connection, logger: logger)
        }
    }

    public func pruneReceipts(before: Int64, atMost: Int) async throws -> Int {
        let logger = database.logger
        return try await database.transaction { connection in
            try await PostgresDurable.deletedCount(
                """
                DELETE FROM podium_receipt WHERE ctid IN
                    (SELECT ctid FROM podium_receipt WHERE created_at < \(before) LIMIT \(atMost))
                RETURNING 1
                """, on: connection, logger: logger)
        }
    }

    public func outboxHead() async throws -> UInt64 {
        let logger = database.logger
        return try await database.read { connection in
            try await PostgresDurable.outboxHead(on: connection, logger: logger)
        }
    }
}
