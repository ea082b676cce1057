import Foundation
import GatewaySQLite
import PodiumMessages
import Testing

@testable import Gateway

/// The audit log on a real SQLite file: appended in order, read newest first with filters and
/// pages, secrets never stored, the admin key never named.
@Suite("Audit log")
struct AuditLogTests {
    static func log() throws -> AuditLog {
        AuditLog(
            store: try SQLiteAuditStore(
                path: FileManager.default.temporaryDirectory.appendingPathComponent(
                    "podium-audit-\(UUID().uuidString).sqlite")))
    }

    static func entry(_ type: String, player: String? = nil, payload: JSONValue = .object([:]), outcome: String = "ok")
        -> AuditEntry
    {
        AuditEntry(
            seq: 0, at: 1000, actor: "admin:0badc0de", transport: "http", peer: "127.0.0.1:1", type: type,
            gameId: "dash",
            playerId: player, payload: payload, requestId: UUID().uuidString, outcome: outcome)
    }

    @Test("entries are numbered in order and read back newest first, filtered and paged without repeats")
    func pages() async throws {
        let log = try Self.log()
        for index in 0..<7 {
            let seq = try await log.append(
                Self.entry(
                    index % 2 == 0 ? "auth.admin.ban" : "leaderboard.admin.reset", player: index < 3 ? "p1" : "p2"))
            #expect(seq == Int64(index + 1))
        }
        let all = try await log.page(AuditQuery())
        #expect(all.entries.map(\.seq) == [7, 6, 5, 4, 3, 2, 1])
        #expect(all.next == nil)
        var seen: [Int64] = []
        var before: Int64?
        repeat {
            let page = try await log.page(AuditQuery(before: before, limit: 3))
            seen += page.entries.map(\.seq)
            before = page.next
        } while before != nil
        #expect(seen == [7, 6, 5, 4, 3, 2, 1])
        #expect(try await log.page(AuditQuery(type: "auth.admin.ban")).entries.map(\.seq) == [7, 5, 3, 1])
        #expect(try await log.page(AuditQuery(playerId: "p1")).entries.map(\.seq) == [3, 2, 1])
        let stored = try await log.page(AuditQuery(limit: 1)).entries[0]
        #expect(
            stored.actor == "admin:0badc0de" && stored.transport == "http" && stored.outcome == "ok"
                && stored.gameId == "dash")
    }

    @Test("limits outside 1-200 and a before below 1 are invalid_field")
    func badQueries() async throws {
        let log = try Self.log()
        for query in [AuditQuery(limit: 0), AuditQuery(limit: 201), AuditQuery(before: 0)] {
            do {
                _ = try await log.page(query)
                Issue.record("\(query) was accepted")
            } catch let error as ErrorReply {
                #expect(error.code == .invalidField)
            }
        }
    }

    @Test("members named like secrets are stored as ***, at any depth")
    func redaction() {
        let payload: JSONValue = .object([
            "password": "hunter2", "reason": "cheating",
            "nested": .object([
                "refreshToken": "r", "adminKey": "k", "list": .array([.object(["token": "t", "value": 3])]),
            ]),
        ])
        let redacted = AuditLog.redacted(payload)
        #expect(redacted["password"] == .string("***"))
        #expect(redacted["reason"] == .string("cheating"))
        #expect(redacted["nested"]?["refreshToken"] == .string("***"))
        #expect(redacted["nested"]?["adminKey"] == .string("***"))
        #expect(redacted["nested"]?["list"] == .array([.object(["token": "***", "value": 3])]))
    }

    @Test("the actor names the admin key by 8 hex digits of its hash, never the key itself")
    func actor() {
        let key = "admin-key-0123456789abcdef0123456789abcdef"
        let request = ClientRequest(type: "auth.admin.ban", id: "r1", adminKey: key)
        let actor = AuditLog.actor(of: request)
        #expect(actor.hasPrefix("admin:") && actor.count == 14 && !actor.contains(key))
        #expect(actor.dropFirst(6).allSatisfy { $0.isHexDigit })
        #expect(AuditLog.actor(of: ClientRequest(type: "x", id: "r2", token: "t")) == "player")
        #expect(AuditLog.actor(of: ClientRequest(type: "x", id: "r3")) == "anonymous")
    }
}
