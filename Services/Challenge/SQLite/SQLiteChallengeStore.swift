import Challenge
import Foundation
import GRDB
import PodiumMessages
import PodiumRuntime
import PodiumSQLite

/// The challenge service's storage in SQLite (GRDB, `challenge-challenges.sqlite`).
/// State changes are conditional updates, so each transition happens once even if the message
/// that triggers it arrives twice.
public final class SQLiteChallengeStore: ChallengeStore {
    let database: DatabasePool
    public let location: String
    public var durable: any DurableTablesAccess { SQLiteDurableReader(database) }

    /// Opens `<data>/<service>-challenges.sqlite`.
    public static let opener: ChallengeStoreOpener = { settings in
        try SQLiteChallengeStore(
            path: StorageLocation.database(for: "\(settings.service)-challenges", in: settings.dataDirectory))
    }

    public init(path: URL) throws {
        database = try DurableDatabase.open(at: path)
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1-challenges") { db in
            try db.create(table: "challenge") { t in
                t.primaryKey("id", .text)
                t.column("game_id", .text).notNull()
                t.column("kind", .text).notNull()
                t.column("issuer_id", .text).notNull()
                t.column("board_id", .text)
                t.column("achievement_id", .text)
                t.column("issuer_value", .integer)
                t.column("higher_is_better", .boolean)
                t.column("message", .text)
                t.column("created_at", .integer).notNull()
                t.column("expires_at", .integer)
                t.column("ends_at", .integer)
                t.column("state", .text)
                t.column("rematch_of", .text)
            }
            try db.create(table: "receiver") { t in
                t.column("challenge_id", .text).notNull().references("challenge")
                t.column("player_id", .text).notNull()
                t.column("state", .text).notNull()
                t.column("baseline", .integer)
                t.column("completed_at", .integer)
                t.column("value", .integer)
                t.primaryKey(["challenge_id", "player_id"])
            }
            try db.create(index: "receiver_player", on: "receiver", columns: ["player_id", "state"])
            try db.create(table: "inbox") { t in
                t.primaryKey("id", .text)
                t.column("game_id", .text).notNull()
                t.column("player_id", .text).notNull()
                t.column("kind", .text).notNull()
                t.column("message", .text).notNull()
                t.column("details", .text).notNull()
                t.column("created_at", .integer).notNull()
                t.column("read", .boolean).notNull().defaults(to: false)
            }
            try db.create(index: "inbox_player", on: "inbox", columns: ["game_id", "player_id", "created_at"])
        }
        migrator.registerMigration("inbox-v2") { db in
            // Every kind of notification, deletable, with the request that caused it. Deleting
            // marks the row (its rowid, the item's position, must never be handed out again).
            try db.alter(table: "inbox") { t in
                t.add(column: "correlation_id", .text)
                t.add(column: "deleted", .boolean).notNull().defaults(to: false)
            }
            try db.create(index: "inbox_created", on: "inbox", columns: ["created_at"])
        }
        migrator.registerMigration("definitions") { db in
            // Challenges started from a studio's definition: which, the runs each participant has
            // (null: unlimited), and the runs each one used.
            try db.alter(table: "challenge") { t in
                t.add(column: "definition_id", .text)
                t.add(column: "attempts_allowed", .integer)
                t.add(column: "duration", .integer)
            }
            try db.alter(table: "receiver") { t in t.add(column: "attempts", .integer) }
        }
        migrator.registerMigration("receiver-joined") { db in
            // A participant who joined a time-boxed challenge by code: only their scores from then count.
            try db.alter(table: "receiver") { t in t.add(column: "joined_at", .integer) }
        }
        migrator.registerMigration("operator-definitions") { db in
            // Definitions operators added, changed (json) or removed, on top of the game files.
            try db.create(table: "definition") { t in
                t.column("game_id", .text).notNull()
                t.column("definition_id", .text).notNull()
                t.column("json", .text).notNull()
                t.column("removed", .boolean).notNull().defaults(to: false)
                t.primaryKey(["game_id", "definition_id"])
            }
        }
        DurableTables.register(in: &migrator)
        try migrator.migrate(database)
        location = "sqlite:\(path.path)"
    }

    /// Writes the effects of consecutive stream messages, in order, and the stream position
    /// (`sequence`, the last of them) in one transaction: completions (each once: conditional
    /// updates), time-boxed scores, and the inbox items `notes` makes for each completion.
    /// Returns the inbox items written, to be sent as notifications.
    public func apply(
        _ plans: [ChallengeTriggerPlan], streams: [String], through sequence: UInt64,
        notes:
            @escaping @Sendable (_ challenge: ChallengeDetail, _ receiver: String, _ value: Int64?, _ cause: String?) ->
            [(gameId: String, playerId: String, item: InboxItem)]
    ) async throws -> [(gameId: String, playerId: String, item: InboxItem)] {
        try await database.write { db in
            var written: [(gameId: String, playerId: String, item: InboxItem)] = []
            for plan in plans {
                for completion in plan.completions {
                    try db.cachedStatement(
                        sql:
                            "UPDATE receiver SET state = 'completed', completed_at = ?, value = COALESCE(?, value) WHERE challenge_id = ? AND player_id = ? AND state = 'pending'"
                    ).execute(arguments: [plan.time, completion.value, completion.challengeId, completion.receiver])
                    guard db.changesCount == 1, let challenge = try Self.load(db, completion.challengeId) else {
                        continue
                    }
                    for note in notes(challenge, completion.receiver, completion.value, plan.cause) {
                        try Self.insert(note.item, gameId: note.gameId, playerId: note.playerId, in: db)
                        written.append(note)
                    }
                }
                for note in plan.notices {
                    try Self.insert(note.item, gameId: note.gameId, playerId: note.playerId, in: db)
                    written.append(note)
                }
                for score in plan.timedScores where score.attempt {
                    // One more run, if the player has runs left; the best of them counts.
                    let better = score.higherIsBetter ? "? > value" : "? < value"
                    try db.cachedStatement(
                        sql: """
                            UPDATE receiver SET attempts = attempts + 1,
                                completed_at = CASE WHEN value IS NULL OR \(better) THEN ? ELSE completed_at END,
                                value = CASE WHEN value IS NULL OR \(better) THEN ? ELSE value END
                            WHERE challenge_id = ? AND player_id = ? AND (joined_at IS NULL OR joined_at <= ?)
                                AND attempts < COALESCE((SELECT attempts_allowed FROM challenge WHERE id = ?), attempts + 1)
                            """
                    ).execute(arguments: [
                        score.value, plan.time, score.value, score.value, score.challengeId, plan.playerId, plan.time,
                        score.challengeId,
                    ])
                }
                for score in plan.timedScores where !score.attempt {
                    let better = score.higherIsBetter ? "? > value" : "? < value"
                    try db.cachedStatement(
                        sql:
                            "UPDATE receiver SET value = ?, completed_at = ? WHERE challenge_id = ? AND player_id = ? AND (joined_at IS NULL OR joined_at <= ?) AND (value IS NULL OR \(better))"
                    ).execute(arguments: [
                        score.value, plan.time, score.challengeId, plan.playerId, plan.time, score.value,
                    ])
                }
            }
            for stream in streams { try SQLiteDurable.advance(db, stream: stream, to: sequence) }
            return written
        }
    }

    public func inboxItems(ofPlayer playerId: String) async throws -> [ChallengeExport.Item] {
        try await database.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT rowid AS position, * FROM inbox WHERE player_id = ? AND deleted = 0
                    ORDER BY created_at DESC, rowid DESC
                    """, arguments: [playerId]
            ).map { ChallengeExport.Item(gameId: $0["game_id"], item: Self.item($0)) }
        }
    }

    public func challengeIds(ofPlayer playerId: String) async throws -> (issued: [String], received: [String]) {
        try await database.read { db in
            (
                try String.fetchAll(db, sql: "SELECT id FROM challenge WHERE issuer_id = ?", arguments: [playerId]),
                try String.fetchAll(
                    db, sql: "SELECT challenge_id FROM receiver WHERE player_id = ?", arguments: [playerId])
            )
        }
    }

    public func erase(
        _ erasure: AccountErasure, issued: [String], received: [String], inbox: Bool, streams: [String],
        through sequence: UInt64,
        notes: @escaping @Sendable (_ challenge: ChallengeDetail, _ receiver: String) -> [AddressedInboxItem]
    ) async throws -> [AddressedInboxItem] {
        let playerId = erasure.playerId
        return try await database.write { db in
            var written: [AddressedInboxItem] = []
            if inbox {
                // The player's items, and other players' items that name the player (a friend
                // request from them, a challenge they issued).
                // Deleted rows are marked, emptied (their positions are never handed out again).
                try db.execute(
                    sql:
                        "UPDATE inbox SET deleted = 1, player_id = ?, message = '', details = '{}' WHERE player_id = ?",
                    arguments: [erasure.pseudonym, playerId])
                try db.execute(
                    sql: "UPDATE inbox SET deleted = 1, message = '', details = '{}' WHERE instr(details, ?) > 0",
                    arguments: [playerId])
            }
            for challengeId in issued {
                let pending = try String.fetchAll(
                    db, sql: "SELECT player_id FROM receiver WHERE challenge_id = ? AND state = 'pending'",
                    arguments: [challengeId])
                try db.execute(
                    sql:
                        "UPDATE receiver SET state = 'invalid', completed_at = ? WHERE challenge_id = ? AND state = 'pending'",
                    arguments: [erasure.deletedAt, challengeId])
                try db.execute(
                    sql: "UPDATE challenge SET issuer_id = ?, message = NULL WHERE id = ? AND issuer_id = ?",
                    arguments: [erasure.pseudonym, challengeId, playerId])
                guard let challenge = try Self.load(db, challengeId) else { continue }
                // The player may take part in their own time-boxed challenge: no note for them.
                for receiver in pending where receiver != playerId {
                    for note in notes(challenge, receiver) {
                        try Self.insert(note.item, gameId: note.gameId, playerId: note.playerId, in: db)
                        written.append(note)
                    }
                }
            }
            for challengeId in received {
                try db.execute(
                    sql: "DELETE FROM receiver WHERE challenge_id = ? AND player_id = ?",
                    arguments: [challengeId, playerId])
            }
            try SQLiteDurable.erase(erasure, in: db)
            for stream in streams { try SQLiteDurable.advance(db, stream: stream, to: sequence) }
            return written
        }
    }

    /// The position applied in a followed stream.
    public func position(of stream: String) async throws -> UInt64 {
        try await database.read { db in try SQLiteDurable.position(db, stream: stream) }
    }

    /// Stores a new challenge with its receivers, the inbox items that announce it and the
    /// request's receipt, in one transaction.
    public func insert(
        _ challenge: ChallengeDetail, higherIsBetter: Bool?, baselines: [String: Int64],
        inbox: [AddressedInboxItem], request: RequestKey?
    ) async throws {
        let reply = try WireCodec.jsonValue(challenge)
        try await database.write { db in
            if let request {
                try SQLiteDurable.record(db, request, reply: reply, at: challenge.createdAt)
            }
            for note in inbox { try Self.insert(note.item, gameId: note.gameId, playerId: note.playerId, in: db) }
            try db.cachedStatement(
                sql: """
                    INSERT INTO challenge (id, game_id, kind, issuer_id, board_id, achievement_id, issuer_value, higher_is_better,
                        message, created_at, expires_at, ends_at, state, rematch_of, definition_id, attempts_allowed, duration)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """
            ).execute(arguments: [
                challenge.challengeId, challenge.gameId, challenge.kind.rawValue, challenge.issuerId, challenge.boardId,
                challenge.achievementId, challenge.issuerValue, higherIsBetter, challenge.message, challenge.createdAt,
                challenge.expiresAt, challenge.endsAt, challenge.state?.rawValue, challenge.rematchOf,
                challenge.definitionId,
                challenge.attemptsAllowed, challenge.durationMilliseconds,
            ])
            for receiver in challenge.receivers {
                try db.cachedStatement(
                    sql:
                        "INSERT INTO receiver (challenge_id, player_id, state, baseline, attempts) VALUES (?, ?, ?, ?, ?)"
                ).execute(arguments: [
                    challenge.challengeId, receiver.playerId, receiver.state.rawValue, baselines[receiver.playerId],
                    challenge.definitionId == nil ? nil : 0,
                ])
            }
        }
    }

    /// The challenge an earlier request with this id created (throws `id_reused` for another payload).
    public func replay(_ key: RequestKey) async throws -> ChallengeDetail? {
        try await database.read { db in
            try SQLiteDurable.replay(db, key)
                .map { try WireCodec.convert($0, to: ChallengeDetail.self) }
        }
    }

    public func challenge(_ id: String) async throws -> ChallengeDetail? {
        try await database.read { db in try Self.load(db, id) }
    }

    /// A game's challenges for operators, newest first: only the open ones (a running time-boxed
    /// challenge, or one with a receiver still pending), or all.
    public func recent(gameId: String, openOnly: Bool, limit: Int) async throws -> [ChallengeDetail] {
        try await database.read { db in
            let ids = try String.fetchAll(
                try db.cachedStatement(
                    sql: """
                        SELECT c.id FROM challenge c WHERE c.game_id = ? AND (? = 0 OR c.state = 'running'
                            OR EXISTS (SELECT 1 FROM receiver r WHERE r.challenge_id = c.id AND r.state = 'pending'))
                        ORDER BY c.created_at DESC, c.id LIMIT ?
                        """),
                arguments: [gameId, openOnly ? 1 : 0, limit])
            return try ids.compactMap { try Self.load(db, $0) }
        }
    }

    /// Challenges a player received (optionally in one state) or issued, newest first.
    public func challenges(gameId: String, playerId: String, issued: Bool, state: ChallengeState?) async throws
        -> [ChallengeDetail]
    {
        try await database.read { db in
            let ids: [String]
            if issued {
                ids = try String.fetchAll(
                    try db.cachedStatement(
                        sql:
                            "SELECT id FROM challenge WHERE game_id = ? AND issuer_id = ? ORDER BY created_at DESC LIMIT 200"
                    ),
                    arguments: [gameId, playerId])
            } else {
                ids = try String.fetchAll(
                    try db.cachedStatement(
                        sql: """
                            SELECT c.id FROM challenge c JOIN receiver r ON r.challenge_id = c.id
                            WHERE c.game_id = ? AND r.player_id = ? AND (? IS NULL OR r.state = ?) ORDER BY c.created_at DESC LIMIT 200
                            """),
                    arguments: [gameId, playerId, state?.rawValue, state?.rawValue])
            }
            return try ids.compactMap { try Self.load(db, $0) }
        }
    }

    /// Pending receivers of a kind in a game for a player, with what they must reach.
    public func pending(gameId: String, playerId: String, kind: ChallengeKind, target: String) async throws
        -> [(
            challengeId: String, issuerValue: Int64?, higherIsBetter: Bool?, baseline: Int64?, expiresAt: Int64?,
            createdAt: Int64
        )]
    {
        try await database.read { db in
            try Self.pending(db, gameId: gameId, playerId: playerId, kind: kind, target: target)
        }
    }

    private static func pending(_ db: Database, gameId: String, playerId: String, kind: ChallengeKind, target: String)
        throws
        -> [PendingReceiver]
    {
        let column = kind == .score ? "board_id" : "achievement_id"
        return try Row.fetchAll(
            try db.cachedStatement(
                sql: """
                    SELECT c.id, c.issuer_value, c.higher_is_better, r.baseline, c.expires_at, c.created_at FROM challenge c
                    JOIN receiver r ON r.challenge_id = c.id
                    WHERE c.game_id = ? AND c.kind = ? AND c.\(column) = ? AND r.player_id = ? AND r.state = 'pending'
                    """),
            arguments: [gameId, kind.rawValue, target, playerId]
        ).map {
            ($0["id"], $0["issuer_value"], $0["higher_is_better"], $0["baseline"], $0["expires_at"], $0["created_at"])
        }
    }

    /// Every trigger's candidates in one read (one hand-over to the database's queue for a
    /// whole batch of stream messages, not two per message).
    public func candidates(for triggers: Set<ChallengeTrigger>) async throws -> [ChallengeTrigger: TriggerCandidates] {
        guard !triggers.isEmpty else { return [:] }
        return try await database.read { db in
            var found: [ChallengeTrigger: TriggerCandidates] = [:]
            for trigger in triggers {
                found[trigger] = TriggerCandidates(
                    pending: try Self.pending(
                        db, gameId: trigger.gameId, playerId: trigger.playerId, kind: trigger.kind,
                        target: trigger.target),
                    timed: trigger.kind == .score
                        ? try Self.runningTimed(
                            db, gameId: trigger.gameId, boardId: trigger.target, playerId: trigger.playerId) : [])
            }
            return found
        }
    }

    /// Moves a receiver from `from` to `to` if it is still in `from`; true if this call changed it.
    public func transition(
        challengeId: String, playerId: String, from: ChallengeState, to: ChallengeState, at time: Int64, value: Int64?
    )
        async throws -> Bool
    {
        try await database.write { db in
            try db.cachedStatement(
                sql:
                    "UPDATE receiver SET state = ?, completed_at = ?, value = COALESCE(?, value) WHERE challenge_id = ? AND player_id = ? AND state = ?"
            ).execute(arguments: [to.rawValue, time, value, challengeId, playerId, from.rawValue])
            return db.changesCount == 1
        }
    }

    /// Pending receivers whose challenge expired by `now`: marks them invalid and returns them.
    public func expire(now: Int64) async throws -> [(challengeId: String, gameId: String, playerId: String)] {
        try await database.write { db in
            let rows = try Row.fetchAll(
                try db.cachedStatement(
                    sql: """
                        SELECT r.challenge_id, c.game_id, r.player_id FROM receiver r JOIN challenge c ON c.id = r.challenge_id
                        WHERE r.state = 'pending' AND c.expires_at IS NOT NULL AND c.expires_at <= ?
                        """),
                arguments: [now])
            for row in rows {
                try db.cachedStatement(
                    sql:
                        "UPDATE receiver SET state = 'invalid', completed_at = ? WHERE challenge_id = ? AND player_id = ? AND state = 'pending'"
                ).execute(arguments: [now, row["challenge_id"] as String, row["player_id"] as String])
            }
            return rows.map { ($0["challenge_id"], $0["game_id"], $0["player_id"]) }
        }
    }

    /// What pending score and achievement challenges refer to, per game.
    public func pendingTargets() async throws -> [(gameId: String, kind: ChallengeKind, target: String)] {
        try await database.read { db in
            try Row.fetchAll(
                try db.cachedStatement(
                    sql: """
                        SELECT DISTINCT c.game_id, c.kind, COALESCE(c.board_id, c.achievement_id) AS target FROM challenge c
                        JOIN receiver r ON r.challenge_id = c.id WHERE r.state = 'pending' AND c.kind IN ('score', 'achievement')
                        """
                )
            ).map { ($0["game_id"], ChallengeKind(rawValue: $0["kind"]) ?? .score, $0["target"]) }
        }
    }

    /// Marks every pending receiver of challenges on a removed board or achievement invalid.
    public func invalidate(gameId: String, kind: ChallengeKind, target: String, at time: Int64) async throws -> Int {
        let column = kind == .score ? "board_id" : "achievement_id"
        return try await database.write { db in
            try db.cachedStatement(
                sql: """
                    UPDATE receiver SET state = 'invalid', completed_at = ? WHERE state = 'pending' AND challenge_id IN
                        (SELECT id FROM challenge WHERE game_id = ? AND kind = ? AND \(column) = ?)
                    """
            ).execute(arguments: [time, gameId, kind.rawValue, target])
            return db.changesCount
        }
    }

    // MARK: Time-boxed

    public func runningTimed(gameId: String, boardId: String, playerId: String) async throws -> [TimedWindow] {
        try await database.read { db in try Self.runningTimed(db, gameId: gameId, boardId: boardId, playerId: playerId)
        }
    }

    private static func runningTimed(_ db: Database, gameId: String, boardId: String, playerId: String) throws
        -> [TimedWindow]
    {
        try Row.fetchAll(
            try db.cachedStatement(
                sql: """
                    SELECT c.id, c.created_at, c.ends_at, c.definition_id FROM challenge c JOIN receiver r ON r.challenge_id = c.id
                    WHERE c.game_id = ? AND c.kind = 'timed' AND c.board_id = ? AND c.state = 'running' AND r.player_id = ?
                    """),
            arguments: [gameId, boardId, playerId]
        ).map {
            let definition: String? = $0["definition_id"]
            return TimedWindow(
                challengeId: $0["id"], startsAt: $0["created_at"], endsAt: $0["ends_at"], definitionId: definition)
        }
    }

    /// Moves a running time-boxed challenge's end to `now` (an operator ends it early); false
    /// when it is not running or its time has already run out.
    public func endTimedEarly(_ challengeId: String, now: Int64) async throws -> Bool {
        try await database.write { db in
            try db.cachedStatement(
                sql:
                    "UPDATE challenge SET ends_at = ? WHERE id = ? AND kind = 'timed' AND state = 'running' AND ends_at > ?"
            ).execute(arguments: [now, challengeId, now])
            return db.changesCount > 0
        }
    }

    public func runningTimedWindows() async throws -> [TimedWindow] {
        try await database.read { db in
            try Row.fetchAll(
                try db.cachedStatement(
                    sql: "SELECT id, created_at, ends_at FROM challenge WHERE kind = 'timed' AND state = 'running'")
            )
            .map { TimedWindow(challengeId: $0["id"], startsAt: $0["created_at"], endsAt: $0["ends_at"]) }
        }
    }

    /// Marks time-boxed challenges ended; returns those this call ended (each ends once).
    public func endTimed(_ candidates: [String]) async throws -> [String] {
        try await database.write { db in
            var ids: [String] = []
            for id in candidates {
                try db.cachedStatement(sql: "UPDATE challenge SET state = 'ended' WHERE id = ? AND state = 'running'")
                    .execute(arguments: [id])
                if db.changesCount == 1 { ids.append(id) }
            }
            for id in ids {
                try db.cachedStatement(sql: "UPDATE challenge SET state = 'ended' WHERE id = ? AND state = 'running'")
                    .execute(arguments: [id])
                try db.cachedStatement(sql: "UPDATE receiver SET state = 'completed' WHERE challenge_id = ?").execute(
                    arguments: [id])
            }
            return ids
        }
    }

    // MARK: Inbox

    public func addToInbox(_ item: InboxItem, gameId: String, playerId: String) async throws {
        try await database.write { db in try Self.insert(item, gameId: gameId, playerId: playerId, in: db) }
    }

    public func join(
        challengeId: String, playerId: String, at: Int64, inbox: [(gameId: String, playerId: String, item: InboxItem)]
    ) async throws -> Bool {
        try await database.write { db in
            guard
                try Bool.fetchOne(
                    try db.cachedStatement(sql: "SELECT 1 FROM challenge WHERE id = ? AND state = 'running'"),
                    arguments: [challengeId]) != nil
            else { return false }
            try db.cachedStatement(
                sql: """
                    INSERT INTO receiver (challenge_id, player_id, state, joined_at, attempts)
                    VALUES (?, ?, 'pending', ?, (SELECT CASE WHEN definition_id IS NULL THEN NULL ELSE 0 END FROM challenge WHERE id = ?))
                    ON CONFLICT DO NOTHING
                    """
            ).execute(arguments: [challengeId, playerId, at, challengeId])
            guard db.changesCount == 1 else { return false }
            for note in inbox { try Self.insert(note.item, gameId: note.gameId, playerId: note.playerId, in: db) }
            return true
        }
    }

    public func addToInboxIfAbsent(_ item: InboxItem, gameId: String, playerId: String) async throws -> InboxItem? {
        try await database.write { db in
            if let row = try Row.fetchOne(
                try db.cachedStatement(sql: "SELECT rowid AS position, * FROM inbox WHERE id = ?"), arguments: [item.id]
            ) {
                return Self.item(row)
            }
            try Self.insert(item, gameId: gameId, playerId: playerId, in: db)
            return nil
        }
    }

    private static func item(_ row: Row) -> InboxItem {
        let details: String = row["details"]
        return InboxItem(
            id: row["id"], kind: row["kind"], message: row["message"],
            details: (try? WireCodec.decode([String: JSONValue].self, from: Data(details.utf8))) ?? [:],
            createdAt: row["created_at"], read: row["read"], position: row["position"],
            correlationId: row["correlation_id"])
    }

    private static func insert(_ item: InboxItem, gameId: String, playerId: String, in db: Database) throws {
        let details = String(decoding: try WireCodec.encode(item.details), as: UTF8.self)
        try db.cachedStatement(
            sql:
                "INSERT INTO inbox (id, game_id, player_id, kind, message, details, created_at, read, correlation_id) VALUES (?, ?, ?, ?, ?, ?, ?, 0, ?)"
        ).execute(arguments: [
            item.id, gameId, playerId, item.kind, item.message, details, item.createdAt, item.correlationId,
        ])
    }

    /// The position is the row's rowid; deleted rows stay (marked) until retention removes
    /// them, so positions only grow.
    public func inbox(gameId: String, playerId: String, page: InboxPageRequest) async throws -> [InboxItem] {
        try await database.read { db in
            var sql = "SELECT rowid AS position, * FROM inbox WHERE game_id = ? AND player_id = ? AND NOT deleted"
            var arguments: StatementArguments = [gameId, playerId]
            if page.unreadOnly { sql += " AND read = 0" }
            if let kinds = page.kinds {
                sql += " AND kind IN (\(kinds.map { _ in "?" }.joined(separator: ",")))"
                arguments += StatementArguments(kinds)
            }
            if let prefix = page.kindPrefix {
                sql += " AND substr(kind, 1, ?) = ?"
                arguments += [prefix.count, prefix]
            }
            if let after = page.after {
                sql += " AND rowid > ? ORDER BY rowid LIMIT ?"
                arguments += [after, page.limit]
            } else {
                if let before = page.before {
                    sql += " AND rowid < ?"
                    arguments += [before]
                }
                sql += " ORDER BY rowid DESC LIMIT ?"
                arguments += [page.limit]
            }
            return try Row.fetchAll(try db.cachedStatement(sql: sql), arguments: arguments).map(Self.item)
        }
    }

    public func unreadCount(gameId: String, playerId: String) async throws -> Int {
        try await database.read { db in
            try Int.fetchOne(
                try db.cachedStatement(
                    sql: "SELECT count(*) FROM inbox WHERE game_id = ? AND player_id = ? AND read = 0 AND NOT deleted"),
                arguments: [gameId, playerId]) ?? 0
        }
    }

    public func markRead(gameId: String, playerId: String, ids: [String]?) async throws -> Int {
        try await database.write { db in
            guard let ids else {
                try db.cachedStatement(
                    sql: "UPDATE inbox SET read = 1 WHERE game_id = ? AND player_id = ? AND read = 0 AND NOT deleted"
                )
                .execute(arguments: [gameId, playerId])
                return db.changesCount
            }
            var changed = 0
            for id in Set(ids) {
                try db.cachedStatement(
                    sql:
                        "UPDATE inbox SET read = 1 WHERE id = ? AND game_id = ? AND player_id = ? AND read = 0 AND NOT deleted"
                ).execute(arguments: [id, gameId, playerId])
                changed += db.changesCount
            }
            return changed
        }
    }

    public func deleteFromInbox(gameId: String, playerId: String, ids: [String]) async throws -> Int {
        try await database.write { db in
            var changed = 0
            for id in Set(ids) {
                try db.cachedStatement(
                    sql: "UPDATE inbox SET deleted = 1 WHERE id = ? AND game_id = ? AND player_id = ? AND NOT deleted"
                ).execute(arguments: [id, gameId, playerId])
                changed += db.changesCount
            }
            return changed
        }
    }

    public func pruneInbox(createdBefore time: Int64) async throws -> Int {
        try await database.write { db in
            // The newest row stays even when it is old, so that SQLite never reuses its rowid.
            try db.cachedStatement(
                sql: "DELETE FROM inbox WHERE created_at < ? AND rowid < (SELECT max(rowid) FROM inbox)"
            ).execute(arguments: [time])
            let removed = db.changesCount
            try db.cachedStatement(sql: "UPDATE inbox SET deleted = 1 WHERE created_at < ? AND NOT deleted").execute(
                arguments: [time])
            return removed + db.changesCount
        }
    }

    private static func load(_ db: Database, _ id: String) throws -> ChallengeDetail? {
        guard
            let row = try Row.fetchOne(
                try db.cachedStatement(sql: "SELECT * FROM challenge WHERE id = ?"), arguments: [id])
        else { return nil }
        let receivers = try Row.fetchAll(
            try db.cachedStatement(sql: "SELECT * FROM receiver WHERE challenge_id = ? ORDER BY player_id"),
            arguments: [id]
        ).map {
            ChallengeReceiver(
                playerId: $0["player_id"], state: ChallengeState(rawValue: $0["state"]) ?? .pending,
                completedAt: $0["completed_at"],
                value: $0["value"], attempts: $0["attempts"])
        }
        let state: String? = row["state"]
        return ChallengeDetail(
            challengeId: row["id"], gameId: row["game_id"], kind: ChallengeKind(rawValue: row["kind"]) ?? .score,
            issuerId: row["issuer_id"], boardId: row["board_id"], achievementId: row["achievement_id"],
            issuerValue: row["issuer_value"], message: row["message"], createdAt: row["created_at"],
            expiresAt: row["expires_at"],
            endsAt: row["ends_at"], state: state.flatMap(ChallengeState.init(rawValue:)), receivers: receivers,
            rematchOf: row["rematch_of"], definitionId: row["definition_id"], attemptsAllowed: row["attempts_allowed"],
            durationMilliseconds: row["duration"])
    }
}
