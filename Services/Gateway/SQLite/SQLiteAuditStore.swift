import Foundation
import GRDB
import Gateway
import PodiumMessages
import PodiumRuntime
import PodiumSQLite

/// The audit log in SQLite (`gateway-audit.sqlite`).
public final class SQLiteAuditStore: AuditStore {
    private let database: DatabasePool
    private let path: URL
    public var location: String { "sqlite:\(path.path)" }
    public var files: [String] { [path.path] }

    public init(path: URL) throws {
        self.path = path
        database = try DurableDatabase.open(at: path)
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1-audit") { db in
            try db.create(table: "audit") { table in
                table.primaryKey("seq", .integer)
                table.column("at", .integer).notNull()
                table.column("actor", .text).notNull()
                table.column("transport", .text).notNull()
                table.column("peer", .text)
                table.column("type", .text).notNull().indexed()
                table.column("game_id", .text)
                table.column("player_id", .text).indexed()
                table.column("payload", .blob).notNull()
                table.column("request_id", .text)
                table.column("outcome", .text).notNull()
            }
        }
        migrator.registerMigration("v2-operators") { db in
            // Operator accounts (docs/SECURITY.md 3.10), beside the audit log that names them.
            try db.execute(
                sql: """
                    CREATE TABLE operator (name TEXT PRIMARY KEY, password_hash TEXT NOT NULL, role TEXT NOT NULL,
                        totp_secret TEXT, pending_totp_secret TEXT, last_totp_step INTEGER, created_at INTEGER NOT NULL,
                        last_login_at INTEGER)
                    """)
        }
        try migrator.migrate(database)
    }

    public func append(_ entry: AuditEntry) async throws -> Int64 {
        let payload = try WireCodec.encode(entry.payload)
        return try await database.write { db in
            try db.cachedStatement(
                sql: """
                    INSERT INTO audit (at, actor, transport, peer, type, game_id, player_id, payload, request_id, outcome)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """
            ).execute(arguments: [
                entry.at, entry.actor, entry.transport, entry.peer, entry.type, entry.gameId, entry.playerId, payload,
                entry.requestId, entry.outcome,
            ])
            return db.lastInsertedRowID
        }
    }

    public func entries(before: Int64, type: String?, playerId: String?, limit: Int) async throws -> [AuditEntry] {
        let rows = try await database.read { db in
            try Row.fetchAll(
                try db.cachedStatement(
                    sql: """
                        SELECT * FROM audit WHERE seq < ? AND (? IS NULL OR type = ?) AND (? IS NULL OR player_id = ?)
                        ORDER BY seq DESC LIMIT ?
                        """),
                arguments: [before, type, type, playerId, playerId, limit])
        }
        return try rows.map { row in
            AuditEntry(
                seq: row["seq"], at: row["at"], actor: row["actor"], transport: row["transport"], peer: row["peer"],
                type: row["type"],
                gameId: row["game_id"], playerId: row["player_id"],
                payload: try WireCodec.decode(JSONValue.self, from: row["payload"] as Data),
                requestId: row["request_id"],
                outcome: row["outcome"])
        }
    }
}

extension SQLiteAuditStore {
    public func pseudonymise(playerId: String, as pseudonym: String) async throws -> Int {
        try await database.write { db in
            let rows = try Row.fetchAll(
                db,
                sql: """
                    SELECT seq, actor, player_id, payload FROM audit
                    WHERE player_id = ?1 OR instr(actor, ?1) > 0 OR instr(CAST(payload AS TEXT), ?1) > 0
                    """, arguments: [playerId])
            let update = try db.cachedStatement(
                sql: "UPDATE audit SET actor = ?, player_id = ?, payload = ? WHERE seq = ?")
            for row in rows {
                let player: String? = row["player_id"]
                try update.execute(arguments: [
                    Pseudonyms.replacing(playerId, with: pseudonym, in: row["actor"] as String),
                    player.map { Pseudonyms.replacing(playerId, with: pseudonym, in: $0) },
                    Pseudonyms.replacing(playerId, with: pseudonym, in: row["payload"] as Data), row["seq"] as Int64,
                ])
            }
            return rows.count
        }
    }
}

extension SQLiteAuditStore: OperatorStore {
    public func insert(_ record: OperatorRecord) async throws -> Bool {
        try await database.write { db in
            try db.execute(
                sql: """
                    INSERT INTO operator (name, password_hash, role, totp_secret, pending_totp_secret, last_totp_step,
                        created_at, last_login_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING
                    """,
                arguments: [
                    record.name, record.passwordHash, record.role.rawValue, record.totpSecret,
                    record.pendingTOTPSecret, record.lastTOTPStep, record.createdAt, record.lastLoginAt,
                ])
            return db.changesCount > 0
        }
    }

    public func record(named name: String) async throws -> OperatorRecord? {
        try await database.read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM operator WHERE name = ?", arguments: [name]).flatMap(
                Self.operatorRecord)
        }
    }

    public func records() async throws -> [OperatorRecord] {
        try await database.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM operator ORDER BY name").compactMap(Self.operatorRecord)
        }
    }

    public func update(_ record: OperatorRecord) async throws -> Bool {
        try await database.write { db in
            try db.execute(
                sql: """
                    UPDATE operator SET password_hash = ?, role = ?, totp_secret = ?, pending_totp_secret = ?,
                        last_totp_step = ?, last_login_at = ? WHERE name = ?
                    """,
                arguments: [
                    record.passwordHash, record.role.rawValue, record.totpSecret, record.pendingTOTPSecret,
                    record.lastTOTPStep, record.lastLoginAt, record.name,
                ])
            return db.changesCount > 0
        }
    }

    public func remove(named name: String) async throws -> Bool {
        try await database.write { db in
            try db.execute(sql: "DELETE FROM operator WHERE name = ?", arguments: [name])
            return db.changesCount > 0
        }
    }

    public func claimTOTPStep(name: String, step: Int64, at time: Int64) async throws -> Bool {
        try await database.write { db in
            try db.execute(
                sql: """
                    UPDATE operator SET last_totp_step = ?, last_login_at = ?
                    WHERE name = ? AND (last_totp_step IS NULL OR last_totp_step < ?)
                    """, arguments: [step, time, name, step])
            return db.changesCount > 0
        }
    }

    private static func operatorRecord(_ row: Row) -> OperatorRecord? {
        guard let role = OperatorRole(rawValue: row["role"]) else { return nil }
        return OperatorRecord(
            name: row["name"], passwordHash: row["password_hash"], role: role, totpSecret: row["totp_secret"],
            pendingTOTPSecret: row["pending_totp_secret"], lastTOTPStep: row["last_totp_step"],
            createdAt: row["created_at"], lastLoginAt: row["last_login_at"])
    }
}

extension GatewayStorage {
    /// The gateway's SQLite files under the data directory: `gateway-events.sqlite`, `gateway-audit.sqlite`.
    public static let sqlite: GatewayStorageOpener = { settings in
        GatewayStorage(
            eventLog: try SQLiteEventLogStore(
                path: StorageLocation.database(for: "gateway-events", in: settings.dataDirectory)),
            audit: try SQLiteAuditStore(
                path: StorageLocation.database(for: "gateway-audit", in: settings.dataDirectory)))
    }
}
