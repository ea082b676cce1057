import Foundation
import PodiumMessages
import PodiumRuntime

/// Deleting accounts (docs/PROTOCOL.md 8.14): the auth service removes the account in one
/// transaction with the `auth.account-deleted` message of its outbox; every other service erases
/// the player's data when it applies that message (exactly once, after a restart if it was down),
/// and the gateway pseudonymises its logs and tells auth (``pendingErasures()``, ``markErased(_:)``).
extension Accounts {
    /// The player deletes their own account: with their password when the account has one.
    /// A wrong password counts as a failed login of the account from the caller's address
    /// (``LoginGuard``), so a stolen session token cannot be used to guess it.
    func deleteOwnAccount(
        _ playerId: String, _ request: AccountDeletionRequest, peer: String?, context: ServiceContext
    ) async throws -> AccountDeletionReceipt {
        try Self.requireConfirmation(request.confirm)
        guard let account = try await store.account(playerId: playerId) else { throw AccountErrors.unknownPlayer }
        if let hash = account.passwordHash {
            guard let password = request.password, !password.isEmpty else {
                throw ErrorReply(
                    code: .missingField, message: "give the account's password to delete it",
                    field: "payload.password")
            }
            let key = Self.loginAccount(account.username ?? "")
            let address = Self.loginAddress(peer)
            let now = clock.nowMilliseconds
            if let refusal = try await loginRefusal(account: key, address: address, now: now) {
                let wait = refusal.retryAfterMilliseconds
                throw ErrorReply(
                    code: .rateLimited, message: "too many wrong passwords; try again in \((wait + 999) / 1000) s",
                    retryAfterMilliseconds: wait)
            }
            guard try await hasher.verify(password, against: hash) else {
                try await recordLoginFailure(account: key, address: address, now: now)
                context.logger.info("account deletion refused: wrong password", metadata: ["player.id": "\(playerId)"])
                throw ErrorReply(code: .invalidCredentials, message: "wrong password", field: "payload.password")
            }
        }
        return try await delete(account, context: context)
    }

    /// An operator deletes a player's account.
    func deleteAccount(_ order: AccountDeletionOrder, context: ServiceContext) async throws -> AccountDeletionReceipt {
        try Self.requireConfirmation(order.confirm)
        if let reason = order.reason, reason.isEmpty || reason.count > 500 {
            throw ErrorReply(code: .invalidField, message: "a reason has 1-500 characters", field: "payload.reason")
        }
        guard let account = try await store.account(playerId: order.playerId) else {
            throw AccountErrors.unknownPlayer
        }
        return try await delete(account, context: context)
    }

    private static func requireConfirmation(_ confirm: Bool?) throws {
        guard confirm == true else {
            throw ErrorReply(
                code: .confirmationRequired, message: "deleting an account cannot be undone: send confirm: true",
                field: "payload.confirm")
        }
    }

    private func delete(_ account: AccountRecord, context: ServiceContext) async throws -> AccountDeletionReceipt {
        let now = clock.nowMilliseconds
        let erasure = AccountErasure(
            playerId: account.playerId, pseudonym: "deleted-" + Self.newID(), deletedAt: now)
        let usernameKey = try account.username.map { try AccountRules.validUsername($0).key }
        let freeAt = usernameKey == nil ? nil : now + configuration.usernameQuarantineMilliseconds
        var writes = DurableWrites()
        try writes.appendToOutbox(
            Envelope(
                type: .accountDeleted, playerId: account.playerId, timestamp: now, payload: erasure),
            on: AccountErasure.topic(for: account.playerId))
        let deleted = try await store.deleteAccount(
            AccountDeletion(erasure: erasure, usernameKey: usernameKey, usernameFreeAt: freeAt, writes: writes))
        context.outboxChanged()
        context.logger.notice(
            "account deleted",
            metadata: [
                "player.id": "\(account.playerId)", "sessions": "\(deleted.sessionIds.count)",
                "devices": "\(deleted.devices)",
            ])
        await announceDeletion(playerId: account.playerId, sessionIds: deleted.sessionIds, context: context)
        return AccountDeletionReceipt(
            playerId: account.playerId, deletedAt: now, revokedSessions: deleted.sessionIds.count,
            sessionIds: deleted.sessionIds, unlinkedDevices: deleted.devices, usernameFreeAt: freeAt)
    }

    /// Deletions whose gateway logs are not yet pseudonymised.
    func pendingErasures() async throws -> PendingErasures {
        PendingErasures(erasures: try await store.pendingErasures(limit: 100))
    }

    /// The gateway pseudonymised its logs for a deleted player.
    func markErased(_ done: ErasureDone) async throws -> ErasureDoneReceipt {
        ErasureDoneReceipt(
            playerId: done.playerId,
            marked: try await store.markErased(playerId: done.playerId, now: clock.nowMilliseconds))
    }

    /// Refuses a username that a deleted account held until its quarantine ends.
    func refuseQuarantined(_ usernameKey: String) async throws {
        if try await store.isQuarantined(usernameKey: usernameKey, now: clock.nowMilliseconds) {
            throw AccountErrors.usernameTaken
        }
    }

    /// The player's part of an export (`auth.export`): profile, devices, live sessions, friends,
    /// invite codes and a ban in force.
    func export(_ target: ExportTarget) async throws -> AccountExport {
        let profile = try await profile(target.playerId)
        let now = clock.nowMilliseconds
        let ban = try await store.ban(playerId: target.playerId)
        return AccountExport(
            profile: profile, devices: try await store.devices(playerId: target.playerId),
            sessions: try await store.activeSessions(playerId: target.playerId, now: now),
            friends: try await store.friendList(playerId: target.playerId),
            invites: try await store.invites(ownerId: target.playerId, now: now),
            ban: BanRules.holds(ban, now: now) ? ban : nil)
    }

    /// Players by username or display-name prefix, or by id (`auth.admin.search`).
    func search(_ search: PlayerSearch) async throws -> PlayerSearchResult {
        let query = search.query.trimmingCharacters(in: .whitespaces)
        guard (1...64).contains(query.count) else {
            throw ErrorReply(code: .invalidField, message: "a search has 1-64 characters", field: "payload.query")
        }
        let limit = search.limit ?? 20
        guard (1...100).contains(limit) else {
            throw ErrorReply(code: .invalidField, message: "limit is 1-100", field: "payload.limit")
        }
        return PlayerSearchResult(players: try await store.searchPlayers(prefix: query.lowercased(), limit: limit))
    }
}
