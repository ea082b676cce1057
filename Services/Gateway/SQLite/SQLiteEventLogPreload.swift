import Foundation
import GRDB
import PodiumMessages
import PodiumRuntime
import PodiumSQLite

/// Writes the gateway's event log (`gateway-events.sqlite`, table `event`) directly, so that a
/// benchmark (scripts/bench's recovery measurement) can start on a million logged events without
/// sending them through the protocol first. The rows are exactly what ``SQLiteEventLogStore``
/// writes: the sequence, the idempotency key, and the `game.event` envelope as published on the
/// bus (publisher `events`). Never used by the gateway itself.
public struct SQLiteEventLogPreload {
    let database: DatabaseQueue

    public init(path: URL) throws {
        database = try DatabaseQueue(path: path.path)
    }

    /// Appends `count` events after the current head; returns the new head.
    public func append(count: Int, players: [String], game: String, name: String) throws -> UInt64 {
        let head = try database.read { db in try Int64.fetchOne(db, sql: "SELECT IFNULL(MAX(seq), 0) FROM event") ?? 0 }
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        var written = 0
        while written < count {
            let batch = min(50_000, count - written)
            try database.write { db in
                let insert = try db.makeStatement(
                    sql: """
                        INSERT INTO event (seq, game_id, player_id, request_id, fingerprint, event_id, topic, accepted_at, envelope)
                        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                        """)
                for offset in 0..<batch {
                    let sequence = head + Int64(written + offset) + 1
                    let player = players[Int(sequence) % players.count]
                    let requestId = "preload-\(sequence)"
                    let event = GameEvent(name: name, attributes: ["matchId": .string("pm-\(sequence / 200)")])
                    let envelope = Envelope(
                        type: .gameEvent, id: "preload-event-\(sequence)", correlationId: requestId, gameId: game,
                        playerId: player,
                        timestamp: now, publisher: StreamName.events, sequence: UInt64(sequence),
                        actor: Actor(kind: .player, playerId: player), payload: event)
                    try insert.execute(arguments: [
                        sequence, game, player, requestId, "preload", envelope.id,
                        Topic.gameEvent(gameId: game, name: name).rawValue,
                        now, try WireCodec.encode(envelope),
                    ])
                }
            }
            written += batch
        }
        return UInt64(head) + UInt64(count)
    }

    /// Sets a service's position in a stream it follows (`podium_position`, DurableTables).
    public static func setPosition(_ sequence: UInt64, stream: String, database path: URL) throws {
        let database = try DatabaseQueue(path: path.path)
        try database.write { db in
            try db.execute(
                sql:
                    "INSERT INTO podium_position (stream, sequence) VALUES (?, ?) ON CONFLICT(stream) DO UPDATE SET sequence = excluded.sequence",
                arguments: [stream, Int64(sequence)])
        }
    }
}
