import Foundation
import Logging
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
    ]

    /// Writes a unit's receipts, outbox messages and stream positions inside the caller's transaction.
    public static func commit(_ writes: DurableWrites, on connection: PostgresConnection, logger: Logger) async throws {
        for receipt in writes.receipts {
            try await record(receipt.key, reply: receipt.reply, at: receipt.time, on: connection, logger: logger)
        }
        if !writes.outbox.isEmpty {
            try await connection.query("LOCK TABLE podium_outbox IN EXCLUSIVE MODE", logger: logger)
            var seq = try await outboxHead(on: connection, logger: logger)
            for message in writes.outbox {
                seq += 1
                try await connection.query(
                    """
                    INSERT INTO podium_outbox (seq, topic, envelope, created_at)
                    VALUES (\(Int64(seq)), \(message.topic), \(message.envelope), \(message.time))
                    """,
                    logger: logger)
            }
        }
        for (stream, sequence) in writes.positions {
            try await advance(stream, to: sequence, on: connection, logger: logger)
        }
    }

    /// The stored answer for a resend, nil for a new id; throws `id_reused` for another payload.
    public static func replay(_ key: RequestKey, on connection: PostgresConnection, logger: Logger) async throws
        -> JSONValue?
    {
        let rows = try await connection.query(
            "SELECT fingerprint, reply FROM podium_receipt WHERE scope = \(key.scope) AND request_id = \(key.requestId)",
            logger: logger)
        for try await (fingerprint, reply) in rows.decode((String, String).self) {
            return try RequestReceipts.replay(
                key, storedFingerprint: fingerprint,
                storedReply: try WireCodec.decode(JSONValue.self, from: Data(reply.utf8)))
        }
        return nil
    }

    public static func record(
        _ key: RequestKey, reply: JSONValue, at time: Int64, on connection: PostgresConnection, logger: Logger
    ) async throws {
        let text = String(decoding: try WireCodec.encode(reply), as: UTF8.self)
        try await connection.query(
            """
            INSERT INTO podium_receipt (scope, request_id, request_type, fingerprint, reply, created_at)
            VALUES (\(key.scope), \(key.requestId), \(key.requestType), \(key.fingerprint), \(text), \(time))
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
        try await connection.query(
            """
            INSERT INTO podium_position (stream, sequence) VALUES (\(stream), \(Int64(clamping: sequence)))
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
            let bounds = try await PostgresDurable.outboxBounds(agedBefore: .min, on: connection, logger: logger)
            return StreamPage(messages: messages, head: bounds.head, first: bounds.first > 1 ? bounds.first : nil)
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
