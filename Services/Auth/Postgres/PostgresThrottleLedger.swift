import Auth
import Logging
import PodiumPostgres
import PostgresNIO

/// The throttles' marks in table `podium_throttle_mark` (``ThrottleLedger``), shared by every auth
/// instance of the deployment. A check is one indexed read of the marks of one account and one
/// address; a failure is one insert (and the forgetting of expired marks) in one transaction.
struct PostgresThrottleLedger: ThrottleLedger {
    let database: PostgresStorage

    /// PostgreSQL text holds no NUL, which a malformed username may carry: it is counted under
    /// the same text with U+FFFD in its place (no real account has either). An empty name (the
    /// column's "not counted for this" value) is counted as U+FFFD too.
    static func stored(_ text: String) -> String {
        if text.isEmpty { return "\u{FFFD}" }
        return text.contains("\u{0}") ? text.replacingOccurrences(of: "\u{0}", with: "\u{FFFD}") : text
    }

    /// The columns a mark is counted under: empty where its kind does not count that column.
    static func columns(_ mark: ThrottleMark) -> (account: String, address: String) {
        switch mark.kind {
        case .loginPair, .loginKnown: (stored(mark.account), stored(mark.address))
        case .loginAccount, .invitePlayer: (stored(mark.account), "")
        case .loginAddress, .inviteAddress: ("", stored(mark.address))
        }
    }

    func marks(_ kinds: [ThrottleKind], account: String?, address: String?, since: Int64) async throws
        -> [ThrottleMark]
    {
        let logger = database.logger
        let kinds = kinds.map(\.rawValue)
        let account = account.map(Self.stored)
        let address = address.map(Self.stored)
        return try await database.read { connection in
            var found: [ThrottleMark] = []
            for try await (kind, markAccount, markAddress, at) in try await connection.query(
                """
                SELECT kind, account, address, at FROM podium_throttle_mark
                WHERE kind = ANY(\(kinds)) AND at >= \(since)
                  AND (account = '' OR \(account)::text IS NULL OR account = \(account))
                  AND (address = '' OR \(address)::text IS NULL OR address = \(address))
                ORDER BY at
                """, logger: logger
            ).decode((String, String, String, Int64).self) {
                guard let kind = ThrottleKind(rawValue: kind) else { continue }
                found.append(ThrottleMark(kind, account: markAccount, address: markAddress, at: at))
            }
            return found
        }
    }

    func add(_ marks: [ThrottleMark], forgetBefore: Int64, forgetKnownBefore: Int64) async throws {
        guard !marks.isEmpty else { return }
        let logger = database.logger
        let kinds = marks.map(\.kind.rawValue)
        let accounts = marks.map { Self.columns($0).account }
        let addresses = marks.map { Self.columns($0).address }
        let times = marks.map(\.at)
        let known = ThrottleKind.loginKnown.rawValue
        try await database.transaction { connection in
            // A known pair keeps one mark: its last login.
            try await connection.query(
                """
                DELETE FROM podium_throttle_mark m USING unnest(\(kinds)::text[], \(accounts)::text[], \(addresses)::text[]) AS t(k, a, d)
                WHERE t.k = \(known) AND m.kind = t.k AND m.account = t.a AND m.address = t.d
                """, logger: logger)
            try await connection.query(
                """
                INSERT INTO podium_throttle_mark (kind, account, address, at)
                SELECT * FROM unnest(\(kinds)::text[], \(accounts)::text[], \(addresses)::text[], \(times)::bigint[])
                """, logger: logger)
            try await connection.query(
                """
                DELETE FROM podium_throttle_mark
                WHERE (kind <> \(known) AND at < \(forgetBefore)) OR (kind = \(known) AND at < \(forgetKnownBefore))
                """, logger: logger)
        }
    }

    func remove(_ kinds: [ThrottleKind], account: String?, address: String?) async throws -> Int {
        let logger = database.logger
        let kinds = kinds.map(\.rawValue)
        let account = account.map(Self.stored)
        let address = address.map(Self.stored)
        return try await database.transaction { connection in
            var groups = 0
            for try await count in try await connection.query(
                """
                WITH gone AS (
                    DELETE FROM podium_throttle_mark WHERE kind = ANY(\(kinds))
                      AND (account = '' OR \(account)::text IS NULL OR account = \(account))
                      AND (address = '' OR \(address)::text IS NULL OR address = \(address))
                    RETURNING kind, account, address)
                SELECT COUNT(DISTINCT (kind, account, address)) FROM gone
                """, logger: logger
            ).decode(Int64.self) {
                groups = Int(count)
            }
            return groups
        }
    }
}
