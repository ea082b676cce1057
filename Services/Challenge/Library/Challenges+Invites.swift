import PodiumMessages
import PodiumRuntime

/// Joining a time-boxed challenge with an invite code (docs/PROTOCOL.md 12.11): the auth
/// service keeps the codes and counts guesses; this service decides who may join what.
extension Challenges {
    /// The most participants a time-boxed challenge may have (the starter and 20 others).
    static let maximumParticipants = maximumReceivers + 1

    /// `challenge.invite`: a code for a running time-boxed challenge the player takes part in.
    func invite(_ request: RawEnvelope, _ invite: ChallengeInviteRequest, context: ServiceContext) async throws
        -> Invite
    {
        let (gameId, playerId) = try Self.player(request)
        guard let challenge = try await store.challenge(invite.challengeId), challenge.gameId == gameId,
            challenge.kind == .timed,
            challenge.receivers.contains(where: { $0.playerId == playerId })
        else {
            throw ErrorReply(
                code: .unknownChallenge, message: "no time-boxed challenge of yours with that id",
                field: "payload.challengeId")
        }
        guard challenge.state == .running else {
            throw ErrorReply(code: .conflict, message: "the challenge has ended", field: "payload.challengeId")
        }
        return try await context.call(
            AuthRequests.issueInvite,
            InviteIssue(
                ownerId: playerId, purpose: .challenge, challengeId: challenge.challengeId, gameId: gameId,
                expiresInMilliseconds: invite.expiresInMilliseconds, requestId: request.correlationId ?? request.id))
    }

    /// `challenge.join`: enters a code; the player joins its running time-boxed challenge, and
    /// whoever shared the code is told. Joining one already joined answers the challenge again.
    func join(_ request: RawEnvelope, _ entry: InviteEntry, context: ServiceContext) async throws -> ChallengeDetail {
        let (gameId, playerId) = try Self.player(request)
        let resolved = try await context.call(
            AuthRequests.resolveInvite,
            InviteResolution(
                code: entry.code, playerId: playerId, address: request.actor?.peer,
                entryId: request.correlationId ?? request.id))
        // A friend code, a code of another game or a block answer like a code that does not
        // exist: saying more would tell the player about someone who did not share it with them.
        let noSuchInvite = ErrorReply(
            code: .unknownInvite, message: "no invite code like that works", field: "payload.code")
        guard resolved.purpose == .challenge, resolved.gameId == gameId, let challengeId = resolved.challengeId
        else { throw noSuchInvite }
        let join = ChallengeJoin(
            challengeId: challengeId, playerId: playerId, ownerId: resolved.ownerId,
            cause: request.correlationId ?? request.id)
        // Another instance owns the challenge: it adds the player (its writes, its partition).
        if let partitioning, context.servedPartitions[partition(of: challengeId, partitioning)] == nil {
            return try await context.call(ChallengeRequests.joinChallenge, join, gameId: gameId, playerId: playerId)
        }
        return try await admit(join, gameId: gameId, context: context)
    }

    /// `challenge.join-challenge`, and the end of `challenge.join` at the challenge's owner: the
    /// player joins the running time-boxed challenge, and whoever shared the code is told.
    func admit(_ join: ChallengeJoin, gameId: String, context: ServiceContext) async throws -> ChallengeDetail {
        let (challengeId, playerId) = (join.challengeId, join.playerId)
        let noSuchInvite = ErrorReply(
            code: .unknownInvite, message: "no invite code like that works", field: "payload.code")
        guard let challenge = try await store.challenge(challengeId), challenge.gameId == gameId else {
            throw noSuchInvite
        }
        let resolved = (ownerId: join.ownerId, gameId: gameId)
        let relation = try await context.call(
            AuthRequests.friendCheck, FriendshipQuery(playerId: resolved.ownerId, otherPlayerId: playerId))
        guard !relation.blocked else { throw noSuchInvite }
        if challenge.receivers.contains(where: { $0.playerId == playerId }) { return challenge }
        guard challenge.state == .running else {
            throw ErrorReply(code: .conflict, message: "the challenge has ended", field: "payload.code")
        }
        guard challenge.receivers.count < Self.maximumParticipants else {
            throw ErrorReply(
                code: .conflict, message: "the challenge is full (\(Self.maximumParticipants) players)",
                field: "payload.code")
        }
        let now = clock.nowMilliseconds
        let note = InboxItems.challenge(
            kind: "challenge.joined", message: "\(playerId) joined your challenge with your code", challenge: challenge,
            at: now, extra: ["playerId": .string(playerId)], cause: join.cause)
        // Only the scores the player submits from now on count in the window.
        if try await store.join(
            challengeId: challengeId, playerId: playerId, at: now, inbox: [(gameId, resolved.ownerId, note)])
        {
            await inbox.publish(note, to: resolved.ownerId, gameId: gameId, context: context)
        }
        return try await store.challenge(challengeId) ?? challenge
    }
}
