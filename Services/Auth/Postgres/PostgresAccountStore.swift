import Auth
import Foundation
import Logging
import PodiumMessages
import PodiumPostgres
import PodiumRuntime
import PostgresNIO

/// The auth service's storage in PostgreSQL (tables `player`, `device`, `session`, `relation`,
/// `ban`, `invite` and the durable tables, whose outbox is stream `auth`, in the service's schema). The rules (friends, refresh rotation) are the value types'
/// (``FriendRules``, ``RefreshRotation``); this moves rows.
public final class PostgresAccountStore: AccountStore, StorageSize {
    let database: PostgresStorage
    public var location: String { database.settings.location }
    public var durable: any DurableTablesAccess { PostgresDurableReader(database) }
    /// Instances of the service share this database and take turns owning it (``PostgresLeases``).
    public var leases: (any LeaseStore)? { PostgresLeases(database: database, service: "auth") }
    /// The throttles' counts, shared by the instances (``PostgresThrottleLedger``).
    public var throttles: (any ThrottleLedger)? { PostgresThrottleLedger(database: database) }
    private var logger: Logger { database.logger }

    static let migrations = [
        PostgresMigration(
            "v1-accounts",
            [
                """
                CREATE TABLE player (id text PRIMARY KEY, display_name text NOT NULL, username text, username_key text UNIQUE,
                    password_hash text, created_at bigint NOT NULL)
                """,
                "CREATE TABLE device (device_id text PRIMARY KEY, player_id text NOT NULL REFERENCES player (id), created_at bigint NOT NULL)",
                "CREATE INDEX device_player ON device (player_id)",
                """
                CREATE TABLE session (id text PRIMARY KEY, player_id text NOT NULL REFERENCES player (id), refresh_token_id text NOT NULL,
                    refresh_expires_at bigint NOT NULL, created_at bigint NOT NULL, revoked_at bigint)
                """,
                "CREATE INDEX session_player ON session (player_id)",
                """
                CREATE TABLE relation (player_id text NOT NULL REFERENCES player (id), other_id text NOT NULL REFERENCES player (id),
                    state text NOT NULL, since bigint NOT NULL, PRIMARY KEY (player_id, other_id))
                """,
                """
                CREATE TABLE ban (player_id text PRIMARY KEY REFERENCES player (id), reason text NOT NULL, banned_at bigint NOT NULL,
                    until bigint)
                """,
            ]),
        PostgresMigration(
            "v3-invites",
            [
                """
                CREATE TABLE invite (code text PRIMARY KEY, owner_id text NOT NULL REFERENCES player (id), purpose text NOT NULL,
                    challenge_id text, game_id text, created_at bigint NOT NULL, expires_at bigint NOT NULL, revoked_at bigint,
                    uses bigint NOT NULL DEFAULT 0)
                """,
                "CREATE INDEX invite_owner ON invite (owner_id, created_at)",
            ]),
        PostgresMigration(
            "v4-invite-entries",
            [
                // Each player's last entry of a code, so that a resent request counts no second use.
                """
                CREATE TABLE invite_entry (code text NOT NULL REFERENCES invite (code), player_id text NOT NULL,
                    entry_id text NOT NULL, PRIMARY KEY (code, player_id))
                """
            ]),
        PostgresMigration(
            "v5-invite-requests",
            [
                // The request each code was made for, so that a resent request gets the same code.
                "ALTER TABLE invite ADD COLUMN request_id text",
                "CREATE UNIQUE INDEX invite_request ON invite (owner_id, request_id) WHERE request_id IS NOT NULL",
            ]),
        PostgresMigration(
            "v6-throttle-marks",
            [
                // The login and invite-code throttles' counts, shared by every auth instance
                // (ThrottleLedger): one row per counted failure, and per known account-and-address.
                "CREATE TABLE podium_throttle_mark (kind text NOT NULL, account text NOT NULL, address text NOT NULL, at bigint NOT NULL)",
                "CREATE INDEX throttle_mark_account ON podium_throttle_mark (account, kind, at)",
                "CREATE INDEX throttle_mark_address ON podium_throttle_mark (address, kind, at)",
                "CREATE INDEX throttle_mark_at ON podium_throttle_mark (at)",
            ]),
        PostgresMigration(
            "v7-deleted-accounts",
            [
                // Deleted accounts: the pseudonym their logs are rewritten with, the username held
                // until its quarantine ends, and when the gateway's logs were pseudonymised.
                """
                CREATE TABLE deleted_account (player_id text PRIMARY KEY, pseudonym text NOT NULL, deleted_at bigint NOT NULL,
                    username_key text, username_free_at bigint, logs_erased_at bigint)
                """,
                "CREATE INDEX deleted_account_username ON deleted_account (username_key)",
                "CREATE INDEX deleted_account_pending ON deleted_account (deleted_at) WHERE logs_erased_at IS NULL",
            ]),
    ]

    public init(database: PostgresStorage) { self.database = database }

    public func close() async { database.close() }
    public var storageName: String { database.settings.schema }
    public func storageBytes() async throws -> Int { try await database.schemaBytes() }

    public static func open(_ settings: DatabaseSettings) async throws -> PostgresAccountStore {
        PostgresAccountStore(
            database: try await PostgresStorage.open(
                settings, migrations: migrations, logger: Logger(label: "podium.auth")))
    }

    /// Opens the store in the database `settings` name (the executable chooses the backend:
    /// ``StorageBackend``).
    public static let opener: @Sendable (DatabaseSettings) async throws -> any AccountStore = { try await open($0) }

    /// The connection pool, watched as one of the service's loops.
    public var runner: (any StorageRunner)? { database }

    // MARK: Player search

    public func searchPlayers(prefix: String, limit: Int) async throws -> [PlayerSummary] {
        let pattern = AccountRules.likePattern(prefix: prefix)
        return try await read { connection, logger in
            var found: [PlayerSummary] = []
            for try await (id, name, username, createdAt) in try await connection.query(
                """
                SELECT id, display_name, username, created_at FROM player
                WHERE id = \(prefix) OR username_key LIKE \(pattern) OR lower(display_name) LIKE \(pattern)
                ORDER BY lower(display_name), id LIMIT \(limit)
                """, logger: logger
            ).decode((String, String, String?, Int64).self) {
                found.append(PlayerSummary(playerId: id, displayName: name, username: username, createdAt: createdAt))
            }
            return found
        }
    }

    public func unlinkDevice(deviceId: String) async throws -> String? {
        try await write { connection, logger in
            try await Self.strings(
                "DELETE FROM device WHERE device_id = \(deviceId) RETURNING player_id", connection, logger
            ).first
        }
    }

    // MARK: Deleted accounts

    public func deleteAccount(_ deletion: AccountDeletion) async throws -> DeletedAccount {
        let playerId = deletion.erasure.playerId
        let erasure = deletion.erasure
        let usernameKey = deletion.usernameKey
        let freeAt = deletion.usernameFreeAt
        let writes = deletion.writes
        return try await write { connection, logger in
            guard
                !(try await Self.strings(
                    "SELECT id FROM player WHERE id = \(playerId) FOR UPDATE", connection, logger)).isEmpty
            else { throw AccountErrors.unknownPlayer }
            let sessions = try await Self.strings(
                "SELECT id FROM session WHERE player_id = \(playerId) AND revoked_at IS NULL", connection, logger)
            let devices = try await Self.strings(
                "DELETE FROM device WHERE player_id = \(playerId) RETURNING device_id", connection, logger)
            let statements: [PostgresQuery] = [
                "DELETE FROM invite_entry WHERE player_id = \(playerId)",
                "DELETE FROM invite_entry WHERE code IN (SELECT code FROM invite WHERE owner_id = \(playerId))",
                "DELETE FROM invite WHERE owner_id = \(playerId)",
                "DELETE FROM relation WHERE player_id = \(playerId) OR other_id = \(playerId)",
                "DELETE FROM ban WHERE player_id = \(playerId)",
                "DELETE FROM session WHERE player_id = \(playerId)",
                "DELETE FROM player WHERE id = \(playerId)",
            ]
            for statement in statements { try await connection.query(statement, logger: logger) }
            if let usernameKey {
                // The throttles' marks name the account by its username key.
                try await connection.query(
                    "DELETE FROM podium_throttle_mark WHERE account = \(usernameKey)", logger: logger)
            }
            try await connection.query(
                """
                INSERT INTO deleted_account (player_id, pseudonym, deleted_at, username_key, username_free_at)
                VALUES (\(playerId), \(erasure.pseudonym), \(erasure.deletedAt), \(usernameKey), \(freeAt))
                """, logger: logger)
            // Friend news naming the player, before the deletion's own message is appended.
            try await PostgresDurable.pseudonymiseOutbox(erasure, on: connection, logger: logger)
            try await PostgresDurable.commit(writes, on: connection, logger: logger)
            return DeletedAccount(sessionIds: sessions, devices: devices.count)
        }
    }

    public func pendingErasures(limit: Int) async throws -> [AccountErasure] {
        try await read { connection, logger in
            var found: [AccountErasure] = []
            for try await (playerId, pseudonym, deletedAt) in try await connection.query(
                """
                SELECT player_id, pseudonym, deleted_at FROM deleted_account WHERE logs_erased_at IS NULL
                ORDER BY deleted_at LIMIT \(limit)
                """, logger: logger
            ).decode((String, String, Int64).self) {
                found.append(AccountErasure(playerId: playerId, pseudonym: pseudonym, deletedAt: deletedAt))
            }
            return found
        }
    }

    public func markErased(playerId: String, now: Int64) async throws -> Bool {
        try await write { connection, logger in
            !(try await Self.strings(
                """
                UPDATE deleted_account SET logs_erased_at = \(now) WHERE player_id = \(playerId) AND logs_erased_at IS NULL
                RETURNING player_id
                """, connection, logger)).isEmpty
        }
    }

    public func isQuarantined(usernameKey: String, now: Int64) async throws -> Bool {
        try await read { connection, logger in
            !(try await Self.strings(
                "SELECT player_id FROM deleted_account WHERE username_key = \(usernameKey) AND username_free_at > \(now)",
                connection, logger)).isEmpty
        }
    }

    public func releaseQuarantine(now: Int64) async throws -> Int {
        try await write { connection, logger in
            try await Self.strings(
                """
                UPDATE deleted_account SET username_key = NULL WHERE username_key IS NOT NULL AND username_free_at <= \(now)
                RETURNING player_id
                """, connection, logger
            ).count
        }
    }

    // MARK: Accounts

    private typealias PlayerRow = (String, String, String?, String?, Int64)
    private static let playerColumns = "id, display_name, username, password_hash, created_at"

    private static func record(_ row: PlayerRow) -> AccountRecord {
        AccountRecord(playerId: row.0, displayName: row.1, username: row.2, passwordHash: row.3, createdAt: row.4)
    }

    private static func player(_ id: String, _ connection: PostgresConnection, _ logger: Logger) async throws
        -> AccountRecord?
    {
        var query: PostgresQuery = " FROM player WHERE id = \(id)"
        query.sql = "SELECT \(playerColumns)" + query.sql
        for try await row in try await connection.query(query, logger: logger).decode(PlayerRow.self) {
            return record(row)
        }
        return nil
    }

    /// Whether an error is PostgreSQL's unique violation (SQLSTATE 23505).
    private static func isUniqueViolation(_ error: any Error) -> Bool {
        (error as? PSQLError)?.serverInfo?[.sqlState] == "23505"
    }

    public func createAccount(
        playerId: String, username: String, usernameKey: String, passwordHash: String, displayName: String, now: Int64
    ) async throws -> AccountRecord {
        do {
            try await write { connection, logger in
                try await connection.query(
                    """
                    INSERT INTO player (id, display_name, username, username_key, password_hash, created_at)
                    VALUES (\(playerId), \(displayName), \(username), \(usernameKey), \(passwordHash), \(now))
                    """, logger: logger)
            }
        } catch  where Self.isUniqueViolation(error) {
            throw AccountErrors.usernameTaken
        }
        return AccountRecord(
            playerId: playerId, displayName: displayName, username: username, passwordHash: passwordHash, createdAt: now
        )
    }

    public func account(usernameKey: String) async throws -> AccountRecord? {
        var query: PostgresQuery = " FROM player WHERE username_key = \(usernameKey)"
        query.sql = "SELECT \(Self.playerColumns)" + query.sql
        return try await read { [query] connection, logger in
            for try await row in try await connection.query(query, logger: logger).decode(PlayerRow.self) {
                return Self.record(row)
            }
            return nil
        }
    }

    public func account(playerId: String) async throws -> AccountRecord? {
        try await read { connection, logger in try await Self.player(playerId, connection, logger) }
    }

    public func profiles(playerIds: [String]) async throws -> [PublicProfile] {
        guard !playerIds.isEmpty else { return [] }
        return try await read { connection, logger in
            var profiles: [PublicProfile] = []
            for try await (id, name) in try await connection.query(
                "SELECT id, display_name FROM player WHERE id = ANY(\(playerIds)) ORDER BY id", logger: logger
            ).decode((String, String).self) {
                profiles.append(PublicProfile(playerId: id, displayName: name))
            }
            return profiles
        }
    }

    public func deviceAccount(deviceId: String, newPlayerId: String, displayName: String, now: Int64) async throws
        -> (AccountRecord, created: Bool)
    {
        do {
            return try await deviceAccountOnce(
                deviceId: deviceId, newPlayerId: newPlayerId, displayName: displayName, now: now)
        } catch  where Self.isUniqueViolation(error) {
            // Another login of the same new device committed first: its account is the device's.
            return try await deviceAccountOnce(
                deviceId: deviceId, newPlayerId: newPlayerId, displayName: displayName, now: now)
        }
    }

    private func deviceAccountOnce(deviceId: String, newPlayerId: String, displayName: String, now: Int64) async throws
        -> (AccountRecord, created: Bool)
    {
        try await write { connection, logger in
            for try await playerId in try await connection.query(
                "SELECT player_id FROM device WHERE device_id = \(deviceId)", logger: logger
            ).decode(String.self) {
                if let record = try await Self.player(playerId, connection, logger) { return (record, false) }
            }
            try await connection.query(
                "INSERT INTO player (id, display_name, created_at) VALUES (\(newPlayerId), \(displayName), \(now))",
                logger: logger)
            try await connection.query(
                "INSERT INTO device (device_id, player_id, created_at) VALUES (\(deviceId), \(newPlayerId), \(now))",
                logger: logger)
            return (AccountRecord(playerId: newPlayerId, displayName: displayName, createdAt: now), true)
        }
    }

    public func linkCredentials(playerId: String, username: String, usernameKey: String, passwordHash: String)
        async throws
        -> AccountRecord
    {
        do {
            return try await write { connection, logger in
                guard var record = try await Self.player(playerId, connection, logger) else {
                    throw AccountErrors.unknownPlayer
                }
                guard record.username == nil else {
                    throw ErrorReply(code: .conflict, message: "this account already has a username")
                }
                try await connection.query(
                    """
                    UPDATE player SET username = \(username), username_key = \(usernameKey), password_hash = \(passwordHash)
                    WHERE id = \(playerId)
                    """, logger: logger)
                record.username = username
                record.passwordHash = passwordHash
                return record
            }
        } catch  where Self.isUniqueViolation(error) {
            throw AccountErrors.usernameTaken
        }
    }

    public func setDisplayName(playerId: String, displayName: String) async throws -> AccountRecord {
        try await write { connection, logger in
            try await connection.query(
                "UPDATE player SET display_name = \(displayName) WHERE id = \(playerId)", logger: logger)
            guard let record = try await Self.player(playerId, connection, logger) else {
                throw AccountErrors.unknownPlayer
            }
            return record
        }
    }

    public func linkedDeviceCount(playerId: String) async throws -> Int {
        try await read { connection, logger in
            for try await count in try await connection.query(
                "SELECT COUNT(*)::bigint FROM device WHERE player_id = \(playerId)", logger: logger
            ).decode(Int64.self) {
                return Int(count)
            }
            return 0
        }
    }

    // MARK: Sessions

    public func createSession(
        sessionId: String, playerId: String, refreshTokenId: String, now: Int64, refreshExpiresAt: Int64
    ) async throws {
        try await write { connection, logger in
            try await connection.query(
                """
                INSERT INTO session (id, player_id, refresh_token_id, refresh_expires_at, created_at)
                VALUES (\(sessionId), \(playerId), \(refreshTokenId), \(refreshExpiresAt), \(now))
                """, logger: logger)
        }
    }

    public func rotateRefreshToken(
        sessionId: String, playerId: String, presentedTokenId: String, newTokenId: String, refreshExpiresAt: Int64,
        now: Int64
    ) async throws -> RefreshOutcome {
        try await write { connection, logger in
            var stored: RefreshRotation.Stored?
            for try await (tokenId, revokedAt) in try await connection.query(
                "SELECT refresh_token_id, revoked_at FROM session WHERE id = \(sessionId) AND player_id = \(playerId) FOR UPDATE",
                logger: logger
            ).decode((String, Int64?).self) {
                stored = RefreshRotation.Stored(currentTokenId: tokenId, revoked: revokedAt != nil)
            }
            let decision = RefreshRotation.decide(stored, presentedTokenId: presentedTokenId)
            switch decision {
            case .rotate:
                try await connection.query(
                    """
                    UPDATE session SET refresh_token_id = \(newTokenId), refresh_expires_at = \(refreshExpiresAt) WHERE id = \(sessionId)
                    """, logger: logger)
            case .revokeSession:
                try await connection.query(
                    "UPDATE session SET revoked_at = \(now) WHERE id = \(sessionId)", logger: logger)
            case .refuse:
                break
            }
            return RefreshRotation.outcome(of: decision)
        }
    }

    public func revokeSessions(playerId: String, sessionId: String?, now: Int64) async throws -> [String] {
        try await write { connection, logger in
            try await Self.strings(
                """
                UPDATE session SET revoked_at = \(now)
                WHERE player_id = \(playerId) AND (\(sessionId)::text IS NULL OR id = \(sessionId)) AND revoked_at IS NULL RETURNING id
                """, connection, logger)
        }
    }

    public func isSessionActive(sessionId: String, playerId: String) async throws -> Bool {
        try await read { connection, logger in
            for try await active in try await connection.query(
                "SELECT revoked_at IS NULL FROM session WHERE id = \(sessionId) AND player_id = \(playerId)",
                logger: logger
            ).decode(Bool.self) {
                return active
            }
            return false
        }
    }

    public func sessionOwner(sessionId: String) async throws -> String? {
        try await read { connection, logger in
            try await Self.strings("SELECT player_id FROM session WHERE id = \(sessionId)", connection, logger).first
        }
    }

    public func activeSessions(playerId: String, now: Int64) async throws -> [PlayerRecord.Session] {
        try await read { connection, logger in
            var sessions: [PlayerRecord.Session] = []
            for try await (id, createdAt, expiresAt) in try await connection.query(
                """
                SELECT id, created_at, refresh_expires_at FROM session
                WHERE player_id = \(playerId) AND revoked_at IS NULL AND refresh_expires_at > \(now) ORDER BY created_at DESC, id
                """, logger: logger
            ).decode((String, Int64, Int64).self) {
                sessions.append(PlayerRecord.Session(sessionId: id, createdAt: createdAt, expiresAt: expiresAt))
            }
            return sessions
        }
    }

    public func devices(playerId: String) async throws -> [PlayerRecord.Device] {
        try await read { connection, logger in
            var devices: [PlayerRecord.Device] = []
            for try await (id, linkedAt) in try await connection.query(
                "SELECT device_id, created_at FROM device WHERE player_id = \(playerId) ORDER BY created_at, device_id",
                logger: logger
            ).decode((String, Int64).self) {
                devices.append(PlayerRecord.Device(deviceId: id, linkedAt: linkedAt))
            }
            return devices
        }
    }

    public func devicePlayer(deviceId: String) async throws -> String? {
        try await read { connection, logger in
            try await Self.strings("SELECT player_id FROM device WHERE device_id = \(deviceId)", connection, logger)
                .first
        }
    }

    // MARK: Bans

    public func ban(playerId: String, reason: String, until: Int64?, now: Int64) async throws -> [String] {
        try await write { connection, logger in
            guard try await Self.player(playerId, connection, logger) != nil else { throw AccountErrors.unknownPlayer }
            try await connection.query(
                """
                INSERT INTO ban (player_id, reason, banned_at, until) VALUES (\(playerId), \(reason), \(now), \(until))
                ON CONFLICT (player_id) DO UPDATE SET reason = excluded.reason, banned_at = excluded.banned_at, until = excluded.until
                """, logger: logger)
            return try await Self.strings(
                "UPDATE session SET revoked_at = \(now) WHERE player_id = \(playerId) AND revoked_at IS NULL RETURNING id",
                connection, logger)
        }
    }

    public func unban(playerId: String) async throws -> Bool {
        try await write { connection, logger in
            try await !Self.strings(
                "DELETE FROM ban WHERE player_id = \(playerId) RETURNING player_id", connection, logger
            ).isEmpty
        }
    }

    public func ban(playerId: String) async throws -> PlayerRecord.Ban? {
        try await read { connection, logger in
            for try await (reason, bannedAt, until) in try await connection.query(
                "SELECT reason, banned_at, until FROM ban WHERE player_id = \(playerId)", logger: logger
            ).decode((String, Int64, Int64?).self) {
                return PlayerRecord.Ban(reason: reason, bannedAt: bannedAt, until: until)
            }
            return nil
        }
    }

    // MARK: Invites

    public func createInvite(_ invite: Invite, ownerId: String, requestId: String?) async throws -> Bool {
        try await write { connection, logger in
            try await !Self.strings(
                """
                INSERT INTO invite (code, owner_id, purpose, challenge_id, game_id, created_at, expires_at, uses, request_id)
                VALUES (\(invite.code), \(ownerId), \(invite.purpose.rawValue), \(invite.challengeId), \(invite.gameId),
                    \(invite.createdAt), \(invite.expiresAt), 0, \(requestId))
                ON CONFLICT DO NOTHING RETURNING code
                """, connection, logger
            ).isEmpty
        }
    }

    public func invite(ownerId: String, requestId: String) async throws -> Invite? {
        try await read { connection, logger in
            try await Self.invites(
                """
                SELECT \(unescaped: Self.inviteColumns) FROM invite WHERE owner_id = \(ownerId) AND request_id = \(requestId)
                """, connection, logger
            ).first?.invite
        }
    }

    public func invite(code: String) async throws -> (invite: Invite, ownerId: String)? {
        try await read { connection, logger in
            try await Self.invites(
                "SELECT \(unescaped: Self.inviteColumns) FROM invite WHERE code = \(code)", connection, logger
            ).first
        }
    }

    public func invites(ownerId: String, now: Int64) async throws -> [Invite] {
        try await read { connection, logger in
            try await Self.invites(
                """
                SELECT \(unescaped: Self.inviteColumns) FROM invite WHERE owner_id = \(ownerId) AND revoked_at IS NULL AND expires_at > \(now)
                ORDER BY created_at DESC, code LIMIT 200
                """, connection, logger
            ).map(\.invite)
        }
    }

    public func revokeInvite(code: String, ownerId: String, now: Int64) async throws -> Bool? {
        try await write { connection, logger in
            guard
                try await !Self.strings(
                    "SELECT code FROM invite WHERE code = \(code) AND owner_id = \(ownerId)", connection, logger
                ).isEmpty
            else { return nil }
            return try await !Self.strings(
                "UPDATE invite SET revoked_at = \(now) WHERE code = \(code) AND revoked_at IS NULL RETURNING code",
                connection, logger
            ).isEmpty
        }
    }

    public func useInvite(code: String, playerId: String, entryId: String?) async throws {
        try await write { connection, logger in
            guard let entryId else {
                try await connection.query("UPDATE invite SET uses = uses + 1 WHERE code = \(code)", logger: logger)
                return
            }
            // One round trip: the entry is recorded, and the use counted only when it is new
            // (a resend of the same entry changes no row).
            try await connection.query(
                """
                WITH entered AS (
                    INSERT INTO invite_entry (code, player_id, entry_id) VALUES (\(code), \(playerId), \(entryId))
                    ON CONFLICT (code, player_id) DO UPDATE SET entry_id = EXCLUDED.entry_id
                    WHERE invite_entry.entry_id <> EXCLUDED.entry_id RETURNING 1)
                UPDATE invite SET uses = uses + 1 WHERE code = \(code) AND EXISTS (SELECT 1 FROM entered)
                """, logger: logger)
        }
    }

    private static let inviteColumns =
        "code, owner_id, purpose, challenge_id, game_id, created_at, expires_at, revoked_at, uses"

    private static func invites(_ query: PostgresQuery, _ connection: PostgresConnection, _ logger: Logger) async throws
        -> [(invite: Invite, ownerId: String)]
    {
        var found: [(invite: Invite, ownerId: String)] = []
        for try await (code, owner, purpose, challengeId, gameId, createdAt, expiresAt, revokedAt, uses)
            in try await connection.query(
                query, logger: logger
            ).decode((String, String, String, String?, String?, Int64, Int64, Int64?, Int64).self)
        {
            found.append(
                (
                    Invite(
                        code: code, purpose: InvitePurpose(rawValue: purpose) ?? .friend, challengeId: challengeId,
                        gameId: gameId,
                        createdAt: createdAt, expiresAt: expiresAt, revokedAt: revokedAt, uses: Int(uses)), owner
                ))
        }
        return found
    }

    // MARK: Friends

    public func friendState(playerId: String, otherPlayerId: String) async throws -> FriendState {
        try await read { connection, logger in try await Self.side(playerId, otherPlayerId, connection, logger) }
    }

    public func updateRelation(
        _ playerId: String, _ otherPlayerId: String, requireBoth: Bool, now: Int64, announce: @escaping RelationWrites,
        _ change: @escaping @Sendable (inout FriendRules) throws -> FriendState
    ) async throws -> FriendState {
        try await write { connection, logger in
            // Both rows of the pair, locked in a fixed order so that two players acting on each
            // other at once take turns instead of deadlocking.
            let (first, second) = playerId < otherPlayerId ? (playerId, otherPlayerId) : (otherPlayerId, playerId)
            let existing = try await Self.strings(
                "SELECT id FROM player WHERE id IN (\(first), \(second)) ORDER BY id FOR UPDATE", connection, logger)
            if requireBoth && existing.count != 2 { throw AccountErrors.unknownPlayer }
            let before = FriendRules(
                mine: try await Self.side(playerId, otherPlayerId, connection, logger),
                theirs: try await Self.side(otherPlayerId, playerId, connection, logger))
            var after = before
            let result = try change(&after)
            if after.mine != before.mine {
                try await Self.store(playerId, otherPlayerId, after.mine, now, connection, logger)
            }
            if after.theirs != before.theirs {
                try await Self.store(otherPlayerId, playerId, after.theirs, now, connection, logger)
            }
            try await PostgresDurable.commit(try announce(before, after), on: connection, logger: logger)
            return result
        }
    }

    public func friendList(playerId: String) async throws -> FriendList {
        try await read { connection, logger in
            var lists: [FriendState: [PublicProfile]] = [:]
            for try await (state, id, name) in try await connection.query(
                """
                SELECT r.state, p.id, p.display_name FROM relation r JOIN player p ON p.id = r.other_id
                WHERE r.player_id = \(playerId) ORDER BY p.display_name, p.id
                """, logger: logger
            ).decode((String, String, String).self) {
                if let state = FriendState(rawValue: state) {
                    lists[state, default: []].append(PublicProfile(playerId: id, displayName: name))
                }
            }
            return FriendList(
                friends: lists[.friends] ?? [], incoming: lists[.incomingRequest] ?? [],
                outgoing: lists[.outgoingRequest] ?? [],
                blocked: lists[.blocked] ?? [])
        }
    }

    public func friendIDs(playerId: String) async throws -> [String] {
        try await read { connection, logger in
            try await Self.strings(
                "SELECT other_id FROM relation WHERE player_id = \(playerId) AND state = 'friends' ORDER BY other_id",
                connection, logger)
        }
    }

    public func isBlocked(_ playerId: String, _ otherPlayerId: String) async throws -> Bool {
        try await read { connection, logger in
            let mine = try await Self.side(playerId, otherPlayerId, connection, logger)
            let theirs = try await Self.side(otherPlayerId, playerId, connection, logger)
            return FriendRules(mine: mine, theirs: theirs).isBlocked
        }
    }

    // MARK: Helpers

    private func read<Result: Sendable>(_ body: @escaping @Sendable (PostgresConnection, Logger) async throws -> Result)
        async throws -> Result
    {
        let logger = logger
        return try await database.read { connection in try await body(connection, logger) }
    }

    private func write<Result: Sendable>(
        _ body: @escaping @Sendable (PostgresConnection, Logger) async throws -> Result
    ) async throws -> Result {
        let logger = logger
        return try await database.transaction { connection in try await body(connection, logger) }
    }

    private static func strings(_ query: PostgresQuery, _ connection: PostgresConnection, _ logger: Logger) async throws
        -> [String]
    {
        var values: [String] = []
        for try await value in try await connection.query(query, logger: logger).decode(String.self) {
            values.append(value)
        }
        return values
    }

    private static func side(_ playerId: String, _ otherId: String, _ connection: PostgresConnection, _ logger: Logger)
        async throws
        -> FriendState
    {
        try await strings(
            "SELECT state FROM relation WHERE player_id = \(playerId) AND other_id = \(otherId)", connection, logger
        )
        .first.flatMap(FriendState.init(rawValue:)) ?? .none
    }

    private static func store(
        _ playerId: String, _ otherId: String, _ state: FriendState, _ now: Int64, _ connection: PostgresConnection,
        _ logger: Logger
    ) async throws {
        guard state != .none else {
            try await connection.query(
                "DELETE FROM relation WHERE player_id = \(playerId) AND other_id = \(otherId)", logger: logger)
            return
        }
        try await connection.query(
            """
            INSERT INTO relation (player_id, other_id, state, since) VALUES (\(playerId), \(otherId), \(state.rawValue), \(now))
            ON CONFLICT (player_id, other_id) DO UPDATE SET state = excluded.state, since = excluded.since
            """, logger: logger)
    }
}
