import Crypto
import Foundation
import Logging
import PodiumMessages
import PodiumRuntime

/// The gateway's append-only audit log (kept by an ``AuditStore``): one entry for every operator
/// request it answers, written before the reply goes out (docs/PROTOCOL.md 22.7). Entries are
/// never changed or removed; `admin.audit` reads them, newest first.
final class AuditLog: Sendable {
    let store: any AuditStore
    /// Stamps entries with the time their request arrived.
    private let clock: any PodiumClock
    /// Says when an operator request could not be audited.
    private let logger: Logger

    init(
        store: any AuditStore, clock: any PodiumClock = SystemClock(), logger: Logger = Logger(label: "podium.gateway")
    ) {
        self.store = store
        self.clock = clock
        self.logger = logger
    }

    /// The connection, with its one reply written to the audit log before it goes out when the
    /// request turns out to be an operator's (`isOperator` is set once the admin key checked out;
    /// docs/PROTOCOL.md 22.7) and changes something (``isAudited(_:)``). Anything else, a wrong
    /// admin key included, is refused and changes nothing: the refusal is in the log, not the
    /// audit log.
    func recording(_ connection: ClientConnection, request: ClientRequest?, when isOperator: Locked<Bool>)
        -> ClientConnection
    {
        guard let request, request.adminKey != nil, Self.isAudited(request.type) else { return connection }
        let at = clock.nowMilliseconds
        // A console page acting for an operator account: the entry names the operator.
        let actor = ConsoleOperator.current?.actor ?? Self.actor(of: request)
        let payload = Self.redacted(request.payload ?? .object([:]))
        let target = request.playerId ?? request.payload?["playerId"]?.stringValue
        // A request with the admin key has its reply decoded (no `deliverEncoded`), so that the
        // audit entry can say how it ended.
        return ClientConnection(key: connection.key, peer: connection.peer) { [self] reply in
            guard isOperator.value else {
                await connection.deliver(reply)
                return
            }
            let outcome = reply.type == .error ? (reply.payload["code"]?.stringValue ?? "internal_error") : "ok"
            let entry = AuditEntry(
                seq: 0, at: at, actor: actor, transport: connection.key.transport.rawValue,
                peer: connection.peer, type: request.type.rawValue, gameId: request.gameId, playerId: target,
                payload: payload,
                requestId: request.id, outcome: outcome)
            do {
                try await append(entry)
            } catch {
                logger.error(
                    "operator request not audited", metadata: ["request.type": "\(request.type)", "error": "\(error)"])
            }
            await connection.deliver(reply)
        }
    }

    /// Appends an entry (its `seq` is assigned by the store) and returns its sequence number.
    @discardableResult
    func append(_ entry: AuditEntry) async throws -> Int64 {
        try await store.append(entry)
    }

    /// A page of entries, newest first.
    func page(_ query: AuditQuery) async throws -> AuditPage {
        let limit = query.limit ?? 50
        guard (1...200).contains(limit) else {
            throw ErrorReply(code: .invalidField, message: "limit is 1-200", field: "payload.limit")
        }
        if let before = query.before, before < 1 {
            throw ErrorReply(
                code: .invalidField, message: "before is a sequence number, 1 or more", field: "payload.before")
        }
        let rows = try await store.entries(
            before: query.before ?? Int64.max, type: query.type, playerId: query.playerId, limit: limit + 1)
        let entries = Array(rows.prefix(limit))
        return AuditPage(entries: entries, next: rows.count > limit ? entries.last?.seq : nil)
    }

    /// Whether an operator's request of `type` is audited: every change (by the request catalog;
    /// a type it does not know counts as one), and reading a player's whole data (an export).
    /// Other reads (pages, lists, look-ups, the audit log itself) are not: the log holds what
    /// operators changed and whose data they took.
    static func isAudited(_ type: MessageType) -> Bool {
        type == GatewayRequests.exportAccount.type || !OperatorPermissions.isRead(type)
    }

    /// Who sent a request, as the audit log names them: the admin key by the first 8 hex digits
    /// of its SHA-256 (never the key), else the kind of credential.
    static func actor(of request: ClientRequest) -> String {
        if let key = request.adminKey { return actor(adminKey: key) }
        if request.serverKey != nil { return "server:\(request.gameId ?? "-")" }
        if request.token != nil { return "player" }
        return "anonymous"
    }

    /// The admin key's name in the audit log: `admin:` and the first 8 hex digits of its SHA-256.
    static func actor(adminKey key: String) -> String {
        let digest = SHA256.hash(data: Data(key.utf8))
        return "admin:" + digest.prefix(4).map { String(format: "%02x", $0) }.joined()
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
            || lowered.hasSuffix("key") || lowered.hasSuffix("password") || lowered.hasSuffix("token")
            || lowered.hasSuffix("secret")
    }
}
