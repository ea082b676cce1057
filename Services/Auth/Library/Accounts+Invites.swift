import PodiumMessages
import PodiumRuntime

/// Invite codes: a player's own friend codes, and codes other services issue for their
/// purposes (a challenge to join), resolved here so that guessing is counted in one place.
extension Accounts {
    /// The one answer for a code that does not exist, does not fit, or may not be used by this
    /// player: none of them tells anything about the code's owner.
    static let noSuchInvite = ErrorReply(
        code: .unknownInvite, message: "no invite code like that works", field: "payload.code")

    /// `auth.invites.create`: a friend code of the player's own.
    func createInvite(_ request: InviteRequest, playerId: String, requestId: String) async throws -> Invite {
        try await issue(
            InviteIssue(
                ownerId: playerId, purpose: .friend, challengeId: nil, gameId: nil,
                expiresInMilliseconds: request.expiresInMilliseconds, requestId: requestId))
    }

    /// A new code for its owner (drawn again in the unlikely case the code is taken).
    func issue(_ issue: InviteIssue) async throws -> Invite {
        let lifetime = try InviteRules.lifetime(issue.expiresInMilliseconds)
        let now = clock.nowMilliseconds
        if let requestId = issue.requestId {
            guard Identifiers.isValidRequestID(requestId) else {
                throw ErrorReply(
                    code: .invalidField, message: "requestId is a request id", field: "payload.requestId")
            }
            // A resend of the request that made a code: that code again, as it was made.
            if let made = try await store.invite(ownerId: issue.ownerId, requestId: requestId) { return made }
        }
        guard try await store.account(playerId: issue.ownerId) != nil else {
            throw ErrorReply(code: .unknownPlayer, message: "no player \(issue.ownerId)", field: "payload.ownerId")
        }
        guard try await store.invites(ownerId: issue.ownerId, now: now).count < InviteRules.maximumLive else {
            throw ErrorReply(
                code: .conflict,
                message: "you have \(InviteRules.maximumLive) invite codes that still work; revoke one first")
        }
        for _ in 0..<8 {
            let invite = Invite(
                code: InviteCode.random().description, purpose: issue.purpose, challengeId: issue.challengeId,
                gameId: issue.gameId,
                createdAt: now, expiresAt: now + lifetime)
            if try await store.createInvite(invite, ownerId: issue.ownerId, requestId: issue.requestId) {
                return invite
            }
            // Another instance stored a code for the same request meanwhile.
            if let requestId = issue.requestId,
                let made = try await store.invite(ownerId: issue.ownerId, requestId: requestId)
            {
                return made
            }
        }
        throw ErrorReply(code: .internalError, message: "no free invite code was found")
    }

    /// `auth.invites.revoke`: only the owner's own codes (any other: `unknown_invite`).
    func revokeInvite(_ entry: InviteEntry, playerId: String) async throws -> InviteRevocation {
        let code = try InviteRules.entered(entry.code)
        guard
            let revoked = try await store.revokeInvite(
                code: code.description, ownerId: playerId, now: clock.nowMilliseconds)
        else {
            throw ErrorReply(code: .unknownInvite, message: "you have no invite code \(code)", field: "payload.code")
        }
        return InviteRevocation(code: code.description, revoked: revoked)
    }

    /// Finds the code a player entered: a wrong one counts towards the guessing limits; one that
    /// no longer works says why; one that works counts a use.
    func resolve(_ resolution: InviteResolution, context: ServiceContext) async throws -> (
        invite: Invite, ownerId: String
    ) {
        let now = clock.nowMilliseconds
        let address = Self.loginAddress(resolution.address)
        if let wait = try await inviteGuessingWait(player: resolution.playerId, address: address, now: now) {
            context.logger.warning(
                "invite code guessing throttled",
                metadata: ["player.id": "\(resolution.playerId)", "peer": "\(address)"])
            throw ErrorReply(
                code: .rateLimited, message: "too many wrong invite codes; try again in \((wait + 999) / 1000) s",
                retryAfterMilliseconds: wait)
        }
        guard let code = InviteCode(entered: resolution.code),
            let found = try await store.invite(code: code.description)
        else {
            try await recordWrongCode(player: resolution.playerId, address: address, now: now)
            context.logger.info(
                "unknown invite code entered", metadata: ["player.id": "\(resolution.playerId)", "peer": "\(address)"])
            throw Self.noSuchInvite
        }
        try InviteRules.check(found.invite, now: now)
        guard found.ownerId != resolution.playerId else {
            throw ErrorReply(code: .invalidField, message: "this is your own invite code", field: "payload.code")
        }
        try await store.useInvite(code: code.description, playerId: resolution.playerId, entryId: resolution.entryId)
        return found
    }

    /// `auth.invites.redeem`: a friend code sends its owner a friend request (or makes friends
    /// when the owner had asked first), with the same news as `auth.friends.request`.
    func redeem(_ entry: InviteEntry, playerId: String, request: RawEnvelope, context: ServiceContext) async throws
        -> FriendRelation
    {
        let peer = request.actor?.peer
        let found = try await resolve(
            InviteResolution(
                code: entry.code, playerId: playerId, address: peer, entryId: request.correlationId ?? request.id),
            context: context)
        guard found.invite.purpose == .friend else {
            throw ErrorReply(
                code: .conflict, message: "this code is for joining a challenge: enter it with challenge.join",
                field: "payload.code")
        }
        // A block between the two answers like a code that does not exist: whoever holds a code
        // learns nothing about a relation the owner did not share.
        if try await store.isBlocked(playerId, found.ownerId) { throw Self.noSuchInvite }
        let state = try await friends.request(
            from: playerId, to: found.ownerId, now: clock.nowMilliseconds, request: request, context: context)
        return FriendRelation(playerId: found.ownerId, state: state)
    }
}

extension Accounts {
    /// How long a player (or their address) must wait before entering another invite code: as
    /// this instance counts, or as every instance does (the shared marks).
    func inviteGuessingWait(player: String, address: String, now: Int64) async throws -> Int64? {
        guard let throttles else {
            return inviteGuessing.withLock { $0.retryAfter(player: player, address: address, now: now) }
        }
        let window = InviteGuessing().windowMilliseconds
        var counts = InviteGuessing(
            marks: try await throttles.marks(
                [.invitePlayer, .inviteAddress], account: player, address: address, since: now - window))
        return counts.retryAfter(player: player, address: address, now: now)
    }

    func recordWrongCode(player: String, address: String, now: Int64) async throws {
        guard let throttles else {
            inviteGuessing.withLock { $0.recordWrong(player: player, address: address, now: now) }
            return
        }
        try await throttles.add(
            InviteGuessing.wrongMarks(player: player, address: address, now: now),
            forgetBefore: now - InviteGuessing().windowMilliseconds,
            forgetKnownBefore: now - configuration.loginLimits.knownMilliseconds)
    }
}
