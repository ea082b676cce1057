import Logging
import PostgresNIO

extension PostgresLeaderboardStore {
    /// Loads entries in bulk, as the benchmark's preload does (never used by the service): 10,000
    /// rows per statement, as arrays unnested, in one transaction; then analyzes the table.
    public func importEntries(
        gameId: String, boardId: String, _ rows: [(playerId: String, value: Int64, submittedAt: Int64)]
    ) async throws {
        let logger = Logger(label: "podium.leaderboard.preload")
        try await database.transaction { connection in
            for start in stride(from: 0, to: rows.count, by: 10_000) {
                let chunk = rows[start..<min(start + 10_000, rows.count)]
                let players = chunk.map(\.playerId)
                let values = chunk.map(\.value)
                let times = chunk.map(\.submittedAt)
                try await connection.query(
                    """
                    INSERT INTO entry (game_id, board_id, player_id, value, submitted_at)
                    SELECT \(gameId), \(boardId), p, v, t FROM unnest(\(players)::text[], \(values)::bigint[], \(times)::bigint[]) AS u (p, v, t)
                    ON CONFLICT (game_id, board_id, player_id) DO UPDATE SET value = excluded.value, submitted_at = excluded.submitted_at
                    """, logger: logger)
            }
        }
        // Fresh statistics, or the planner takes the rank index for lookups by player (a bulk
        // load outruns autovacuum's analyze): 30 ms instead of 0.05 ms per page at 200,000 rows.
        try await database.read { connection in _ = try await connection.query("ANALYZE entry", logger: logger) }
    }
}
