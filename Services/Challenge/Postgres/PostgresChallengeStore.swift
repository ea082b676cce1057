import Challenge
import Foundation
import Logging
import PodiumMessages
import PodiumPostgres
import PodiumRuntime
import PostgresNIO

/// The challenge service's storage in PostgreSQL (tables `challenge`, `receiver`, `inbox` in the
/// service's schema). Every state change is a conditional update, as in SQLite.
public final class PostgresChallengeStore: ChallengeStore, StorageSize {
    let database: PostgresStorage
    public var location: String { database.settings.location }
    /// Instances of the service share this database and take turns owning it (``PostgresLeases``).
    public var leases: (any LeaseStore)? { PostgresLeases(database: database, service: "challenge") }
    public var durable: any DurableTablesAccess { PostgresDurableReader(database) }
    private var logger: Logger { database.logger }

    static let migrations = [
        PostgresMigration(
            "v1-challenges",
            [
                """
                CREATE TABLE challenge (id text PRIMARY KEY, game_id text NOT NULL, kind text NOT NULL, issuer_id text NOT NULL,
                    board_id text, achievement_id text, issuer_value bigint, higher_is_better boolean, message text,
                    created_at bigint NOT NULL, expires_at bigint, ends_at bigint, state text, rematch_of text)
                """,
                "CREATE INDEX challenge_issuer ON challenge (game_id, issuer_id, created_at)",
                """
                CREATE TABLE receiver (challenge_id text NOT NULL REFERENCES challenge (id), player_id text NOT NULL,
                    state text NOT NULL, baseline bigint, completed_at bigint, value bigint, PRIMARY KEY (challenge_id, player_id))
                """,
                "CREATE INDEX receiver_player ON receiver (player_id, state)",
                """
                CREATE TABLE inbox (position bigserial UNIQUE, id text PRIMARY KEY, game_id text NOT NULL, player_id text NOT NULL,
                    kind text NOT NULL, message text NOT NULL, details text NOT NULL, created_at bigint NOT NULL,
                    read boolean NOT NULL DEFAULT false)
                """,
                "CREATE INDEX inbox_player ON inbox (game_id, player_id, created_at)",
            ]),
        // Every kind of notification, with the request that caused it; a deleted row is marked and goes with retention (the
        // bigserial position is never handed out again).
        PostgresMigration(
            "v2-inbox",
            [
                "ALTER TABLE inbox ADD COLUMN correlation_id text",
                // As in SQLite (the two layouts mirror each other for export and import): a
                // player's delete marks the row; retention removes it.
                "ALTER TABLE inbox ADD COLUMN deleted boolean NOT NULL DEFAULT false",
                "CREATE INDEX inbox_created ON inbox (created_at)",
                "CREATE INDEX inbox_player_position ON inbox (game_id, player_id, position)",
            ]),
        // A participant who joined a time-boxed challenge by code: only their scores from then count.
        PostgresMigration("v3-receiver-joined", ["ALTER TABLE receiver ADD COLUMN joined_at bigint"]),
        // Challenges started from a studio's definition (as in SQLite).
        PostgresMigration(
            "v4-definitions",
            [
                "ALTER TABLE challenge ADD COLUMN definition_id text",
                "ALTER TABLE challenge ADD COLUMN attempts_allowed bigint",
                "ALTER TABLE challenge ADD COLUMN duration bigint",
                "ALTER TABLE receiver ADD COLUMN attempts bigint",
            ]),
        // Definitions operators added, changed or removed (as in SQLite).
        PostgresMigration(
            "v5-operator-definitions",
            [
                """
                CREATE TABLE definition (game_id text NOT NULL, definition_id text NOT NULL, json text NOT NULL,
                    removed boolean NOT NULL DEFAULT false, PRIMARY KEY (game_id, definition_id))
                """
            ]),
    ]

    public init(database: PostgresStorage) { self.database = database }

    public func close() async { database.close() }
    public var storageName: String { database.settings.schema }
    public func storageBytes() async throws -> Int { try await database.schemaBytes() }

    public static func open(_ settings: DatabaseSettings) async throws -> PostgresChallengeStore {
        PostgresChallengeStore(
            database: try await PostgresStorage.open(
                settings, migrations: migrations, logger: Logger(label: "podium.challenge")))
    }

    /// Opens the store in the database `settings` name (the executable chooses the backend:
    /// ``StorageBackend``).
    public static let opener: @Sendable (DatabaseSettings) async throws -> any ChallengeStore = { try await open($0) }

    /// The connection pool, watched as one of the service's loops.
    public var runner: (any StorageRunner)? { database }

    // MARK: Writing

    public func apply(
        _ plans: [ChallengeTriggerPlan], streams: [String], through sequence: UInt64,
        notes:
            @escaping @Sendable (_ challenge: ChallengeDetail, _ receiver: String, _ value: Int64?, _ cause: String?) ->
            [AddressedInboxItem]
    ) async throws -> [AddressedInboxItem] {
        let logger = logger
        return try await database.transaction { connection in
            var written: [AddressedInboxItem] = []
            for plan in plans {
                for completion in plan.completions {
                    let changed = try await Self.count(
                        """
                        UPDATE receiver SET state = 'completed', completed_at = \(plan.time), value = COALESCE(\(completion.value), value)
                        WHERE challenge_id = \(completion.challengeId) AND player_id = \(completion.receiver) AND state = 'pending'
                        RETURNING 1
                        """, connection, logger)
                    guard changed == 1, let challenge = try await Self.load(completion.challengeId, connection, logger)
                    else { continue }
                    written += notes(challenge, completion.receiver, completion.value, plan.cause)
                }
                written += plan.notices
                for score in plan.timedScores where score.attempt {
                    // One more run, if the player has runs left; the best of them counts.
                    var query: PostgresQuery = """
                        UPDATE receiver SET attempts = attempts + 1,
                            completed_at = CASE WHEN value IS NULL OR value
                        """
                    query.sql += score.higherIsBetter ? " < " : " > "
                    query.sql += "$\(query.binds.count + 1)"
                    query.binds.append(score.value)
                    query.sql +=
                        " THEN $\(query.binds.count + 1) ELSE completed_at END, value = CASE WHEN value IS NULL OR value"
                    query.binds.append(plan.time)
                    query.sql += (score.higherIsBetter ? " < " : " > ") + "$1 THEN $1 ELSE value END"
                    query.sql +=
                        " WHERE challenge_id = $\(query.binds.count + 1) AND player_id = $\(query.binds.count + 2)"
                    query.binds.append(score.challengeId)
                    query.binds.append(plan.playerId)
                    query.sql += " AND (joined_at IS NULL OR joined_at <= $\(query.binds.count + 1))"
                    query.binds.append(plan.time)
                    query.sql +=
                        " AND attempts < COALESCE((SELECT attempts_allowed FROM challenge WHERE id = $3), attempts + 1)"
                    try await connection.query(query, logger: logger)
                }
                for score in plan.timedScores where !score.attempt {
                    var query: PostgresQuery = """
                        UPDATE receiver SET value = \(score.value), completed_at = \(plan.time)
                        WHERE challenge_id = \(score.challengeId) AND player_id = \(plan.playerId)
                        AND (joined_at IS NULL OR joined_at <= \(plan.time)) AND (value IS NULL OR 
                        """
                    query.sql += score.higherIsBetter ? "value < $1)" : "value > $1)"
                    try await connection.query(query, logger: logger)
                }
            }
            // Nothing above reads the inbox: the batch's notes go in one statement, in order.
            try await Self.insert(written, connection, logger)
            for stream in streams {
                try await PostgresDurable.advance(stream, to: sequence, on: connection, logger: logger)
            }
            return written
        }
    }

    public func position(of stream: String) async throws -> UInt64 {
        let logger = logger
        return try await database.read { connection in
            try await PostgresDurable.position(stream, on: connection, logger: logger)
        }
    }

    public func insert(
        _ challenge: ChallengeDetail, higherIsBetter: Bool?, baselines: [String: Int64], inbox: [AddressedInboxItem],
        request: RequestKey?
    ) async throws {
        let reply = try WireCodec.jsonValue(challenge)
        let logger = logger
        try await database.transaction { connection in
            if let request {
                try await PostgresDurable.record(
                    request, reply: reply, at: challenge.createdAt, on: connection, logger: logger)
            }
            try await connection.query(
                """
                INSERT INTO challenge (id, game_id, kind, issuer_id, board_id, achievement_id, issuer_value, higher_is_better,
                    message, created_at, expires_at, ends_at, state, rematch_of, definition_id, attempts_allowed, duration)
                VALUES (\(challenge.challengeId), \(challenge.gameId), \(challenge.kind.rawValue), \(challenge.issuerId),
                    \(challenge.boardId), \(challenge.achievementId), \(challenge.issuerValue), \(higherIsBetter), \(challenge.message),
                    \(challenge.createdAt), \(challenge.expiresAt), \(challenge.endsAt), \(challenge.state?.rawValue),
                    \(challenge.rematchOf), \(challenge.definitionId), \(challenge.attemptsAllowed.map(Int64.init)),
                    \(challenge.durationMilliseconds))
                """, logger: logger)
            if !challenge.receivers.isEmpty {
                let players = challenge.receivers.map(\.playerId)
                let states = challenge.receivers.map(\.state.rawValue)
                let baselineValues = challenge.receivers.map { baselines[$0.playerId] ?? 0 }
                let hasBaseline = challenge.receivers.map { baselines[$0.playerId] != nil }
                let counted = challenge.definitionId != nil
                try await connection.query(
                    """
                    INSERT INTO receiver (challenge_id, player_id, state, baseline, attempts)
                    SELECT \(challenge.challengeId), p, s, CASE WHEN hb THEN b END, CASE WHEN \(counted) THEN 0 END
                    FROM unnest(\(players)::text[], \(states)::text[], \(baselineValues)::bigint[], \(hasBaseline)::boolean[])
                        AS u(p, s, b, hb)
                    """, logger: logger)
            }
            try await Self.insert(inbox, connection, logger)
        }
    }

    public func inboxItems(ofPlayer playerId: String) async throws -> [ChallengeExport.Item] {
        let logger = logger
        return try await database.read { connection in
            var items: [ChallengeExport.Item] = []
            for try await (gameId, position, id, kind, message, details, createdAt, read, correlation)
                in try await connection.query(
                    """
                    SELECT game_id, position, id, kind, message, details, created_at, read, correlation_id FROM inbox
                    WHERE player_id = \(playerId) AND NOT deleted ORDER BY created_at DESC, position DESC
                    """, logger: logger
                ).decode((String, Int64, String, String, String, String, Int64, Bool, String?).self)
            {
                items.append(
                    ChallengeExport.Item(
                        gameId: gameId,
                        item: InboxItem(
                            id: id, kind: kind, message: message,
                            details: (try? WireCodec.decode([String: JSONValue].self, from: Data(details.utf8))) ?? [:],
                            createdAt: createdAt, read: read, position: position, correlationId: correlation)))
            }
            return items
        }
    }

    public func challengeIds(ofPlayer playerId: String) async throws -> (issued: [String], received: [String]) {
        let logger = logger
        return try await database.read { connection in
            var issued: [String] = []
            var received: [String] = []
            for try await id in try await connection.query(
                "SELECT id FROM challenge WHERE issuer_id = \(playerId)", logger: logger
            ).decode(String.self) {
                issued.append(id)
            }
            for try await id in try await connection.query(
                "SELECT challenge_id FROM receiver WHERE player_id = \(playerId)", logger: logger
            ).decode(String.self) {
                received.append(id)
            }
            return (issued, received)
        }
    }

    public func erase(
        _ erasure: AccountErasure, issued: [String], received: [String], inbox: Bool, streams: [String],
        through sequence: UInt64,
        notes: @escaping @Sendable (_ challenge: ChallengeDetail, _ receiver: String) -> [AddressedInboxItem]
    ) async throws -> [AddressedInboxItem] {
        let playerId = erasure.playerId
        return try await write { connection, logger in
            var written: [AddressedInboxItem] = []
            if inbox {
                // The player's items, and other players' items that name the player (a friend
                // request from them, a challenge they issued).
                // Deleted rows are marked, emptied (their positions are never handed out again).
                try await connection.query(
                    """
                    UPDATE inbox SET deleted = true, player_id = \(erasure.pseudonym), message = '', details = '{}'
                    WHERE player_id = \(playerId)
                    """, logger: logger)
                try await connection.query(
                    "UPDATE inbox SET deleted = true, message = '', details = '{}' WHERE position(\(playerId) IN details) > 0",
                    logger: logger)
            }
            for challengeId in issued {
                var pending: [String] = []
                for try await receiver in try await connection.query(
                    """
                    UPDATE receiver SET state = 'invalid', completed_at = \(erasure.deletedAt)
                    WHERE challenge_id = \(challengeId) AND state = 'pending' RETURNING player_id
                    """, logger: logger
                ).decode(String.self) {
                    pending.append(receiver)
                }
                try await connection.query(
                    """
                    UPDATE challenge SET issuer_id = \(erasure.pseudonym), message = NULL
                    WHERE id = \(challengeId) AND issuer_id = \(playerId)
                    """, logger: logger)
                guard let challenge = try await Self.load(challengeId, connection, logger) else { continue }
                // The player may take part in their own time-boxed challenge: no note for them.
                let made = pending.filter { $0 != playerId }.sorted().flatMap { notes(challenge, $0) }
                try await Self.insert(made, connection, logger)
                written += made
            }
            for challengeId in received {
                try await connection.query(
                    "DELETE FROM receiver WHERE challenge_id = \(challengeId) AND player_id = \(playerId)",
                    logger: logger)
            }
            try await PostgresDurable.erase(erasure, on: connection, logger: logger)
            for stream in streams {
                try await PostgresDurable.advance(stream, to: sequence, on: connection, logger: logger)
            }
            return written
        }
    }

    public func transition(
        challengeId: String, playerId: String, from: ChallengeState, to: ChallengeState, at time: Int64, value: Int64?
    ) async throws -> Bool {
        try await write { connection, logger in
            try await Self.count(
                """
                UPDATE receiver SET state = \(to.rawValue), completed_at = \(time), value = COALESCE(\(value), value)
                WHERE challenge_id = \(challengeId) AND player_id = \(playerId) AND state = \(from.rawValue) RETURNING 1
                """, connection, logger) == 1
        }
    }

    public func expire(now: Int64) async throws -> [(challengeId: String, gameId: String, playerId: String)] {
        try await write { connection, logger in
            var expired: [(challengeId: String, gameId: String, playerId: String)] = []
            for try await row in try await connection.query(
                """
                UPDATE receiver r SET state = 'invalid', completed_at = \(now) FROM challenge c
                WHERE c.id = r.challenge_id AND r.state = 'pending' AND c.expires_at IS NOT NULL AND c.expires_at <= \(now)
                RETURNING r.challenge_id, c.game_id, r.player_id
                """, logger: logger
            ).decode((String, String, String).self) {
                expired.append(row)
            }
            return expired
        }
    }

    public func invalidate(gameId: String, kind: ChallengeKind, target: String, at time: Int64) async throws -> Int {
        let column = kind == .score ? "board_id" : "achievement_id"
        return try await write { connection, logger in
            var query: PostgresQuery = """
                UPDATE receiver SET state = 'invalid', completed_at = \(time) WHERE state = 'pending' AND challenge_id IN
                    (SELECT id FROM challenge WHERE game_id = \(gameId) AND kind = \(kind.rawValue) AND 
                """
            query.sql += "\(column) = $4) RETURNING 1"
            query.binds.append(target)
            return try await Self.count(query, connection, logger)
        }
    }

    public func endTimedEarly(_ challengeId: String, now: Int64) async throws -> Bool {
        try await write { connection, logger in
            try await Self.count(
                """
                UPDATE challenge SET ends_at = \(now)
                WHERE id = \(challengeId) AND kind = 'timed' AND state = 'running' AND ends_at > \(now) RETURNING 1
                """, connection, logger) > 0
        }
    }

    public func endTimed(_ candidates: [String]) async throws -> [String] {
        try await write { connection, logger in
            var ended: [String] = []
            for id in candidates {
                if try await Self.count(
                    "UPDATE challenge SET state = 'ended' WHERE id = \(id) AND state = 'running' RETURNING 1",
                    connection, logger) == 1
                {
                    try await connection.query(
                        "UPDATE receiver SET state = 'completed' WHERE challenge_id = \(id)", logger: logger)
                    ended.append(id)
                }
            }
            return ended
        }
    }

    public func addToInbox(_ item: InboxItem, gameId: String, playerId: String) async throws {
        try await write { connection, logger in
            try await Self.insert(item, gameId: gameId, playerId: playerId, connection, logger)
        }
    }

    public func join(challengeId: String, playerId: String, at: Int64, inbox: [AddressedInboxItem]) async throws -> Bool
    {
        try await write { connection, logger in
            let running = try await Self.count(
                "SELECT 1 FROM challenge WHERE id = \(challengeId) AND state = 'running' FOR UPDATE", connection, logger
            )
            guard running == 1 else { return false }
            let added = try await Self.count(
                """
                INSERT INTO receiver (challenge_id, player_id, state, joined_at, attempts)
                VALUES (\(challengeId), \(playerId), 'pending', \(at),
                    (SELECT CASE WHEN definition_id IS NULL THEN NULL ELSE 0 END FROM challenge WHERE id = \(challengeId)))
                ON CONFLICT DO NOTHING RETURNING 1
                """, connection, logger)
            guard added == 1 else { return false }
            try await Self.insert(inbox, connection, logger)
            return true
        }
    }

    public func addToInboxIfAbsent(_ item: InboxItem, gameId: String, playerId: String) async throws -> InboxItem? {
        let details = String(decoding: try WireCodec.encode(item.details), as: UTF8.self)
        return try await write { connection, logger in
            let added = try await Self.count(
                """
                INSERT INTO inbox (id, game_id, player_id, kind, message, details, created_at, read, correlation_id)
                VALUES (\(item.id), \(gameId), \(playerId), \(item.kind), \(item.message), \(details), \(item.createdAt), false,
                    \(item.correlationId))
                ON CONFLICT (id) DO NOTHING RETURNING 1
                """, connection, logger)
            guard added == 0 else { return nil }
            for try await (position, id, kind, message, kept, createdAt, read, correlation)
                in try await connection.query(
                    "SELECT position, id, kind, message, details, created_at, read, correlation_id FROM inbox WHERE id = \(item.id)",
                    logger: logger
                ).decode((Int64, String, String, String, String, Int64, Bool, String?).self)
            {
                return InboxItem(
                    id: id, kind: kind, message: message,
                    details: (try? WireCodec.decode([String: JSONValue].self, from: Data(kept.utf8))) ?? [:],
                    createdAt: createdAt, read: read, position: position, correlationId: correlation)
            }
            return nil
        }
    }

    public func markRead(gameId: String, playerId: String, ids: [String]?) async throws -> Int {
        try await write { connection, logger in
            guard let ids else {
                return try await Self.count(
                    "UPDATE inbox SET read = true WHERE game_id = \(gameId) AND player_id = \(playerId) AND NOT read AND NOT deleted RETURNING 1",
                    connection, logger)
            }
            return try await Self.count(
                """
                UPDATE inbox SET read = true WHERE id = ANY(\(ids)) AND game_id = \(gameId) AND player_id = \(playerId) AND NOT read
                AND NOT deleted RETURNING 1
                """, connection, logger)
        }
    }

    public func deleteFromInbox(gameId: String, playerId: String, ids: [String]) async throws -> Int {
        try await write { connection, logger in
            try await Self.count(
                """
                UPDATE inbox SET deleted = true WHERE id = ANY(\(ids)) AND game_id = \(gameId) AND player_id = \(playerId)
                AND NOT deleted RETURNING 1
                """,
                connection, logger)
        }
    }

    public func pruneInbox(createdBefore time: Int64) async throws -> Int {
        try await write { connection, logger in
            try await Self.count("DELETE FROM inbox WHERE created_at < \(time) RETURNING 1", connection, logger)
        }
    }

    public func unreadCount(gameId: String, playerId: String) async throws -> Int {
        let logger = logger
        return try await database.read { connection in
            var count = 0
            for try await (value) in try await connection.query(
                "SELECT count(*) FROM inbox WHERE game_id = \(gameId) AND player_id = \(playerId) AND NOT read AND NOT deleted",
                logger: logger
            ).decode(Int64.self) {
                count = Int(value)
            }
            return count
        }
    }

    // MARK: Reading

    public func replay(_ key: RequestKey) async throws -> ChallengeDetail? {
        let logger = logger
        return try await database.read { connection in
            try await PostgresDurable.replay(key, on: connection, logger: logger).map {
                try WireCodec.convert($0, to: ChallengeDetail.self)
            }
        }
    }

    public func challenge(_ id: String) async throws -> ChallengeDetail? {
        let logger = logger
        return try await database.read { connection in try await Self.load(id, connection, logger) }
    }

    public func recent(gameId: String, openOnly: Bool, limit: Int) async throws -> [ChallengeDetail] {
        try await loadAll(
            """
            SELECT c.id FROM challenge c WHERE c.game_id = \(gameId) AND (NOT \(openOnly) OR c.state = 'running'
                OR EXISTS (SELECT 1 FROM receiver r WHERE r.challenge_id = c.id AND r.state = 'pending'))
            ORDER BY c.created_at DESC, c.id LIMIT \(limit)
            """)
    }

    public func challenges(gameId: String, playerId: String, issued: Bool, state: ChallengeState?) async throws
        -> [ChallengeDetail]
    {
        if issued {
            return try await loadAll(
                """
                SELECT id FROM challenge WHERE game_id = \(gameId) AND issuer_id = \(playerId) ORDER BY created_at DESC LIMIT 200
                """)
        }
        return try await loadAll(
            """
            SELECT c.id FROM challenge c JOIN receiver r ON r.challenge_id = c.id
            WHERE c.game_id = \(gameId) AND r.player_id = \(playerId) AND (\(state?.rawValue)::text IS NULL OR r.state = \(state?.rawValue))
            ORDER BY c.created_at DESC LIMIT 200
            """)
    }

    public func pending(gameId: String, playerId: String, kind: ChallengeKind, target: String) async throws
        -> [PendingReceiver]
    {
        let column = kind == .score ? "board_id" : "achievement_id"
        var query: PostgresQuery = """
            SELECT c.id, c.issuer_value, c.higher_is_better, r.baseline, c.expires_at, c.created_at FROM challenge c
            JOIN receiver r ON r.challenge_id = c.id
            WHERE c.game_id = \(gameId) AND c.kind = \(kind.rawValue) AND r.player_id = \(playerId) AND r.state = 'pending' AND 
            """
        query.sql += "c.\(column) = $4"
        query.binds.append(target)
        let logger = logger
        return try await database.read { [query] connection in
            var result: [PendingReceiver] = []
            for try await row in try await connection.query(query, logger: logger)
                .decode((String, Int64?, Bool?, Int64?, Int64?, Int64).self)
            {
                result.append(row)
            }
            return result
        }
    }

    public func pendingTargets() async throws -> [(gameId: String, kind: ChallengeKind, target: String)] {
        let logger = logger
        return try await database.read { connection in
            var result: [(gameId: String, kind: ChallengeKind, target: String)] = []
            for try await (gameId, kind, target) in try await connection.query(
                """
                SELECT DISTINCT c.game_id, c.kind, COALESCE(c.board_id, c.achievement_id) FROM challenge c
                JOIN receiver r ON r.challenge_id = c.id WHERE r.state = 'pending' AND c.kind IN ('score', 'achievement')
                """, logger: logger
            ).decode((String, String, String).self) {
                result.append((gameId, ChallengeKind(rawValue: kind) ?? .score, target))
            }
            return result
        }
    }

    /// The candidates of a batch of triggers in two statements (one for the pending receivers,
    /// one for the time-boxed windows), each trigger looked up by the receiver index (`LATERAL`:
    /// a nested loop per trigger, never a scan of the tables).
    public func candidates(for triggers: Set<ChallengeTrigger>) async throws -> [ChallengeTrigger: TriggerCandidates] {
        guard !triggers.isEmpty else { return [:] }
        let list = Array(triggers)
        let games = list.map(\.gameId)
        let players = list.map(\.playerId)
        let kinds = list.map(\.kind.rawValue)
        let targets = list.map(\.target)
        let scores = list.enumerated().filter { $0.element.kind == .score }
        let scoreOrdinals = scores.map { Int64($0.offset + 1) }
        let logger = logger
        return try await database.read { connection in
            var found: [ChallengeTrigger: TriggerCandidates] = [:]
            for trigger in list { found[trigger] = TriggerCandidates() }
            for try await (ordinal, id, issuerValue, higherIsBetter, baseline, expiresAt, createdAt)
                in try await connection
                .query(
                    """
                    SELECT u.ord::bigint, x.id, x.issuer_value, x.higher_is_better, x.baseline, x.expires_at, x.created_at
                    FROM unnest(\(games)::text[], \(players)::text[], \(kinds)::text[], \(targets)::text[])
                        WITH ORDINALITY AS u(g, p, k, t, ord)
                    CROSS JOIN LATERAL (
                        SELECT c.id, c.issuer_value, c.higher_is_better, r.baseline, c.expires_at, c.created_at
                        FROM receiver r JOIN challenge c ON c.id = r.challenge_id
                        WHERE r.player_id = u.p AND r.state = 'pending' AND c.game_id = u.g AND c.kind = u.k
                            AND CASE WHEN u.k = 'score' THEN c.board_id ELSE c.achievement_id END = u.t) x
                    """, logger: logger
                ).decode((Int64, String, Int64?, Bool?, Int64?, Int64?, Int64).self)
            {
                found[list[Int(ordinal) - 1]]?.pending.append(
                    (id, issuerValue, higherIsBetter, baseline, expiresAt, createdAt))
            }
            guard !scores.isEmpty else { return found }
            for try await (ordinal, id, startsAt, endsAt, definition) in try await connection.query(
                """
                SELECT u.ord, x.id, x.created_at, x.ends_at, x.definition_id
                FROM unnest(\(scoreOrdinals)::bigint[]) AS u(ord)
                CROSS JOIN LATERAL (
                    SELECT c.id, c.created_at, c.ends_at, c.definition_id FROM receiver r JOIN challenge c ON c.id = r.challenge_id
                    WHERE r.player_id = (\(players)::text[])[u.ord] AND c.game_id = (\(games)::text[])[u.ord]
                        AND c.kind = 'timed' AND c.board_id = (\(targets)::text[])[u.ord] AND c.state = 'running') x
                """, logger: logger
            ).decode((Int64, String, Int64, Int64?, String?).self) {
                found[list[Int(ordinal) - 1]]?.timed.append(
                    TimedWindow(challengeId: id, startsAt: startsAt, endsAt: endsAt, definitionId: definition))
            }
            return found
        }
    }

    public func runningTimed(gameId: String, boardId: String, playerId: String) async throws -> [TimedWindow] {
        let logger = logger
        return try await database.read { connection in
            var windows: [TimedWindow] = []
            for try await (id, startsAt, endsAt, definition) in try await connection.query(
                """
                SELECT c.id, c.created_at, c.ends_at, c.definition_id FROM challenge c JOIN receiver r ON r.challenge_id = c.id
                WHERE c.game_id = \(gameId) AND c.kind = 'timed' AND c.board_id = \(boardId) AND c.state = 'running'
                    AND r.player_id = \(playerId)
                """, logger: logger
            ).decode((String, Int64, Int64?, String?).self) {
                windows.append(
                    TimedWindow(challengeId: id, startsAt: startsAt, endsAt: endsAt, definitionId: definition))
            }
            return windows
        }
    }

    public func runningTimedWindows() async throws -> [TimedWindow] {
        try await windows("SELECT id, created_at, ends_at FROM challenge WHERE kind = 'timed' AND state = 'running'")
    }

    private func windows(_ query: PostgresQuery) async throws -> [TimedWindow] {
        let logger = logger
        return try await database.read { connection in
            var windows: [TimedWindow] = []
            for try await (id, startsAt, endsAt) in try await connection.query(query, logger: logger).decode(
                (String, Int64, Int64?).self)
            {
                windows.append(TimedWindow(challengeId: id, startsAt: startsAt, endsAt: endsAt))
            }
            return windows
        }
    }

    public func inbox(gameId: String, playerId: String, page: InboxPageRequest) async throws -> [InboxItem] {
        var query: PostgresQuery = """
            SELECT position, id, kind, message, details, created_at, read, correlation_id FROM inbox
            WHERE game_id = \(gameId) AND player_id = \(playerId) AND NOT deleted AND (NOT \(page.unreadOnly) OR NOT read)
            AND (\(page.kinds == nil) OR kind = ANY(\(page.kinds ?? [])))
            AND (\(page.kindPrefix == nil) OR starts_with(kind, \(page.kindPrefix ?? "")))
            """
        if let after = page.after {
            query.sql += " AND position > $\(query.binds.count + 1) ORDER BY position LIMIT $\(query.binds.count + 2)"
            query.binds.append(after)
            query.binds.append(Int64(page.limit))
        } else {
            query.sql +=
                " AND position < $\(query.binds.count + 1) ORDER BY position DESC LIMIT $\(query.binds.count + 2)"
            query.binds.append(page.before ?? Int64.max)
            query.binds.append(Int64(page.limit))
        }
        let logger = logger
        let prepared = query
        return try await database.read { connection in
            var items: [InboxItem] = []
            for try await (position, id, kind, message, details, createdAt, read, correlation)
                in try await connection.query(prepared, logger: logger)
                .decode((Int64, String, String, String, String, Int64, Bool, String?).self)
            {
                items.append(
                    InboxItem(
                        id: id, kind: kind, message: message,
                        details: (try? WireCodec.decode([String: JSONValue].self, from: Data(details.utf8))) ?? [:],
                        createdAt: createdAt, read: read, position: position, correlationId: correlation))
            }
            return items
        }
    }

    // MARK: Helpers

    private func write<Result: Sendable>(
        _ body: @escaping @Sendable (PostgresConnection, Logger) async throws -> Result
    ) async throws -> Result {
        let logger = logger
        return try await database.transaction { connection in try await body(connection, logger) }
    }

    private func ids(_ query: PostgresQuery) async throws -> [String] {
        let logger = logger
        return try await database.read { connection in
            var ids: [String] = []
            for try await id in try await connection.query(query, logger: logger).decode(String.self) { ids.append(id) }
            return ids
        }
    }

    private func loadAll(_ query: PostgresQuery) async throws -> [ChallengeDetail] {
        let logger = logger
        return try await database.read { connection in
            var ids: [String] = []
            for try await id in try await connection.query(query, logger: logger).decode(String.self) { ids.append(id) }
            return try await Self.load(ids, connection, logger)
        }
    }

    private static func count(_ query: PostgresQuery, _ connection: PostgresConnection, _ logger: Logger) async throws
        -> Int
    {
        var count = 0
        for try await _ in try await connection.query(query, logger: logger).decode(Int32.self) { count += 1 }
        return count
    }

    /// Inbox items in one statement, positioned in the order given.
    private static func insert(_ notes: [AddressedInboxItem], _ connection: PostgresConnection, _ logger: Logger)
        async throws
    {
        guard !notes.isEmpty else { return }
        let ids = notes.map(\.item.id)
        let games = notes.map(\.gameId)
        let players = notes.map(\.playerId)
        let kinds = notes.map(\.item.kind)
        let messages = notes.map(\.item.message)
        let details = try notes.map { String(decoding: try WireCodec.encode($0.item.details), as: UTF8.self) }
        let times = notes.map(\.item.createdAt)
        let correlations = notes.map { $0.item.correlationId ?? "" }
        let hasCorrelation = notes.map { $0.item.correlationId != nil }
        try await connection.query(
            """
            INSERT INTO inbox (id, game_id, player_id, kind, message, details, created_at, read, correlation_id)
            SELECT i, g, p, k, m, d, t, false, CASE WHEN hc THEN c END
            FROM unnest(\(ids)::text[], \(games)::text[], \(players)::text[], \(kinds)::text[], \(messages)::text[],
                \(details)::text[], \(times)::bigint[], \(correlations)::text[], \(hasCorrelation)::boolean[])
                WITH ORDINALITY AS u(i, g, p, k, m, d, t, c, hc, ord)
            ORDER BY ord
            """, logger: logger)
    }

    /// Challenges by id, in the order given (ids not found are left out), in two statements.
    private static func load(_ ids: [String], _ connection: PostgresConnection, _ logger: Logger) async throws
        -> [ChallengeDetail]
    {
        guard !ids.isEmpty else { return [] }
        var receivers: [String: [ChallengeReceiver]] = [:]
        for try await (challengeId, playerId, state, completedAt, value, attempts) in try await connection.query(
            """
            SELECT challenge_id, player_id, state, completed_at, value, attempts FROM receiver
            WHERE challenge_id = ANY(\(ids)) ORDER BY challenge_id, player_id
            """, logger: logger
        ).decode((String, String, String, Int64?, Int64?, Int64?).self) {
            receivers[challengeId, default: []].append(
                ChallengeReceiver(
                    playerId: playerId, state: ChallengeState(rawValue: state) ?? .pending, completedAt: completedAt,
                    value: value, attempts: attempts.map(Int.init)))
        }
        var found: [String: ChallengeDetail] = [:]
        for try await row in try await connection.query(
            """
            SELECT id, game_id, kind, issuer_id, board_id, achievement_id, issuer_value, message, created_at, expires_at, ends_at,
                state, rematch_of, definition_id, attempts_allowed, duration FROM challenge WHERE id = ANY(\(ids))
            """, logger: logger
        ).decode(ChallengeRow.self) {
            found[row.0] = detail(row, receivers: receivers[row.0] ?? [])
        }
        return ids.compactMap { found[$0] }
    }

    private typealias ChallengeRow = (
        String, String, String, String, String?, String?, Int64?, String?, Int64, Int64?, Int64?, String?, String?,
        String?, Int64?, Int64?
    )

    private static func detail(_ row: ChallengeRow, receivers: [ChallengeReceiver]) -> ChallengeDetail {
        ChallengeDetail(
            challengeId: row.0, gameId: row.1, kind: ChallengeKind(rawValue: row.2) ?? .score, issuerId: row.3,
            boardId: row.4, achievementId: row.5, issuerValue: row.6, message: row.7, createdAt: row.8,
            expiresAt: row.9, endsAt: row.10, state: row.11.flatMap(ChallengeState.init(rawValue:)),
            receivers: receivers, rematchOf: row.12, definitionId: row.13, attemptsAllowed: row.14.map(Int.init),
            durationMilliseconds: row.15)
    }

    private static func insert(
        _ item: InboxItem, gameId: String, playerId: String, _ connection: PostgresConnection, _ logger: Logger
    ) async throws {
        let details = String(decoding: try WireCodec.encode(item.details), as: UTF8.self)
        try await connection.query(
            """
            INSERT INTO inbox (id, game_id, player_id, kind, message, details, created_at, read, correlation_id)
            VALUES (\(item.id), \(gameId), \(playerId), \(item.kind), \(item.message), \(details), \(item.createdAt), false,
                \(item.correlationId))
            """, logger: logger)
    }

    private static func load(_ id: String, _ connection: PostgresConnection, _ logger: Logger) async throws
        -> ChallengeDetail?
    {
        try await load([id], connection, logger).first
    }
}
