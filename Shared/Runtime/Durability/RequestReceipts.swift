import Foundation
import PodiumMessages

/// Receipts of state-changing requests, keyed by the client's request id: a resend returns the
/// original answer and applies nothing twice, across restarts (the receipt is written in the
/// same transaction as the change; see ``DurableWrites``).
///
/// Ids are scoped per game and player (``scope(gameId:playerId:)``); an id sent again with a
/// different payload is refused with `id_reused`. Each storage adapter keeps the receipts in its
/// own tables; the rules are here.
public enum RequestReceipts {
    /// The scope of a request id: one game, one player.
    public static func scope(gameId: String?, playerId: String) -> String {
        "\(gameId ?? "")/\(playerId)"
    }

    /// A short, stable digest of a payload (FNV-1a 64 over its canonical JSON: sorted keys).
    public static func fingerprint(of payload: JSONValue) -> String {
        fingerprint(ofText: (try? WireCodec.encode(payload)) ?? Data())
    }

    /// The digest of a payload's JSON text as the wire writes it (what ``fingerprint(of:)`` digests).
    public static func fingerprint(ofText bytes: Data) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        bytes.withUnsafeBytes { raw in
            for byte in raw {
                hash ^= UInt64(byte)
                hash &*= 0x100_0000_01b3
            }
        }
        return String(hash, radix: 16) + "-\(bytes.count)"
    }

    /// The refusal of an id already used for a different request.
    public static func reused(_ requestId: String) -> ErrorReply {
        ErrorReply(
            code: .idReused,
            message:
                "request id '\(requestId)' was already used for a different request; choose a new id for new requests",
            field: "id")
    }

    /// What a stored receipt means for a request with `key`: its stored answer for a resend with
    /// the same payload; `id_reused` for the same id with another payload.
    public static func replay(_ key: RequestKey, storedFingerprint: String, storedReply: JSONValue) throws -> JSONValue
    {
        guard storedFingerprint == key.fingerprint else { throw reused(key.requestId) }
        return storedReply
    }
}

/// The idempotency key of a request a service received through the gateway.
public struct RequestKey: Sendable, Equatable {
    public var scope: String
    public var requestId: String
    public var fingerprint: String
    /// The request's type (`leaderboard.submit`, `challenge.start`, …), kept with its receipt.
    public var requestType: String

    public init(scope: String, requestId: String, fingerprint: String, requestType: String) {
        self.scope = scope
        self.requestId = requestId
        self.fingerprint = fingerprint
        self.requestType = requestType
    }

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
