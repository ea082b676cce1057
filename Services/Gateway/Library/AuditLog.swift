import Crypto
import Foundation
import GRDB
import PodiumMessages
import PodiumRuntime

/// The gateway's append-only audit log (`gateway-audit.sqlite`): one entry for every operator
/// request it answers, written before the reply goes out (docs/PROTOCOL.md 22.7). Entries are
/// never changed or removed; `admin.audit` reads them, newest first.
final class AuditLog: Sendable {
    let location: URL
    private let database: DatabasePool

    init(path: URL) throws {
        database = try DurableDatabase.open(at: path)
        location = path
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
        try migrator.migrate(database)
    }

    /// Appends an entry (its `seq` is assigned here) and returns its sequence number.
    @discardableResult
    func append(_ entry: AuditEntry) async throws -> Int64 {
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

    /// A page of entries, newest first.
    func page(_ query: AuditQuery) async throws -> AuditPage {
        let limit = query.limit ?? 50
        guard (1...200).contains(limit) else {
            throw ErrorReply(code: .invalidField, message: "limit is 1-200", field: "payload.limit")
        }
        if let before = query.before, before < 1 {
            throw ErrorReply(code: .invalidField, message: "before is a sequence number, 1 or more", field: "payload.before")
        }
        var conditions = ["seq < ?"]
        var arguments: [(any DatabaseValueConvertible)?] = [query.before ?? Int64.max]
        if let type = query.type {
            conditions.append("type = ?")
            arguments.append(type)
        }
        if let playerId = query.playerId {
            conditions.append("player_id = ?")
            arguments.append(playerId)
        }
        arguments.append(limit + 1)
        let sql = "SELECT * FROM audit WHERE \(conditions.joined(separator: " AND ")) ORDER BY seq DESC LIMIT ?"
        let rows = try await database.read { [arguments] db in
            try Row.fetchAll(db, sql: sql, arguments: StatementArguments(arguments) ?? [])
        }
        let entries = try rows.prefix(limit).map { row in
            AuditEntry(
                seq: row["seq"], at: row["at"], actor: row["actor"], transport: row["transport"], peer: row["peer"], type: row["type"],
                gameId: row["game_id"], playerId: row["player_id"],
                payload: try WireCodec.decode(JSONValue.self, from: row["payload"] as Data), requestId: row["request_id"],
                outcome: row["outcome"])
        }
        return AuditPage(entries: entries, next: rows.count > limit ? entries.last?.seq : nil)
    }

    /// Who sent a request, as the audit log names them: the admin key by the first 8 hex digits
    /// of its SHA-256 (never the key), else the kind of credential.
    static func actor(of request: ClientRequest) -> String {
        if let key = request.adminKey {
            let digest = SHA256.hash(data: Data(key.utf8))
            return "admin:" + digest.prefix(4).map { String(format: "%02x", $0) }.joined()
        }
        if request.serverKey != nil { return "server:\(request.gameId ?? "-")" }
        if request.token != nil { return "player" }
        return "anonymous"
    }

    /// The payload with members named like secrets replaced by "***", at any depth.
    static func redacted(_ value: JSONValue) -> JSONValue {
        switch value {
        case .object(let members):
            var result: [String: JSONValue] = [:]
            for (name, member) in members {
                result[name] = isSecret(name) ? .string("***") : redacted(member)
            }
            return .object(result)
        case .array(let items):
            return .array(items.map(redacted))
        default:
            return value
        }
    }

    private static func isSecret(_ name: String) -> Bool {
        let lowered = name.lowercased()
        return ["password", "token", "refreshtoken", "sessiontoken", "secret", "key"].contains(lowered)
            || lowered.hasSuffix("key") || lowered.hasSuffix("password") || lowered.hasSuffix("token") || lowered.hasSuffix("secret")
    }
}
