import Foundation
import GatewaySQLite
import PodiumClient
import PodiumMessages
import PodiumRuntime
import PodiumTesting
import PodiumTokens
import Testing

@testable import Gateway

/// One-time codes (RFC 6238's own test vectors), the roles' permissions, and operator accounts
/// on a real SQLite file and through a real stack.
@Suite("Operator accounts")
struct OperatorAccountTests {
    /// RFC 6238 appendix B: the SHA-1 secret "12345678901234567890" (the codes' last six digits).
    @Test(
        "codes match RFC 6238's test vectors",
        arguments: [
            (Int64(59), "287082"), (1_111_111_109, "081804"), (1_111_111_111, "050471"),
            (1_234_567_890, "005924"), (2_000_000_000, "279037"), (20_000_000_000, "353130"),
        ])
    func rfcVectors(seconds: Int64, code: String) {
        let totp = TOTP(secret: Array("12345678901234567890".utf8))
        #expect(totp.code(step: TOTP.step(at: seconds * 1000)) == code)
    }

    @Test("a code is accepted one step either side, once, and nothing else is")
    func window() {
        let totp = TOTP(secret: Array("12345678901234567890".utf8))
        let now: Int64 = 1_111_111_111_000
        let step = TOTP.step(at: now)
        #expect(totp.matchingStep(totp.code(step: step), at: now, after: nil) == step)
        #expect(totp.matchingStep(totp.code(step: step - 1), at: now, after: nil) == step - 1)
        #expect(totp.matchingStep(totp.code(step: step + 1), at: now, after: nil) == step + 1)
        #expect(totp.matchingStep(totp.code(step: step - 2), at: now, after: nil) == nil)
        #expect(totp.matchingStep(totp.code(step: step), at: now, after: step) == nil)
        #expect(totp.matchingStep("12345", at: now, after: nil) == nil)
        #expect(totp.matchingStep("abcdef", at: now, after: nil) == nil)
        #expect(totp.matchingStep(" " + totp.code(step: step), at: now, after: nil) == step)
    }

    @Test("base32 follows RFC 4648's vectors and round-trips a secret")
    func base32() {
        #expect(Base32.encode(Array("foobar".utf8)) == "MZXW6YTBOI")
        #expect(Base32.encode(Array("f".utf8)) == "MY")
        #expect(Base32.decode("MZXW6YTBOI").map { String(decoding: $0, as: UTF8.self) } == "foobar")
        #expect(Base32.decode("mzxw 6ytb oi======").map { String(decoding: $0, as: UTF8.self) } == "foobar")
        #expect(Base32.decode("MZ1") == nil)
        let secret = TOTP.random()
        #expect(secret.base32.count == 32)
        #expect(Base32.decode(secret.base32) == secret.secret)
        #expect(secret.uri(account: "ops.anna").hasPrefix("otpauth://totp/Podium:ops.anna?secret=\(secret.base32)&"))
    }

    @Test("viewers read, moderators act on players, administrators do everything")
    func permissions() {
        let read = LeaderboardRequests.top.type
        let ban = AuthRequests.ban.type
        let delete = AuthRequests.adminDeleteAccount.type
        let define = LeaderboardRequests.define.type
        let export = GatewayRequests.exportAccount.type
        let operators = GatewayRequests.createOperator.type
        #expect(OperatorPermissions.permits(.viewer, read))
        #expect(OperatorPermissions.permits(.viewer, GatewayRequests.audit.type))
        #expect(!OperatorPermissions.permits(.viewer, ban))
        #expect(!OperatorPermissions.permits(.viewer, export))
        #expect(OperatorPermissions.permits(.moderator, ban))
        #expect(OperatorPermissions.permits(.moderator, export))
        #expect(OperatorPermissions.permits(.moderator, read))
        #expect(!OperatorPermissions.permits(.moderator, delete))
        #expect(!OperatorPermissions.permits(.moderator, define))
        #expect(!OperatorPermissions.permits(.moderator, operators))
        #expect(!OperatorPermissions.permits(.moderator, MessageType("made.up.change")))
        for type in [read, ban, delete, define, export, operators] {
            #expect(OperatorPermissions.permits(.administrator, type))
        }
        // The list of operator accounts is an administrator's read only.
        #expect(!OperatorPermissions.permits(.viewer, GatewayRequests.listOperators.type))
        #expect(!OperatorPermissions.permits(.moderator, GatewayRequests.listOperators.type))
        #expect(OperatorPermissions.permits(.administrator, GatewayRequests.listOperators.type))
    }

    @Test("every role may change its own password and second factor, never its role or another's account")
    func selfService() {
        let update = GatewayRequests.updateOperator.type
        func mine(_ fields: [String: JSONValue]) -> JSONValue { .object(fields) }
        #expect(
            OperatorPermissions.isSelfService(update, payload: mine(["name": "ann", "password": "x"]), operator: "ann"))
        #expect(
            OperatorPermissions.isSelfService(
                update, payload: mine(["name": "ann", "password": "x", "role": .null]), operator: "ann"))
        #expect(
            !OperatorPermissions.isSelfService(
                update, payload: mine(["name": "ann", "role": "administrator"]), operator: "ann"),
            "a viewer must not make itself an administrator")
        #expect(
            !OperatorPermissions.isSelfService(
                update, payload: mine(["name": "bob", "password": "x"]), operator: "ann"))
        for type in [GatewayRequests.beginTOTP.type, GatewayRequests.confirmTOTP.type] {
            #expect(OperatorPermissions.isSelfService(type, payload: mine(["name": "ann"]), operator: "ann"))
            #expect(!OperatorPermissions.isSelfService(type, payload: mine(["name": "bob"]), operator: "ann"))
        }
        #expect(
            !OperatorPermissions.isSelfService(
                GatewayRequests.removeTOTP.type, payload: mine(["name": "ann"]), operator: "ann"),
            "removing a second factor is an administrator's")
        #expect(
            !OperatorPermissions.isSelfService(
                GatewayRequests.removeOperator.type, payload: mine(["name": "ann"]), operator: "ann"))
        #expect(!OperatorPermissions.isSelfService(update, payload: nil, operator: "ann"))
    }

    /// A wall clock that moves only when the test says (codes depend on the time step).
    final class StoppedClock: PodiumClock {
        private let now = Locked<Int64>(1_700_000_000_000)
        var nowMilliseconds: Int64 { now.value }
        var monotonicMilliseconds: Int64 { SystemClock().monotonicMilliseconds }
        func sleep(for duration: Duration) async throws { try await Task.sleep(for: duration) }
        func advance(by duration: Duration) { now.withLock { $0 += duration.components.seconds * 1000 } }
    }

    static func operators() throws -> (Operators, StoppedClock) {
        let store = try SQLiteAuditStore(
            path: FileManager.default.temporaryDirectory.appendingPathComponent(
                "podium-operators-\(UUID().uuidString).sqlite"))
        let clock = StoppedClock()
        return (Operators(store: store, hasher: PasswordHasher(cost: .testing), clock: clock), clock)
    }

    @Test(
        "an account is made, logs in with its password, then only with a fresh code once a second factor is confirmed")
    func loginAndSecondFactor() async throws {
        let (operators, clock) = try Self.operators()
        let made = try await operators.create(
            OperatorCreation(name: "ops.anna", password: "a long operator password", role: .moderator))
        #expect(
            made
                == OperatorAccount(
                    name: "ops.anna", role: .moderator, totp: false, createdAt: clock.nowMilliseconds, lastLoginAt: nil)
        )
        #expect(
            try await errorCode {
                try await operators.create(
                    OperatorCreation(name: "ops.anna", password: "another long one!", role: .viewer))
            } == .conflict)
        #expect(
            try await errorCode {
                try await operators.create(
                    OperatorCreation(name: "Ops Anna", password: "a long operator password", role: .viewer))
            } == .invalidField)
        #expect(
            try await errorCode {
                try await operators.create(OperatorCreation(name: "ops.bob", password: "short", role: .viewer))
            } == .invalidPassword)
        #expect(
            try await operators.logIn(name: "ops.anna", password: "wrong password here", code: nil)
                == .refused(knownName: true))
        #expect(
            try await operators.logIn(name: "nobody", password: "a long operator password", code: nil)
                == .refused(knownName: false))
        #expect(
            try await operators.logIn(name: "ops.anna", password: "a long operator password", code: nil).acceptedRole
                == .moderator)

        // A second factor: pending until a code from its secret is confirmed.
        let enrollment = try await operators.beginTOTP(OperatorTarget(name: "ops.anna"))
        let totp = TOTP(secret: try #require(Base32.decode(enrollment.secret)))
        #expect(
            try await operators.logIn(name: "ops.anna", password: "a long operator password", code: nil).acceptedRole
                == .moderator)
        let wrong = try await errorCode {
            try await operators.confirmTOTP(TOTPConfirmation(name: "ops.anna", code: "000000"))
        }
        #expect(wrong == .invalidCredentials || totp.code(step: TOTP.step(at: clock.nowMilliseconds)) == "000000")
        let confirmed = try await operators.confirmTOTP(
            TOTPConfirmation(name: "ops.anna", code: totp.code(step: TOTP.step(at: clock.nowMilliseconds))))
        #expect(confirmed.totp)
        #expect(
            try await operators.logIn(name: "ops.anna", password: "a long operator password", code: nil) == .codeNeeded)
        // The confirming code was used: the same step's code is refused; the next step's works, once.
        let now = TOTP.step(at: clock.nowMilliseconds)
        #expect(
            try await operators.logIn(
                name: "ops.anna", password: "a long operator password", code: totp.code(step: now))
                == .wrongCode)
        clock.advance(by: .seconds(30))
        let next = totp.code(step: now + 1)
        #expect(
            try await operators.logIn(name: "ops.anna", password: "a long operator password", code: next).acceptedRole
                == .moderator)
        #expect(
            try await operators.logIn(name: "ops.anna", password: "a long operator password", code: next) == .wrongCode)
        // A wrong password with a right code is still refused.
        clock.advance(by: .seconds(30))
        #expect(
            try await operators.logIn(name: "ops.anna", password: "not the password!", code: totp.code(step: now + 2))
                == .refused(knownName: true))

        // Role and password changes; removal.
        let promoted = try await operators.update(
            OperatorUpdate(name: "ops.anna", password: "a brand new long password", role: .administrator))
        #expect(promoted.role == .administrator)
        #expect(
            try await operators.logIn(name: "ops.anna", password: "a long operator password", code: nil)
                == .refused(knownName: true))
        let off = try await operators.removeTOTP(OperatorTarget(name: "ops.anna"))
        #expect(!off.totp)
        #expect(
            try await operators.logIn(name: "ops.anna", password: "a brand new long password", code: nil).acceptedRole
                == .administrator)
        #expect(try await operators.list().operators.map(\.name) == ["ops.anna"])
        #expect(try await operators.remove(OperatorTarget(name: "ops.anna")).removed)
        #expect(!(try await operators.remove(OperatorTarget(name: "ops.anna")).removed))
        #expect(
            try await errorCode { try await operators.removeTOTP(OperatorTarget(name: "ops.anna")) } == .unknownOperator
        )
    }

    @Test("through a stack: made with the admin key over ZeroMQ; changes are audited, reads are not")
    func overTheStack() async throws {
        let admin = String(repeating: "o", count: 40)
        try await withPodiumStack(.init(adminKey: admin)) { stack in
            let client = try stack.client()
            client.use(.adminKey(admin))
            defer { Task { await client.close() } }
            let made = try await client.call(
                GatewayRequests.createOperator,
                OperatorCreation(name: "ops.ben", password: "ben's long password", role: .viewer))
            #expect(made.role == .viewer && !made.totp)
            #expect(try await client.call(GatewayRequests.listOperators).operators.map(\.name) == ["ops.ben"])
            let (player, grant) = try await stack.player("audited")
            defer { Task { await player.close() } }
            let asPlayer = try await errorCode { try await player.call(GatewayRequests.listOperators) }
            #expect(asPlayer == .forbidden)
            _ = try await client.call(AuthRequests.lookup, PlayerLookup(playerId: grant.playerId))
            _ = try await client.call(AuthRequests.ban, BanRequest(playerId: grant.playerId, reason: "audit test"))
            let entries = try await client.call(GatewayRequests.audit, AuditQuery(limit: 50)).entries
            let types = entries.map(\.type)
            #expect(types.contains("auth.admin.ban"))
            #expect(types.contains("admin.operators.create"))
            #expect(!types.contains("auth.admin.lookup"))
            #expect(!types.contains("admin.operators.list"))
            // The password is never stored in the audit log.
            let creation = try #require(entries.first { $0.type == "admin.operators.create" })
            #expect(creation.payload["password"] == "***")
        }
    }
}

extension Operators.Login {
    /// The role a login was accepted with, nil when it was not.
    var acceptedRole: OperatorRole? {
        if case .accepted(let person) = self { return person.role }
        return nil
    }
}
