import Foundation
import GRDB
import PodiumMessages

/// Receipts of state-changing requests, keyed by the client's request id: a resend returns the
/// original answer and applies nothing twice, across restarts (the receipt is written in the
/// same transaction as the change).
///
/// Ids are scoped per game and player (``scope(gameId:playerId:)``); an id sent again with a
/// different payload is refused with `id_reused`.
public enum RequestReceipts {
    /// The scope of a request id: one game, one player.
    public static func scope(gameId: String?, playerId: String) -> String {
        "\(gameId ?? "")/\(playerId)"
    }

    /// A short, stable digest of a payload (FNV-1a 64 over its canonical JSON: sorted keys).
    public static func fingerprint(of payload: JSONValue) -> String {
        let bytes = (try? WireCodec.encode(payload)) ?? Data()
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            hash ^= UInt64(byte)
            hash &*= 0x100_0000_01b3
        }
        return String(hash, radix: 16) + "-\(bytes.count)"
    }

    /// The stored answer for a resend, nil for a new id; throws `id_reused` if the id came with
    /// another payload.
    public static func replay(_ db: Database, _ key: RequestKey) throws -> JSONValue? {
        guard let row = try Row.fetchOne(
            try db.cachedStatement(sql: "SELECT fingerprint, reply FROM podium_receipt WHERE scope = ? AND request_id = ?"),
            arguments: [key.scope, key.requestId])
        else { return nil }
        guard row["fingerprint"] as String == key.fingerprint else { throw reused(key.requestId) }
        return try WireCodec.decode(JSONValue.self, from: Data((row["reply"] as String).utf8))
    }

    /// The refusal of an id already used for a different request.
    public static func reused(_ requestId: String) -> ErrorReply {
        ErrorReply(
            code: .idReused,
            message: "request id '\(requestId)' was already used for a different request; choose a new id for new requests",
            field: "id")
    }

    /// The stored answer for an id, whatever the payload (for `receipt.get`).
    public static func find(_ db: Database, scope: String, requestId: String) throws -> StoredReply {
        guard let row = try Row.fetchOne(
            try db.cachedStatement(sql: "SELECT request_type, reply FROM podium_receipt WHERE scope = ? AND request_id = ?"), arguments: [scope, requestId])
        else { return StoredReply(found: false, reply: nil) }
        let reply = try WireCodec.decode(JSONValue.self, from: Data((row["reply"] as String).utf8))
        return StoredReply(found: true, type: row["request_type"], reply: reply)
    }

    /// Stores an answer inside the caller's transaction.
    public static func record(_ db: Database, _ key: RequestKey, reply: JSONValue, at time: Int64) throws {
        try db.cachedStatement(
            sql: "INSERT INTO podium_receipt (scope, request_id, request_type, fingerprint, reply, created_at) VALUES (?, ?, ?, ?, ?, ?)").execute(arguments: [
                key.scope, key.requestId, key.requestType, key.fingerprint, String(decoding: try WireCodec.encode(reply), as: UTF8.self), time,
            ])
    }
}

/// The idempotency key of a request a service received through the gateway.
public struct RequestKey: Sendable, Equatable {
    public var scope: String
    public var requestId: String
    public var fingerprint: String
    /// The request's type (`leaderboard.submit`, `challenge.start`, …), kept with its receipt.
    public var requestType: String

    /// The client's request id (the gateway forwards it as `correlationId`), scoped to the game and
    /// the player the request acts for; nil when the request has no client id.
    public init?(_ request: RawEnvelope, playerId: String) {
        guard let id = request.correlationId, Identifiers.isValidRequestID(id) else { return nil }
        scope = RequestReceipts.scope(gameId: request.gameId, playerId: playerId)
        requestId = id
        fingerprint = RequestReceipts.fingerprint(of: request.payload)
        requestType = request.type.rawValue
    }
}
