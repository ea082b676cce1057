import Foundation
import GRDB
import PodiumMessages
import PodiumRuntime

/// The durable tables (``DurableTables``) in SQLite: receipts, outbox and stream positions,
/// written inside the caller's transaction.
public enum SQLiteDurable {
    /// Writes a unit's receipts, outbox messages and stream positions inside the caller's
    /// transaction (the state change is the caller's). An outbox message's publisher id and
    /// sequence (its row number) are stamped when it is read.
    public static func commit(_ writes: DurableWrites, in db: Database) throws {
        for receipt in writes.receipts { try record(db, receipt.key, reply: receipt.reply, at: receipt.time) }
        for message in writes.outbox {
            try db.cachedStatement(sql: "INSERT INTO podium_outbox (topic, envelope, created_at) VALUES (?, ?, ?)")
                .execute(arguments: [message.topic, message.envelope, message.time])
        }
        for (stream, sequence) in writes.positions { try advance(db, stream: stream, to: sequence) }
    }

    // MARK: Erased players

    /// The durable tables' part of erasing a deleted player (docs/PROTOCOL.md 8.14), inside the
    /// caller's transaction: the player's request receipts go, the outbox messages that name them
    /// name the pseudonym instead, and the player is recorded as erased.
    public static func erase(_ erasure: AccountErasure, in db: Database) throws {
        try db.execute(
            sql: "DELETE FROM podium_receipt WHERE scope = ?1 OR scope LIKE '%/' || ?1",
            arguments: [erasure.playerId])
        try pseudonymiseOutbox(erasure, in: db)
        try db.execute(
            sql: "INSERT INTO podium_erased_player (player_id, erased_at) VALUES (?, ?) ON CONFLICT DO NOTHING",
            arguments: [erasure.playerId, erasure.deletedAt])
    }

    /// Rewrites the outbox messages that name a deleted player with the deletion's pseudonym.
    public static func pseudonymiseOutbox(_ erasure: AccountErasure, in db: Database) throws {
        try db.execute(
            sql: """
                UPDATE podium_outbox SET envelope = CAST(replace(CAST(envelope AS TEXT), ?1, ?2) AS BLOB)
                WHERE instr(CAST(envelope AS TEXT), ?1) > 0
                """, arguments: [erasure.playerId, erasure.pseudonym])
    }

    /// Every erased player.
    public static func erasedPlayers(_ db: Database) throws -> [String] {
        try String.fetchAll(db, sql: "SELECT player_id FROM podium_erased_player")
    }

    // MARK: Receipts

    /// The stored answer for a resend, nil for a new id; throws `id_reused` if the id came with
    /// another payload.
    public static func replay(_ db: Database, _ key: RequestKey) throws -> JSONValue? {
        guard let stored = try storedReceipt(db, key) else { return nil }
        return try RequestReceipts.replay(key, storedFingerprint: stored.fingerprint, storedReply: stored.reply)
    }

    /// The stored fingerprint and reply of a request id, nil for a new id.
    public static func storedReceipt(_ db: Database, _ key: RequestKey) throws -> (
        fingerprint: String, reply: JSONValue
    )? {
        guard
            let row = try Row.fetchOne(
                try db.cachedStatement(
                    sql: "SELECT fingerprint, reply FROM podium_receipt WHERE scope = ? AND request_id = ?"),
                arguments: [key.scope, key.requestId])
        else { return nil }
        return (row["fingerprint"], try WireCodec.decode(JSONValue.self, from: Data((row["reply"] as String).utf8)))
    }

    /// The stored answer for an id, whatever the payload (for `receipt.get`).
    public static func find(_ db: Database, scope: String, requestId: String) throws -> StoredReply {
        guard
            let row = try Row.fetchOne(
                try db.cachedStatement(
                    sql: "SELECT request_type, reply FROM podium_receipt WHERE scope = ? AND request_id = ?"),
                arguments: [scope, requestId])
        else { return StoredReply(found: false, reply: nil) }
        let reply = try WireCodec.decode(JSONValue.self, from: Data((row["reply"] as String).utf8))
        return StoredReply(found: true, type: row["request_type"], reply: reply)
    }

    /// Stores an answer inside the caller's transaction.
    public static func record(_ db: Database, _ key: RequestKey, reply: JSONValue, at time: Int64) throws {
        try db.cachedStatement(
            sql:
                "INSERT INTO podium_receipt (scope, request_id, request_type, fingerprint, reply, created_at) VALUES (?, ?, ?, ?, ?, ?)"
        ).execute(arguments: [
            key.scope, key.requestId, key.requestType, key.fingerprint,
            String(decoding: try WireCodec.encode(reply), as: UTF8.self), time,
        ])
    }

    // MARK: Outbox

    /// Messages after a sequence, stamped as the stream's, and the outbox's last sequence.
    public static func outboxPage(_ db: Database, stream: String, after: UInt64, limit: Int) throws -> StreamPage {
        let rows = try Row.fetchAll(
            try db.cachedStatement(
                sql: "SELECT seq, topic, envelope FROM podium_outbox WHERE seq > ? ORDER BY seq LIMIT ?"),
            arguments: [Int64(clamping: after), limit])
        var messages: [StreamMessage] = []
        messages.reserveCapacity(rows.count)
        for row in rows {
            let body: Data = row["envelope"]
            var envelope = try WireCodec.decode(RawEnvelope.self, from: body)
            envelope.publisher = stream
            envelope.sequence = UInt64(row["seq"] as Int64)
            messages.append(StreamMessage(topic: row["topic"], envelope: envelope))
        }
        return StreamPage(messages: messages, head: try outboxHead(db), first: try outboxFirst(db))
    }

    /// The outbox's oldest sequence when retention pruned older ones (nil when it holds 1 or is empty).
    static func outboxFirst(_ db: Database) throws -> UInt64? {
        let first = try Int64.fetchOne(try db.cachedStatement(sql: "SELECT MIN(seq) FROM podium_outbox")) ?? 0
        return first > 1 ? UInt64(first) : nil
    }

    // MARK: Retention

    /// The outbox's bounds for retention.
    public static func outboxBounds(_ db: Database, agedBefore: Int64) throws -> StreamBounds {
        let row = try Row.fetchOne(
            try db.cachedStatement(
                sql: "SELECT IFNULL(MIN(seq), 0) AS first, IFNULL(MAX(seq), 0) AS head FROM podium_outbox"))
        let aged =
            try Int64.fetchOne(
                try db.cachedStatement(sql: "SELECT IFNULL(MAX(seq), 0) FROM podium_outbox WHERE created_at < ?"),
                arguments: [agedBefore]) ?? 0
        return StreamBounds(
            first: UInt64(row?["first"] as Int64? ?? 0), head: UInt64(row?["head"] as Int64? ?? 0),
            agedThrough: UInt64(aged))
    }

    /// Deletes the oldest outbox messages through `through`, at most `atMost`.
    public static func pruneOutbox(_ db: Database, through: UInt64, atMost: Int) throws -> Int {
        try db.cachedStatement(
            sql:
                "DELETE FROM podium_outbox WHERE seq IN (SELECT seq FROM podium_outbox WHERE seq <= ? ORDER BY seq LIMIT ?)"
        ).execute(arguments: [Int64(clamping: through), atMost])
        return db.changesCount
    }

    /// Deletes receipts written before `before`, at most `atMost`.
    public static func pruneReceipts(_ db: Database, before: Int64, atMost: Int) throws -> Int {
        try db.cachedStatement(
            sql:
                "DELETE FROM podium_receipt WHERE rowid IN (SELECT rowid FROM podium_receipt WHERE created_at < ? LIMIT ?)"
        ).execute(arguments: [before, atMost])
        return db.changesCount
    }

    /// The outbox's last sequence (0 when empty).
    public static func outboxHead(_ db: Database) throws -> UInt64 {
        UInt64(try Int64.fetchOne(try db.cachedStatement(sql: "SELECT IFNULL(MAX(seq), 0) FROM podium_outbox")) ?? 0)
    }

    // MARK: Stream positions

    /// The last sequence applied from a stream (0 when none).
    public static func position(_ db: Database, stream: String) throws -> UInt64 {
        UInt64(
            try Int64.fetchOne(
                try db.cachedStatement(sql: "SELECT sequence FROM podium_position WHERE stream = ?"),
                arguments: [stream]) ?? 0)
    }

    /// Records, inside the caller's transaction, that the stream is applied up to `sequence`.
    public static func advance(_ db: Database, stream: String, to sequence: UInt64) throws {
        try db.cachedStatement(
            sql: """
                INSERT INTO podium_position (stream, sequence) VALUES (?, ?)
                ON CONFLICT(stream) DO UPDATE SET sequence = excluded.sequence WHERE excluded.sequence > sequence
                """
        ).execute(arguments: [stream, Int64(clamping: sequence)])
    }
}

/// A service database's receipts and outbox, read for the runtime (and pruned by retention,
/// given a writer).
public struct SQLiteDurableReader: ReceiptReader, OutboxReader, StreamRetention, ReceiptRetention {
    let reader: any DatabaseReader
    let writer: (any DatabaseWriter)?

    public init(_ reader: any DatabaseReader, writer: (any DatabaseWriter)? = nil) {
        self.reader = reader
        self.writer = writer ?? (reader as? any DatabaseWriter)
    }

    public func streamBounds(agedBefore: Int64) async throws -> StreamBounds {
        try await reader.read { db in try SQLiteDurable.outboxBounds(db, agedBefore: agedBefore) }
    }

    public func pruneStream(through: UInt64, atMost: Int) async throws -> Int {
        guard let writer else { return 0 }
        return try await writer.write { db in try SQLiteDurable.pruneOutbox(db, through: through, atMost: atMost) }
    }

    public func pruneReceipts(before: Int64, atMost: Int) async throws -> Int {
        guard let writer else { return 0 }
        return try await writer.write { db in try SQLiteDurable.pruneReceipts(db, before: before, atMost: atMost) }
    }

    public func storedReply(scope: String, requestId: String) async throws -> StoredReply {
        try await reader.read { db in try SQLiteDurable.find(db, scope: scope, requestId: requestId) }
    }

    public func outboxPage(stream: String, after: UInt64, limit: Int) async throws -> StreamPage {
        try await reader.read { db in try SQLiteDurable.outboxPage(db, stream: stream, after: after, limit: limit) }
    }

    public func outboxHead() async throws -> UInt64 {
        try await reader.read { db in try SQLiteDurable.outboxHead(db) }
    }
}
