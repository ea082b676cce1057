import Auth
import Foundation
import GRDB
import PodiumMessages
import PodiumRuntime
import PodiumSQLite

/// The SQLite (GRDB) ``AccountStore``: `auth-accounts.sqlite` under the data directory, WAL mode.
public final class SQLiteAccountStore: AccountStore {
    private let database: DatabasePool
    public let location: String
    public var durable: any DurableTablesAccess { SQLiteDurableReader(database) }

    /// Opens `<data>/<service>-accounts.sqlite`.
    public static let opener: AccountStoreOpener = { settings in
        try SQLiteAccountStore(
            path: StorageLocation.database(for: "\(settings.service)-accounts", in: settings.dataDirectory))
    }

    public init(path: URL) throws {
        location = "sqlite:\(path.path)"
        database = try DurableDatabase.open(at: path)
        try Self.migrator.migrate(database)
    }

    private static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1-accounts") { db in
            try db.create(table: "player") { t in
                t.primaryKey("id", .text)
                t.column("display_name", .text).notNull()
                t.column("username", .text)
                t.column("username_key", .text).unique()
                t.column("password_hash", .text)
                t.column("created_at", .integer).notNull()
            }
            try db.create(table: "device") { t in
                t.primaryKey("device_id", .text)
                t.column("player_id", .text).notNull().references("player")
                t.column("created_at", .integer).notNull()
            }
            try db.create(table: "session") { t in
                t.primaryKey("id", .text)
                t.column("player_id", .text).notNull().references("player").indexed()
                t.column("refresh_token_id", .text).notNull()
                t.column("refresh_expires_at", .integer).notNull()
                t.column("created_at", .integer).notNull()
                t.column("revoked_at", .integer)
            }
            // One row per direction: (a, b) means a's side of the relation with b.
            try db.create(table: "relation") { t in
                t.column("player_id", .text).notNull().references("player")
                t.column("other_id", .text).notNull().references("player")
                t.column("state", .text).notNull()
                t.column("since", .integer).notNull()
                t.primaryKey(["player_id", "other_id"])
            }
        }
        migrator.registerMigration("v2-bans") { db in
            try db.create(table: "ban") { t in
                t.primaryKey("player_id", .text).references("player")
                t.column("reason", .text).notNull()
                t.column("banned_at", .integer).notNull()
                t.column("until", .integer)
            }
        }
        migrator.registerMigration("v3-invites") { db in
            try db.create(table: "invite") { t in
                t.primaryKey("code", .text)
                t.column("owner_id", .text).notNull().references("player")
                t.column("purpose", .text).notNull()
                t.column("challenge_id", .text)
                t.column("game_id", .text)
                t.column("created_at", .integer).notNull()
                t.column("expires_at", .integer).notNull()
                t.column("revoked_at", .integer)
                t.column("uses", .integer).notNull().defaults(to: 0)
            }
            try db.create(index: "invite_owner", on: "invite", columns: ["owner_id", "created_at"])
        }
        migrator.registerMigration("v4-invite-entries") { db in
            // Each player's last entry of a code, so that a resent request counts no second use.
            try db.execute(
                sql: """
                    CREATE TABLE invite_entry (code TEXT NOT NULL REFERENCES invite (code), player_id TEXT NOT NULL,
                        entry_id TEXT NOT NULL, PRIMARY KEY (code, player_id)) WITHOUT ROWID
                    """)
        }
        migrator.registerMigration("v5-invite-requests") { db in
            // The request each code was made for, so that a resent request gets the same code.
            try db.execute(sql: "ALTER TABLE invite ADD COLUMN request_id TEXT")
            try db.execute(
                sql:
                    "CREATE UNIQUE INDEX invite_request ON invite (owner_id, request_id) WHERE request_id IS NOT NULL")
        }
        migrator.registerMigration("v7-deleted-accounts") { db in
            // Deleted accounts: the pseudonym their logs are rewritten with, the username held
            // until its quarantine ends, and when the gateway's logs were pseudonymised.
            try db.execute(
                sql: """
                    CREATE TABLE deleted_account (player_id TEXT PRIMARY KEY, pseudonym TEXT NOT NULL,
                        deleted_at INTEGER NOT NULL, username_key TEXT, username_free_at INTEGER, logs_erased_at INTEGER)
                    """)
            try db.execute(sql: "CREATE INDEX deleted_account_username ON deleted_account (username_key)")
            try db.execute(
                sql: "CREATE INDEX deleted_account_pending ON deleted_account (deleted_at) WHERE logs_erased_at IS NULL"
            )
        }
        // The outbox (stream `auth`: friend requests), with the receipts and positions every
        // service database has.
        DurableTables.register(in: &migrator)
        return migrator
    }

    // MARK: Player search

    public func searchPlayers(prefix: String, limit: Int) async throws -> [PlayerSummary] {
        let pattern = AccountRules.likePattern(prefix: prefix)
        return try await database.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT id, display_name, username, created_at FROM player
                    WHERE id = ? OR username_key LIKE ? ESCAPE '\\' OR lower(display_name) LIKE ? ESCAPE '\\'
                    ORDER BY lower(display_name), id LIMIT ?
                    """, arguments: [prefix, pattern, pattern, limit]
            ).map {
                PlayerSummary(
                    playerId: $0["id"], displayName: $0["display_name"], username: $0["username"],
                    createdAt: $0["created_at"])
            }
        }
    }

    public func unlinkDevice(deviceId: String) async throws -> String? {
        try await database.write { db in
            let owner = try String.fetchOne(
                db, sql: "SELECT player_id FROM device WHERE device_id = ?", arguments: [deviceId])
            try db.execute(sql: "DELETE FROM device WHERE device_id = ?", arguments: [deviceId])
            return owner
        }
    }

    // MARK: Deleted accounts

    public func deleteAccount(_ deletion: AccountDeletion) async throws -> DeletedAccount {
        let playerId = deletion.erasure.playerId
        return try await database.write { db in
            guard
                try Bool.fetchOne(
                    try db.cachedStatement(sql: "SELECT 1 FROM player WHERE id = ?"), arguments: [playerId]) != nil
            else { throw AccountErrors.unknownPlayer }
            let sessions = try String.fetchAll(
                db, sql: "SELECT id FROM session WHERE player_id = ? AND revoked_at IS NULL", arguments: [playerId])
            let devices =
                try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM device WHERE player_id = ?", arguments: [playerId]) ?? 0
            for statement in [
                "DELETE FROM invite_entry WHERE player_id = ?",
                "DELETE FROM invite_entry WHERE code IN (SELECT code FROM invite WHERE owner_id = ?)",
                "DELETE FROM invite WHERE owner_id = ?",
                "DELETE FROM relation WHERE player_id = ?1 OR other_id = ?1",
                "DELETE FROM ban WHERE player_id = ?",
                "DELETE FROM session WHERE player_id = ?",
                "DELETE FROM device WHERE player_id = ?",
                "DELETE FROM player WHERE id = ?",
            ] {
                try db.execute(sql: statement, arguments: [playerId])
            }
            try db.execute(
                sql: """
                    INSERT INTO deleted_account (player_id, pseudonym, deleted_at, username_key, username_free_at)
                    VALUES (?, ?, ?, ?, ?)
                    """,
                arguments: [
                    playerId, deletion.erasure.pseudonym, deletion.erasure.deletedAt, deletion.usernameKey,
                    deletion.usernameFreeAt,
                ])
            // Friend news naming the player, before the deletion's own message is appended.
            try SQLiteDurable.pseudonymiseOutbox(deletion.erasure, in: db)
            try SQLiteDurable.commit(deletion.writes, in: db)
            return DeletedAccount(sessionIds: sessions, devices: devices)
        }
    }

    public func pendingErasures(limit: Int) async throws -> [AccountErasure] {
        try await database.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT player_id, pseudonym, deleted_at FROM deleted_account WHERE logs_erased_at IS NULL
                    ORDER BY deleted_at LIMIT ?
                    """, arguments: [limit]
            ).map { AccountErasure(playerId: $0["player_id"], pseudonym: $0["pseudonym"], deletedAt: $0["deleted_at"]) }
        }
    }

    public func markErased(playerId: String, now: Int64) async throws -> Bool {
        try await database.write { db in
            try db.execute(
                sql: "UPDATE deleted_account SET logs_erased_at = ? WHERE player_id = ? AND logs_erased_at IS NULL",
                arguments: [now, playerId])
            return db.changesCount > 0
        }
    }

    public func isQuarantined(usernameKey: String, now: Int64) async throws -> Bool {
        try await database.read { db in
            try Bool.fetchOne(
                db, sql: "SELECT 1 FROM deleted_account WHERE username_key = ? AND username_free_at > ?",
                arguments: [usernameKey, now]) != nil
        }
    }

    public func releaseQuarantine(now: Int64) async throws -> Int {
        try await database.write { db in
            try db.execute(
                sql:
                    "UPDATE deleted_account SET username_key = NULL WHERE username_key IS NOT NULL AND username_free_at <= ?",
                arguments: [now])
            return db.changesCount
        }
    }

    // MARK: Accounts

    public func createAccount(
        playerId: String, username: String, usernameKey: String, passwordHash: String, displayName: String, now: Int64
    ) async throws -> AccountRecord {
        do {
            try await database.write { db in
                try db.cachedStatement(
                    sql:
                        "INSERT INTO player (id, display_name, username, username_key, password_hash, created_at) VALUES (?, ?, ?, ?, ?, ?)"
                ).execute(arguments: [playerId, displayName, username, usernameKey, passwordHash, now])
            }
        } catch let error as DatabaseError where error.extendedResultCode == .SQLITE_CONSTRAINT_UNIQUE {
            throw AccountErrors.usernameTaken
        }
        return AccountRecord(
            playerId: playerId, displayName: displayName, username: username, passwordHash: passwordHash, createdAt: now
        )
    }

    public func account(usernameKey: String) async throws -> AccountRecord? {
        try await database.read { db in
            try Row.fetchOne(
                try db.cachedStatement(sql: "SELECT * FROM player WHERE username_key = ?"), arguments: [usernameKey]
            ).map(Self.record)
        }
    }

    public func account(playerId: String) async throws -> AccountRecord? {
        try await database.read { db in
            try Row.fetchOne(try db.cachedStatement(sql: "SELECT * FROM player WHERE id = ?"), arguments: [playerId])
                .map(Self.record)
        }
    }

    public func profiles(playerIds: [String]) async throws -> [PublicProfile] {
        guard !playerIds.isEmpty else { return [] }
        return try await database.read { db in
            let marks = Array(repeating: "?", count: playerIds.count).joined(separator: ",")
            return try Row.fetchAll(
                try db.cachedStatement(sql: "SELECT id, display_name FROM player WHERE id IN (\(marks)) ORDER BY id"),
                arguments: StatementArguments(playerIds)
            ).map { PublicProfile(playerId: $0["id"], displayName: $0["display_name"]) }
        }
    }

    public func deviceAccount(deviceId: String, newPlayerId: String, displayName: String, now: Int64) async throws
        -> (AccountRecord, created: Bool)
    {
        try await database.write { db in
            if let playerId = try String.fetchOne(
                try db.cachedStatement(sql: "SELECT player_id FROM device WHERE device_id = ?"), arguments: [deviceId]),
                let row = try Row.fetchOne(
                    try db.cachedStatement(sql: "SELECT * FROM player WHERE id = ?"), arguments: [playerId])
            {
                return (Self.record(row), false)
            }
            try db.cachedStatement(
                sql: "INSERT INTO player (id, display_name, created_at) VALUES (?, ?, ?)"
            ).execute(arguments: [newPlayerId, displayName, now])
            try db.cachedStatement(
                sql: "INSERT INTO device (device_id, player_id, created_at) VALUES (?, ?, ?)"
            ).execute(arguments: [deviceId, newPlayerId, now])
            return (AccountRecord(playerId: newPlayerId, displayName: displayName, createdAt: now), true)
        }
    }

    public func linkCredentials(playerId: String, username: String, usernameKey: String, passwordHash: String)
        async throws
        -> AccountRecord
    {
        do {
            return try await database.write { db in
                guard
                    let row = try Row.fetchOne(
                        try db.cachedStatement(sql: "SELECT * FROM player WHERE id = ?"), arguments: [playerId])
                else {
                    throw AccountErrors.unknownPlayer
                }
                guard (row["username"] as String?) == nil else {
                    throw ErrorReply(code: .conflict, message: "this account already has a username")
                }
                try db.cachedStatement(
                    sql: "UPDATE player SET username = ?, username_key = ?, password_hash = ? WHERE id = ?"
                ).execute(arguments: [username, usernameKey, passwordHash, playerId])
                var record = Self.record(row)
                record.username = username
                record.passwordHash = passwordHash
                return record
            }
        } catch let error as DatabaseError where error.extendedResultCode == .SQLITE_CONSTRAINT_UNIQUE {
            throw AccountErrors.usernameTaken
        }
    }

    public func setDisplayName(playerId: String, displayName: String) async throws -> AccountRecord {
        try await database.write { db in
            try db.cachedStatement(sql: "UPDATE player SET display_name = ? WHERE id = ?").execute(arguments: [
                displayName, playerId,
            ])
            guard db.changesCount == 1,
                let row = try Row.fetchOne(
                    try db.cachedStatement(sql: "SELECT * FROM player WHERE id = ?"), arguments: [playerId])
            else { throw AccountErrors.unknownPlayer }
            return Self.record(row)
        }
    }

    public func linkedDeviceCount(playerId: String) async throws -> Int {
        try await database.read { db in
            try Int.fetchOne(
                try db.cachedStatement(sql: "SELECT COUNT(*) FROM device WHERE player_id = ?"), arguments: [playerId])
                ?? 0
        }
    }

    // MARK: Sessions

    public func createSession(
        sessionId: String, playerId: String, refreshTokenId: String, now: Int64, refreshExpiresAt: Int64
    ) async throws {
        try await database.write { db in
            try db.cachedStatement(
                sql:
                    "INSERT INTO session (id, player_id, refresh_token_id, refresh_expires_at, created_at) VALUES (?, ?, ?, ?, ?)"
            ).execute(arguments: [sessionId, playerId, refreshTokenId, refreshExpiresAt, now])
        }
    }

    public func rotateRefreshToken(
        sessionId: String, playerId: String, presentedTokenId: String, newTokenId: String, refreshExpiresAt: Int64,
        now: Int64
    ) async throws -> RefreshOutcome {
        try await database.write { db in
            let stored = try Row.fetchOne(
                try db.cachedStatement(
                    sql: "SELECT refresh_token_id, revoked_at FROM session WHERE id = ? AND player_id = ?"),
                arguments: [sessionId, playerId]
            ).map {
                RefreshRotation.Stored(
                    currentTokenId: $0["refresh_token_id"], revoked: ($0["revoked_at"] as Int64?) != nil)
            }
            let decision = RefreshRotation.decide(stored, presentedTokenId: presentedTokenId)
            switch decision {
            case .rotate:
                try db.cachedStatement(
                    sql: "UPDATE session SET refresh_token_id = ?, refresh_expires_at = ? WHERE id = ?"
                )
                .execute(arguments: [newTokenId, refreshExpiresAt, sessionId])
            case .revokeSession:
                try db.cachedStatement(sql: "UPDATE session SET revoked_at = ? WHERE id = ?").execute(arguments: [
                    now, sessionId,
                ])
            case .refuse:
                break
            }
            return RefreshRotation.outcome(of: decision)
        }
    }

    public func revokeSessions(playerId: String, sessionId: String?, now: Int64) async throws -> [String] {
        try await database.write { db in
            let ids: [String]
            if let sessionId {
                ids = try String.fetchAll(
                    try db.cachedStatement(
                        sql: "SELECT id FROM session WHERE id = ? AND player_id = ? AND revoked_at IS NULL"),
                    arguments: [sessionId, playerId])
            } else {
                ids = try String.fetchAll(
                    try db.cachedStatement(sql: "SELECT id FROM session WHERE player_id = ? AND revoked_at IS NULL"),
                    arguments: [playerId])
            }
            for id in ids {
                try db.cachedStatement(sql: "UPDATE session SET revoked_at = ? WHERE id = ?").execute(arguments: [
                    now, id,
                ])
            }
            return ids
        }
    }

    public func isSessionActive(sessionId: String, playerId: String) async throws -> Bool {
        try await database.read { db in
            try Bool.fetchOne(
                try db.cachedStatement(sql: "SELECT revoked_at IS NULL FROM session WHERE id = ? AND player_id = ?"),
                arguments: [sessionId, playerId]) ?? false
        }
    }

    public func sessionOwner(sessionId: String) async throws -> String? {
        try await database.read { db in
            try String.fetchOne(
                try db.cachedStatement(sql: "SELECT player_id FROM session WHERE id = ?"), arguments: [sessionId])
        }
    }

    public func activeSessions(playerId: String, now: Int64) async throws -> [PlayerRecord.Session] {
        try await database.read { db in
            try Row.fetchAll(
                try db.cachedStatement(
                    sql: """
                        SELECT id, created_at, refresh_expires_at FROM session
                        WHERE player_id = ? AND revoked_at IS NULL AND refresh_expires_at > ?
                        ORDER BY created_at DESC, id
                        """),
                arguments: [playerId, now]
            ).map {
                PlayerRecord.Session(
                    sessionId: $0["id"], createdAt: $0["created_at"], expiresAt: $0["refresh_expires_at"])
            }
        }
    }

    public func devices(playerId: String) async throws -> [PlayerRecord.Device] {
        try await database.read { db in
            try Row.fetchAll(
                try db.cachedStatement(
                    sql: "SELECT device_id, created_at FROM device WHERE player_id = ? ORDER BY created_at, device_id"),
                arguments: [playerId]
            ).map { PlayerRecord.Device(deviceId: $0["device_id"], linkedAt: $0["created_at"]) }
        }
    }

    public func devicePlayer(deviceId: String) async throws -> String? {
        try await database.read { db in
            try String.fetchOne(
                try db.cachedStatement(sql: "SELECT player_id FROM device WHERE device_id = ?"), arguments: [deviceId])
        }
    }

    // MARK: Bans

    public func ban(playerId: String, reason: String, until: Int64?, now: Int64) async throws -> [String] {
        try await database.write { db in
            guard
                try Bool.fetchOne(
                    try db.cachedStatement(sql: "SELECT 1 FROM player WHERE id = ?"), arguments: [playerId]) != nil
            else { throw AccountErrors.unknownPlayer }
            try db.cachedStatement(
                sql: """
                    INSERT INTO ban (player_id, reason, banned_at, until) VALUES (?, ?, ?, ?)
                    ON CONFLICT(player_id) DO UPDATE SET reason = excluded.reason, banned_at = excluded.banned_at, until = excluded.until
                    """
            ).execute(arguments: [playerId, reason, now, until])
            let ids = try String.fetchAll(
                try db.cachedStatement(sql: "SELECT id FROM session WHERE player_id = ? AND revoked_at IS NULL"),
                arguments: [playerId])
            for id in ids {
                try db.cachedStatement(sql: "UPDATE session SET revoked_at = ? WHERE id = ?").execute(arguments: [
                    now, id,
                ])
            }
            return ids
        }
    }

    public func unban(playerId: String) async throws -> Bool {
        try await database.write { db in
            try db.cachedStatement(sql: "DELETE FROM ban WHERE player_id = ?").execute(arguments: [playerId])
            return db.changesCount > 0
        }
    }

    public func ban(playerId: String) async throws -> PlayerRecord.Ban? {
        try await database.read { db in
            try Row.fetchOne(
                try db.cachedStatement(sql: "SELECT reason, banned_at, until FROM ban WHERE player_id = ?"),
                arguments: [playerId]
            ).map { PlayerRecord.Ban(reason: $0["reason"], bannedAt: $0["banned_at"], until: $0["until"]) }
        }
    }

    // MARK: Invites

    public func createInvite(_ invite: Invite, ownerId: String, requestId: String?) async throws -> Bool {
        try await database.write { db in
            try db.cachedStatement(
                sql: """
                    INSERT INTO invite (code, owner_id, purpose, challenge_id, game_id, created_at, expires_at, uses, request_id)
                    VALUES (?, ?, ?, ?, ?, ?, ?, 0, ?) ON CONFLICT DO NOTHING
                    """
            ).execute(arguments: [
                invite.code, ownerId, invite.purpose.rawValue, invite.challengeId, invite.gameId, invite.createdAt,
                invite.expiresAt, requestId,
            ])
            return db.changesCount == 1
        }
    }

    public func invite(ownerId: String, requestId: String) async throws -> Invite? {
        try await database.read { db in
            try Row.fetchOne(
                try db.cachedStatement(sql: "SELECT * FROM invite WHERE owner_id = ? AND request_id = ?"),
                arguments: [ownerId, requestId]
            ).map(Self.invite)
        }
    }

    public func invite(code: String) async throws -> (invite: Invite, ownerId: String)? {
        try await database.read { db in
            guard
                let row = try Row.fetchOne(
                    try db.cachedStatement(sql: "SELECT * FROM invite WHERE code = ?"), arguments: [code])
            else {
                return nil
            }
            return (Self.invite(row), row["owner_id"])
        }
    }

    public func invites(ownerId: String, now: Int64) async throws -> [Invite] {
        try await database.read { db in
            try Row.fetchAll(
                try db.cachedStatement(
                    sql:
                        "SELECT * FROM invite WHERE owner_id = ? AND revoked_at IS NULL AND expires_at > ? ORDER BY created_at DESC, code LIMIT 200"
                ),
                arguments: [ownerId, now]
            ).map(Self.invite)
        }
    }

    public func revokeInvite(code: String, ownerId: String, now: Int64) async throws -> Bool? {
        try await database.write { db in
            guard
                try Bool.fetchOne(
                    try db.cachedStatement(sql: "SELECT 1 FROM invite WHERE code = ? AND owner_id = ?"),
                    arguments: [code, ownerId])
                    != nil
            else { return nil }
            try db.cachedStatement(sql: "UPDATE invite SET revoked_at = ? WHERE code = ? AND revoked_at IS NULL")
                .execute(arguments: [now, code])
            return db.changesCount == 1
        }
    }

    public func useInvite(code: String, playerId: String, entryId: String?) async throws {
        try await database.write { db in
            if let entryId {
                try db.cachedStatement(
                    sql: """
                        INSERT INTO invite_entry (code, player_id, entry_id) VALUES (?, ?, ?)
                        ON CONFLICT (code, player_id) DO UPDATE SET entry_id = excluded.entry_id
                        WHERE invite_entry.entry_id <> excluded.entry_id
                        """
                ).execute(arguments: [code, playerId, entryId])
                guard db.changesCount > 0 else { return }  // a resend of the entry counted already
            }
            try db.cachedStatement(sql: "UPDATE invite SET uses = uses + 1 WHERE code = ?").execute(arguments: [code])
        }
    }

    private static func invite(_ row: Row) -> Invite {
        Invite(
            code: row["code"], purpose: InvitePurpose(rawValue: row["purpose"]) ?? .friend,
            challengeId: row["challenge_id"],
            gameId: row["game_id"], createdAt: row["created_at"], expiresAt: row["expires_at"],
            revokedAt: row["revoked_at"],
            uses: row["uses"])
    }

    // MARK: Friends

    public func friendState(playerId: String, otherPlayerId: String) async throws -> FriendState {
        try await database.read { db in try Self.state(db, playerId, otherPlayerId) }
    }

    public func updateRelation(
        _ playerId: String, _ otherPlayerId: String, requireBoth: Bool, now: Int64, announce: @escaping RelationWrites,
        _ change: @escaping @Sendable (inout FriendRules) throws -> FriendState
    ) async throws -> FriendState {
        try await database.write { db in
            if requireBoth { try Self.requireBoth(db, playerId, otherPlayerId) }
            let before = FriendRules(
                mine: try Self.state(db, playerId, otherPlayerId), theirs: try Self.state(db, otherPlayerId, playerId))
            var after = before
            let result = try change(&after)
            if after.mine != before.mine { try Self.store(db, playerId, otherPlayerId, after.mine, now) }
            if after.theirs != before.theirs { try Self.store(db, otherPlayerId, playerId, after.theirs, now) }
            try SQLiteDurable.commit(try announce(before, after), in: db)
            return result
        }
    }

    public func friendList(playerId: String) async throws -> FriendList {
        try await database.read { db in
            func list(_ state: FriendState) throws -> [PublicProfile] {
                try Row.fetchAll(
                    try db.cachedStatement(
                        sql: """
                            SELECT p.id, p.display_name FROM relation r JOIN player p ON p.id = r.other_id
                            WHERE r.player_id = ? AND r.state = ? ORDER BY p.display_name, p.id
                            """),
                    arguments: [playerId, state.rawValue]
                ).map { PublicProfile(playerId: $0["id"], displayName: $0["display_name"]) }
            }
            return FriendList(
                friends: try list(.friends), incoming: try list(.incomingRequest), outgoing: try list(.outgoingRequest),
                blocked: try list(.blocked))
        }
    }

    public func friendIDs(playerId: String) async throws -> [String] {
        try await database.read { db in
            try String.fetchAll(
                try db.cachedStatement(
                    sql: "SELECT other_id FROM relation WHERE player_id = ? AND state = 'friends' ORDER BY other_id"),
                arguments: [playerId])
        }
    }

    public func isBlocked(_ playerId: String, _ otherPlayerId: String) async throws -> Bool {
        try await database.read { db in
            try Self.state(db, playerId, otherPlayerId) == .blocked
                || Self.state(db, otherPlayerId, playerId) == .blocked
        }
    }

    // MARK: Helpers

    private static func state(_ db: Database, _ playerId: String, _ otherId: String) throws -> FriendState {
        let raw = try String.fetchOne(
            try db.cachedStatement(sql: "SELECT state FROM relation WHERE player_id = ? AND other_id = ?"),
            arguments: [playerId, otherId])
        return raw.flatMap(FriendState.init(rawValue:)) ?? .none
    }

    /// Writes one side (`none` deletes its row).
    private static func store(_ db: Database, _ playerId: String, _ otherId: String, _ state: FriendState, _ now: Int64)
        throws
    {
        guard state != .none else {
            try db.cachedStatement(sql: "DELETE FROM relation WHERE player_id = ? AND other_id = ?").execute(
                arguments: [playerId, otherId])
            return
        }
        try db.cachedStatement(
            sql: """
                INSERT INTO relation (player_id, other_id, state, since) VALUES (?, ?, ?, ?)
                ON CONFLICT(player_id, other_id) DO UPDATE SET state = excluded.state, since = excluded.since
                """
        ).execute(arguments: [playerId, otherId, state.rawValue, now])
    }

    private static func requireBoth(_ db: Database, _ playerId: String, _ otherId: String) throws {
        let count =
            try Int.fetchOne(
                try db.cachedStatement(sql: "SELECT COUNT(*) FROM player WHERE id IN (?, ?)"),
                arguments: [playerId, otherId]) ?? 0
        guard count == 2 else { throw AccountErrors.unknownPlayer }
    }

    private static func record(_ row: Row) -> AccountRecord {
        AccountRecord(
            playerId: row["id"], displayName: row["display_name"], username: row["username"],
            passwordHash: row["password_hash"], createdAt: row["created_at"])
    }
}
