import Foundation
import GRDB
import PodiumMessages

/// A service's transactional outbox: messages for other services are written in the same
/// transaction as the change that caused them, numbered by the outbox, then relayed to the bus
/// (``OutboxRelay``) and readable again by anyone who missed them (`<service>.outbox.read`).
public enum Outbox {
    /// Appends a message inside the caller's transaction. The stream's publisher id and the
    /// message's sequence (its row number) are stamped when it is read.
    public static func append<Payload: Encodable & Sendable>(_ db: Database, _ envelope: Envelope<Payload>, on topic: Topic) throws {
        try db.cachedStatement(
            sql: "INSERT INTO podium_outbox (topic, envelope) VALUES (?, ?)").execute(arguments: [topic.rawValue, try WireCodec.encode(envelope)])
    }

    /// Messages after a sequence, stamped as the stream's, and the outbox's last sequence.
    public static func read(_ db: Database, stream: String, after: UInt64, limit: Int) throws -> StreamPage {
        let rows = try Row.fetchAll(
            try db.cachedStatement(sql: "SELECT seq, topic, envelope FROM podium_outbox WHERE seq > ? ORDER BY seq LIMIT ?"),
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
        return StreamPage(messages: messages, head: try head(db))
    }

    /// The outbox's last sequence (0 when empty).
    public static func head(_ db: Database) throws -> UInt64 {
        UInt64(try Int64.fetchOne(try db.cachedStatement(sql: "SELECT IFNULL(MAX(seq), 0) FROM podium_outbox")) ?? 0)
    }
}

/// Where a consumer stands in each durable stream it follows.
public enum StreamPositions {
    /// The last sequence applied from a stream (0 when none).
    public static func get(_ db: Database, stream: String) throws -> UInt64 {
        UInt64(try Int64.fetchOne(try db.cachedStatement(sql: "SELECT sequence FROM podium_position WHERE stream = ?"), arguments: [stream]) ?? 0)
    }

    /// Records, inside the caller's transaction, that the stream is applied up to `sequence`.
    public static func advance(_ db: Database, stream: String, to sequence: UInt64) throws {
        try db.cachedStatement(sql: """
                INSERT INTO podium_position (stream, sequence) VALUES (?, ?)
                ON CONFLICT(stream) DO UPDATE SET sequence = excluded.sequence WHERE excluded.sequence > sequence
                """).execute(arguments: [stream, Int64(clamping: sequence)])
    }
}
