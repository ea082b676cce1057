import Crypto
import Foundation
import PodiumMessages
import PodiumRuntime
import PodiumTokens

/// Operator accounts (docs/PROTOCOL.md 22.11, docs/SECURITY.md 3.10): made and changed with the
/// admin key (the CLI) or by an administrator, logging in to the console with a password and,
/// once enrolled, a TOTP code. The shared admin key stays for automation.
final class Operators: Sendable {
    let store: any OperatorStore
    let hasher: PasswordHasher
    let clock: any PodiumClock

    init(store: any OperatorStore, hasher: PasswordHasher, clock: any PodiumClock) {
        self.store = store
        self.hasher = hasher
        self.clock = clock
    }

    /// A name: 3-32 characters, lower-case letters, digits, `.`, `_` and `-`.
    static func validName(_ name: String) throws(ErrorReply) -> String {
        let allowed = Set("abcdefghijklmnopqrstuvwxyz0123456789._-")
        guard (3...32).contains(name.count), name.allSatisfy(allowed.contains) else {
            throw ErrorReply(
                code: .invalidField, message: "an operator's name has 3-32 of a-z, 0-9, '.', '_' and '-'",
                field: "payload.name")
        }
        return name
    }

    /// A password: 12-256 characters.
    static func checkPassword(_ password: String) throws(ErrorReply) {
        guard (12...256).contains(password.count) else {
            throw ErrorReply(
                code: .invalidPassword, message: "an operator's password has 12-256 characters",
                field: "payload.password")
        }
    }

    private static func unknown(_ name: String) -> ErrorReply {
        ErrorReply(code: .unknownOperator, message: "no operator is named '\(name)'", field: "payload.name")
    }

    private func existing(_ name: String) async throws -> OperatorRecord {
        guard let record = try await store.record(named: try Self.validName(name)) else { throw Self.unknown(name) }
        return record
    }

    func create(_ creation: OperatorCreation) async throws -> OperatorAccount {
        let name = try Self.validName(creation.name)
        try Self.checkPassword(creation.password)
        let record = OperatorRecord(
            name: name, passwordHash: try await hasher.hash(creation.password), role: creation.role,
            createdAt: clock.nowMilliseconds)
        guard try await store.insert(record) else {
            throw ErrorReply(code: .conflict, message: "an operator is already named '\(name)'", field: "payload.name")
        }
        return record.account
    }

    func update(_ update: OperatorUpdate) async throws -> OperatorAccount {
        guard update.password != nil || update.role != nil else {
            throw ErrorReply(code: .missingField, message: "give a new password, a new role or both", field: "payload")
        }
        var record = try await existing(update.name)
        if let password = update.password {
            try Self.checkPassword(password)
            record.passwordHash = try await hasher.hash(password)
        }
        if let role = update.role { record.role = role }
        guard try await store.update(record) else { throw Self.unknown(update.name) }
        return record.account
    }

    func list() async throws -> OperatorList {
        OperatorList(operators: try await store.records().map(\.account))
    }

    func remove(_ target: OperatorTarget) async throws -> OperatorRemoval {
        OperatorRemoval(name: target.name, removed: try await store.remove(named: try Self.validName(target.name)))
    }

    /// A new secret, pending until a code made from it is confirmed (the operator's app then
    /// holds it); an enrolled secret stays in force meanwhile.
    func beginTOTP(_ target: OperatorTarget) async throws -> TOTPEnrollment {
        var record = try await existing(target.name)
        let totp = TOTP.random()
        record.pendingTOTPSecret = totp.base32
        guard try await store.update(record) else { throw Self.unknown(target.name) }
        return TOTPEnrollment(name: record.name, secret: totp.base32, uri: totp.uri(account: record.name))
    }

    func confirmTOTP(_ confirmation: TOTPConfirmation) async throws -> OperatorAccount {
        var record = try await existing(confirmation.name)
        guard let pending = record.pendingTOTPSecret, let secret = Base32.decode(pending) else {
            throw ErrorReply(
                code: .conflict, message: "no second factor is being set up: begin with admin.operators.totp-begin")
        }
        guard
            let step = TOTP(secret: secret).matchingStep(
                confirmation.code, at: clock.nowMilliseconds, after: nil)
        else {
            throw ErrorReply(
                code: .invalidCredentials, message: "that code does not match the new secret", field: "payload.code")
        }
        record.totpSecret = pending
        record.pendingTOTPSecret = nil
        record.lastTOTPStep = step
        guard try await store.update(record) else { throw Self.unknown(confirmation.name) }
        return record.account
    }

    func removeTOTP(_ target: OperatorTarget) async throws -> OperatorAccount {
        var record = try await existing(target.name)
        record.totpSecret = nil
        record.pendingTOTPSecret = nil
        record.lastTOTPStep = nil
        guard try await store.update(record) else { throw Self.unknown(target.name) }
        return record.account
    }

    /// How a console login with a name and password ended.
    enum Login: Sendable, Equatable {
        case accepted(ConsoleOperator)
        /// Unknown name or wrong password (never told apart to the one logging in);
        /// `knownName`: the name is an account's (the audit log may name it).
        case refused(knownName: Bool)
        /// The password was right and the account has a second factor: a code is needed.
        case codeNeeded
        /// The password was right, the code was not (or was used already).
        case wrongCode
    }

    /// Checks a console login. An unknown name costs the same hashing as a known one.
    func logIn(name: String, password: String, code: String?) async throws -> Login {
        guard let stored = try? await store.record(named: try Self.validName(name)) else {
            _ = try await hasher.verify(password, against: try await decoy())
            return .refused(knownName: false)
        }
        guard try await hasher.verify(password, against: stored.passwordHash) else { return .refused(knownName: true) }
        let now = clock.nowMilliseconds
        if let secretText = stored.totpSecret, let secret = Base32.decode(secretText) {
            guard let code, !code.isEmpty else { return .codeNeeded }
            guard let step = TOTP(secret: secret).matchingStep(code, at: now, after: stored.lastTOTPStep),
                try await store.claimTOTPStep(name: stored.name, step: step, at: now)
            else { return .wrongCode }
        } else {
            var updated = stored
            updated.lastLoginAt = now
            _ = try await store.update(updated)
        }
        return .accepted(Self.sessionOperator(stored))
    }

    /// Whether `password` is the operator's (asked again before an operator changes their own
    /// password in the console).
    func verifyPassword(name: String, password: String) async throws -> Bool {
        guard let stored = try? await store.record(named: try Self.validName(name)) else { return false }
        return try await hasher.verify(password, against: stored.passwordHash)
    }

    /// The operator account as it is now, as a console session's operator (nil when removed).
    func current(_ name: String) async -> ConsoleOperator? {
        guard let record = try? await store.record(named: name) else { return nil }
        return Self.sessionOperator(record)
    }

    /// An account as a console session holds it: name, role and the stamp of its credentials.
    static func sessionOperator(_ record: OperatorRecord) -> ConsoleOperator {
        ConsoleOperator(name: record.name, role: record.role, stamp: stamp(record))
    }

    /// What a console session's operator must still match: the role, the password and the second
    /// factor as they were at login (a change or a removal ends the operator's sessions).
    static func stamp(_ record: OperatorRecord) -> String {
        let material = "\(record.role.rawValue)\u{0}\(record.passwordHash)\u{0}\(record.totpSecret ?? "")"
        return SHA256.hash(data: Data(material.utf8)).prefix(16).map { String(format: "%02x", $0) }.joined()
    }

    /// Whether a console session's operator is still as at login (read from the store: every
    /// gateway sees a change made through any of them).
    func isCurrent(_ person: ConsoleOperator) async -> Bool {
        await current(person.name)?.stamp == person.stamp
    }

    /// A hash checked for unknown names.
    private func decoy() async throws -> String {
        if let hash = decoyHash.value { return hash }
        let hash = try await hasher.hash(UUID().uuidString)
        decoyHash.withLock { $0 = hash }
        return hash
    }
    private let decoyHash = Locked<String?>(nil)

    /// Answers one of the `admin.operators.*` requests.
    func answer(_ request: ClientRequest) async throws -> JSONValue {
        func payload<Payload: Decodable>(_ type: Payload.Type) throws -> Payload {
            try RequestDecoder.payload(request.payload, as: type)
        }
        switch request.type {
        case GatewayRequests.createOperator.type:
            return try WireCodec.jsonValue(try await create(try payload(OperatorCreation.self)))
        case GatewayRequests.updateOperator.type:
            return try WireCodec.jsonValue(try await update(try payload(OperatorUpdate.self)))
        case GatewayRequests.listOperators.type:
            return try WireCodec.jsonValue(try await list())
        case GatewayRequests.removeOperator.type:
            return try WireCodec.jsonValue(try await remove(try payload(OperatorTarget.self)))
        case GatewayRequests.beginTOTP.type:
            return try WireCodec.jsonValue(try await beginTOTP(try payload(OperatorTarget.self)))
        case GatewayRequests.confirmTOTP.type:
            return try WireCodec.jsonValue(try await confirmTOTP(try payload(TOTPConfirmation.self)))
        case GatewayRequests.removeTOTP.type:
            return try WireCodec.jsonValue(try await removeTOTP(try payload(OperatorTarget.self)))
        default:
            throw ErrorReply(code: .unknownType, message: "not an operator-account request")
        }
    }
}
