import Foundation
import GRDB
import Gateway
import PodiumMessages
import PodiumRuntime
import PodiumSQLite

/// The event log in SQLite (`gateway-events.sqlite`, WAL, `synchronous=FULL`).
public final class SQLiteEventLogStore: EventLogStore {
    private let database: DatabasePool
    private let path: URL
    public var location: String { "sqlite:\(path.path)" }
    public var files: [String] { [path.path] }

    public init(path: URL) throws {
        self.path = path
        database = try DurableDatabase.open(at: path)
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1-event-log") { db in
            try db.create(table: "event") { table in
                table.primaryKey("seq", .integer)
                table.column("game_id", .text).notNull()
                table.column("player_id", .text).notNull()
                table.column("request_id", .text).notNull()
                table.column("fingerprint", .text).notNull()
                table.column("event_id", .text).notNull()
                table.column("topic", .text).notNull()
                table.column("accepted_at", .integer).notNull()
                table.column("envelope", .blob).notNull()
                table.uniqueKey(["game_id", "player_id", "request_id"])
            }
        }
        migrator.registerMigration("v2-retention") { db in
            try db.create(index: "event_accepted_at", on: "event", columns: ["accepted_at"])
        }
        try migrator.migrate(database)
    }

    public func streamBounds(agedBefore: Int64) async throws -> StreamBounds {
        try await database.read { db in
            let row = try Row.fetchOne(
                try db.cachedStatement(
                    sql: "SELECT IFNULL(MIN(seq), 0) AS first, IFNULL(MAX(seq), 0) AS head FROM event"))
            let aged =
                try Int64.fetchOne(
                    try db.cachedStatement(sql: "SELECT IFNULL(MAX(seq), 0) FROM event WHERE accepted_at < ?"),
                    arguments: [agedBefore]) ?? 0
            return StreamBounds(
                first: UInt64(row?["first"] as Int64? ?? 0), head: UInt64(row?["head"] as Int64? ?? 0),
                agedThrough: UInt64(aged))
        }
    }

    public func pruneStream(through: UInt64, atMost: Int) async throws -> Int {
        try await database.write { db in
            try db.cachedStatement(
                sql: "DELETE FROM event WHERE seq IN (SELECT seq FROM event WHERE seq <= ? ORDER BY seq LIMIT ?)"
            )
            .execute(arguments: [Int64(clamping: through), atMost])
            return db.changesCount
        }
    }

    public func head() async throws -> UInt64 {
        try await database.read { db in try Self.head(db) }
    }

    public func append(_ entries: [EventLogEntry]) async throws -> [EventLogOutcome] {
        try await database.write { db in
            var numbering = EventNumbering(head: try Self.head(db))
            let insert = try db.cachedStatement(
                sql: """
                    INSERT INTO event (seq, game_id, player_id, request_id, fingerprint, event_id, topic, accepted_at, envelope)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """)
            var outcomes: [EventLogOutcome] = []
            outcomes.reserveCapacity(entries.count)
            for entry in entries {
                let earlier =
                    try numbering.earlierInBatch(entry) == nil
                    ? Self.find(gameId: entry.gameId, playerId: entry.playerId, requestId: entry.requestId, in: db)
                    : nil
                let (outcome, sequence) = try numbering.admit(entry, earlier: earlier)
                if let sequence, case .logged(let acknowledgement, let event) = outcome {
                    try insert.execute(arguments: [
                        Int64(sequence), entry.gameId, entry.playerId, entry.requestId, entry.fingerprint,
                        acknowledgement.eventId,
                        event.topic, acknowledgement.acceptedAt, event.body,
                    ])
                }
                outcomes.append(outcome)
            }
            return outcomes
        }
    }

    public func acknowledgement(gameId: String, playerId: String, requestId: String) async throws
        -> EventAcknowledgement?
    {
        try await database.read { db in
            try Self.find(gameId: gameId, playerId: playerId, requestId: requestId, in: db)?.acknowledgement
        }
    }

    public func page(after: UInt64, limit: Int) async throws -> StreamPage {
        try await database.read { db in
            let rows = try Row.fetchAll(
                try db.cachedStatement(sql: "SELECT topic, envelope FROM event WHERE seq > ? ORDER BY seq LIMIT ?"),
                arguments: [Int64(clamping: after), limit])
            let messages = try rows.map { row in
                StreamMessage(
                    topic: row["topic"], envelope: try WireCodec.decode(RawEnvelope.self, from: row["envelope"] as Data)
                )
            }
            let first = try Int64.fetchOne(try db.cachedStatement(sql: "SELECT MIN(seq) FROM event")) ?? 0
            return StreamPage(messages: messages, head: try Self.head(db), first: first > 1 ? UInt64(first) : nil)
        }
    }

    private static func head(_ db: Database) throws -> UInt64 {
        UInt64(try Int64.fetchOne(try db.cachedStatement(sql: "SELECT IFNULL(MAX(seq), 0) FROM event")) ?? 0)
    }

    private static func find(gameId: String, playerId: String, requestId: String, in db: Database) throws
        -> EventNumbering.Earlier?
    {
        try Row.fetchOne(
            try db.cachedStatement(
                sql:
                    "SELECT seq, fingerprint, event_id, topic, accepted_at FROM event WHERE game_id = ? AND player_id = ? AND request_id = ?"
            ),
            arguments: [gameId, playerId, requestId]
        ).map { row in
            (
                row["fingerprint"],
                EventAcknowledgement(
                    eventId: row["event_id"], topic: row["topic"], publisher: StreamName.events,
                    sequence: UInt64(row["seq"] as Int64),
                    acceptedAt: row["accepted_at"])
            )
        }
    }

    public func events(ofPlayer playerId: String, limit: Int) async throws -> [StreamMessage] {
        try await database.read { db in
            try Row.fetchAll(
                db, sql: "SELECT seq, topic, envelope FROM event WHERE player_id = ? ORDER BY seq DESC LIMIT ?",
                arguments: [playerId, limit]
            ).map { row in
                var envelope = try WireCodec.decode(RawEnvelope.self, from: row["envelope"] as Data)
                envelope.publisher = StreamName.events
                envelope.sequence = UInt64(row["seq"] as Int64)
                return StreamMessage(topic: row["topic"], envelope: envelope)
            }
        }
    }

    public func pseudonymise(playerId: String, as pseudonym: String) async throws -> Int {
        // Found with a read (the log has no index by player: a scan, which does not hold up
        // appends), rewritten in batches by sequence.
        let rows = try await database.read { db in
            try Row.fetchAll(db, sql: "SELECT seq, envelope FROM event WHERE player_id = ?", arguments: [playerId])
                .map { (seq: $0["seq"] as Int64, envelope: $0["envelope"] as Data) }
        }
        for start in stride(from: 0, to: rows.count, by: 500) {
            let batch = rows[start..<min(start + 500, rows.count)]
            try await database.write { db in
                let update = try db.cachedStatement(sql: "UPDATE event SET player_id = ?, envelope = ? WHERE seq = ?")
                for row in batch {
                    try update.execute(arguments: [
                        pseudonym, Pseudonyms.replacing(playerId, with: pseudonym, in: row.envelope), row.seq,
                    ])
                }
            }
        }
        return rows.count
    }
}
