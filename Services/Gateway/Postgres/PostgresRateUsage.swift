import Gateway
import Logging
import PodiumPostgres
import PostgresNIO

/// The players' admitted requests shared by the gateways (``SharedRateUsage``): table
/// `podium_rate_usage` in the gateway's schema, one row per player and exchange. One transaction per
/// exchange: the inserts, the other gateways' rows since the last one, and the forgetting of old
/// rows.
///
/// Rows are read by id; a row whose id was taken before another's but committed after it can be
/// missed by a reader that already passed it: a few requests of a player then go uncounted at the
/// other gateways. A rate limit tolerates that; nothing else reads this table.
struct PostgresRateUsage: SharedRateUsage {
    let database: PostgresStorage

    static let migrations = [
        PostgresMigration(
            "v3-rate-usage",
            [
                "CREATE TABLE podium_rate_usage (id bigserial PRIMARY KEY, gateway text NOT NULL, player text NOT NULL, count integer NOT NULL, at bigint NOT NULL)",
                "CREATE INDEX rate_usage_at ON podium_rate_usage (at)",
            ])
    ]

    func exchange(gateway: String, admitted: [String: Int], after: Int64?, now: Int64, forgetBefore: Int64)
        async throws -> (others: [String: Int], last: Int64)
    {
        let logger = database.logger
        let players = Array(admitted.keys)
        let counts = players.map { Int32(clamping: admitted[$0] ?? 0) }
        return try await database.transaction(fenced: false) { connection in
            if !players.isEmpty {
                try await connection.query(
                    """
                    INSERT INTO podium_rate_usage (gateway, player, count, at)
                    SELECT \(gateway), p, c, \(now) FROM unnest(\(players)::text[], \(counts)::integer[]) AS t(p, c)
                    """, logger: logger)
            }
            var others: [String: Int] = [:]
            var last = after ?? 0
            if let after {
                for try await (id, player, count) in try await connection.query(
                    "SELECT id, player, count FROM podium_rate_usage WHERE id > \(after) AND gateway <> \(gateway) ORDER BY id",
                    logger: logger
                ).decode((Int64, String, Int32).self) {
                    others[player, default: 0] += Int(count)
                    last = max(last, id)
                }
            } else {
                for try await id in try await connection.query(
                    "SELECT COALESCE(MAX(id), 0) FROM podium_rate_usage", logger: logger
                ).decode(Int64.self) {
                    last = id
                }
            }
            try await connection.query("DELETE FROM podium_rate_usage WHERE at < \(forgetBefore)", logger: logger)
            return (others, last)
        }
    }
}
