import Foundation
import PodiumClient
import PodiumMessages
import PodiumTesting
import Testing

@testable import Auth

@Suite("Invite codes")
struct InviteCodeTests {
    @Test(
        "codes are ten characters without look-alikes, shown XXXXX-XXXXX, entered in any case with or without the hyphen"
    )
    func shape() throws {
        let code = InviteCode.random()
        #expect(code.description.count == 11 && code.description.dropFirst(5).first == "-")
        #expect(code.characters.allSatisfy { InviteCode.alphabet.contains($0) })
        #expect(!InviteCode.alphabet.contains { "01ILOU".contains($0) })
        #expect(InviteCode.alphabet.count == 30)
        #expect(InviteCode(entered: code.description.lowercased()) == code)
        #expect(InviteCode(entered: " " + code.characters.prefix(5) + " " + code.characters.suffix(5)) == code)
        for bad in [
            "", "ABCDE-FGHJ", "ABCDE-FGHJKM", "ABCDE-FGHJO", "ABCDE-FGHJ1", "ABCDE_FGHJK",
            String(repeating: "A", count: 100),
        ] {
            #expect(InviteCode(entered: bad) == nil, "\(bad)")
        }
        #expect(Set((0..<1000).map { _ in InviteCode.random() }).count == 1000)
    }

    @Test("a revoked code says revoked, an expired one expired, at the boundary too")
    func states() throws {
        let invite = Invite(code: "ABCDE-FGHJK", purpose: .friend, createdAt: 0, expiresAt: 1000)
        try InviteRules.check(invite, now: 999)
        #expect(
            throws: ErrorReply(
                code: .inviteExpired, message: "this invite code has expired; ask for a new one", field: "payload.code")
        ) {
            try InviteRules.check(invite, now: 1000)
        }
        var revoked = invite
        revoked.revokedAt = 10
        #expect(throws: ErrorReply.self) { try InviteRules.check(revoked, now: 5) }
        #expect(
            throws: ErrorReply(
                code: .invalidField, message: "expiresInMilliseconds must be 1 minute to 30 days (60000-2592000000)",
                field: "payload.expiresInMilliseconds")
        ) {
            try InviteRules.lifetime(59_999)
        }
        #expect(try InviteRules.lifetime(nil) == 86_400_000)
    }

    @Test("ten wrong codes stop a player (and their address) for a while; the window lets them go")
    func guessing() {
        var guessing = InviteGuessing()
        for _ in 0..<10 { guessing.recordWrong(player: "p", address: "a", now: 0) }
        #expect(guessing.retryAfter(player: "p", address: "a", now: 1) == 899_999)
        #expect(guessing.retryAfter(player: "q", address: "b", now: 1) == nil)
        #expect(guessing.retryAfter(player: "p", address: "a", now: 900_000) == nil)
    }
}

@Suite("Invite codes through the gateway")
struct InviteFlowTests {
    @Test(
        "a friend code lets a stranger send a friend request; revoked, expired, unknown, own and guessed codes are refused"
    )
    func friendCode() async throws {
        let clock = OffsetClock()
        var auth = PodiumTestStack.testAuthConfiguration
        auth.sessionLifetimeMilliseconds = 30 * 86_400_000
        try await withPodiumStack(.init(clock: clock, auth: auth)) { stack in
            let (owner, ownerGrant) = try await stack.player("sharer")
            let (stranger, strangerGrant) = try await stack.player("stranger")
            let (guesser, _) = try await stack.player("guesser")
            defer {
                Task {
                    await owner.close()
                    await stranger.close()
                    await guesser.close()
                }
            }
            let invite = try await owner.call(
                AuthRequests.createInvite, InviteRequest(expiresInMilliseconds: 3_600_000), id: "code-1")
            #expect(invite.purpose == .friend && invite.expiresAt - invite.createdAt == 3_600_000)
            // A resend of the request (the same id: a timeout, a lost instance) gets the same code,
            // not a second one.
            #expect(
                try await owner.call(
                    AuthRequests.createInvite, InviteRequest(expiresInMilliseconds: 3_600_000), id: "code-1") == invite)
            #expect(try await owner.call(AuthRequests.listInvites).invites.map(\.code) == [invite.code])
            #expect(InviteCode(entered: invite.code)?.description == invite.code)

            let typed = invite.code.lowercased().replacingOccurrences(of: "-", with: "")
            let relation = try await stranger.call(AuthRequests.redeemInvite, InviteEntry(code: typed), id: "redeem-1")
            #expect(relation == FriendRelation(playerId: ownerGrant.playerId, state: .outgoingRequest))
            let ownerSide = try await owner.call(AuthRequests.friendList)
            #expect(ownerSide.incoming.map(\.playerId) == [strangerGrant.playerId])
            #expect(try await owner.call(AuthRequests.listInvites).invites.map(\.uses) == [1])
            // A resend (the same id) is the same entry: the same answer, no second use.
            #expect(
                try await stranger.call(AuthRequests.redeemInvite, InviteEntry(code: typed), id: "redeem-1") == relation
            )
            #expect(try await owner.call(AuthRequests.listInvites).invites.map(\.uses) == [1])
            #expect(
                try await owner.exchange(AuthRequests.redeemInvite, InviteEntry(code: invite.code)).errorCode
                    == .invalidField, "own code")
            // A block answers exactly like a code that does not exist.
            _ = try await owner.exchange(AuthRequests.friendBlock, FriendTarget(playerId: strangerGrant.playerId))
            let blocked = try await stranger.exchange(AuthRequests.redeemInvite, InviteEntry(code: invite.code))
            let unknown = try await stranger.exchange(
                AuthRequests.redeemInvite, InviteEntry(code: InviteCode.random().description))
            #expect(blocked.error?.errorReply == unknown.error?.errorReply && blocked.error != nil)
            _ = try await owner.exchange(AuthRequests.friendUnblock, FriendTarget(playerId: strangerGrant.playerId))

            // Revoked: refused, and the owner's list no longer shows it.
            let revoked = try await owner.call(AuthRequests.createInvite, InviteRequest())
            #expect(try await owner.call(AuthRequests.revokeInvite, InviteEntry(code: revoked.code)).revoked)
            #expect(
                try await guesser.exchange(AuthRequests.redeemInvite, InviteEntry(code: revoked.code)).errorCode
                    == .inviteRevoked)
            #expect(
                try await guesser.exchange(AuthRequests.revokeInvite, InviteEntry(code: invite.code)).errorCode
                    == .unknownInvite, "not theirs")
            // Expired.
            clock.advance(by: .seconds(3601))
            #expect(
                try await guesser.exchange(AuthRequests.redeemInvite, InviteEntry(code: invite.code)).errorCode
                    == .inviteExpired)
            #expect(try await owner.call(AuthRequests.listInvites).invites.isEmpty)
            #expect(
                try await owner.exchange(AuthRequests.createInvite, InviteRequest(expiresInMilliseconds: 1000))
                    .errorCode == .invalidField)

            // Guessing: ten wrong codes, then even a right one waits.
            let fresh = try await owner.call(AuthRequests.createInvite, InviteRequest())
            #expect(
                try await guesser.exchange(AuthRequests.redeemInvite, InviteEntry(code: "not a code")).errorCode
                    == .unknownInvite)
            for _ in 0..<9 {
                let wrong = InviteCode.random().description
                #expect(
                    try await guesser.exchange(AuthRequests.redeemInvite, InviteEntry(code: wrong)).errorCode
                        == .unknownInvite)
            }
            let stopped = try await guesser.exchange(AuthRequests.redeemInvite, InviteEntry(code: fresh.code))
            #expect(stopped.errorCode == .rateLimited)
            #expect((stopped.error?.errorReply?.retryAfterMilliseconds ?? 0) > 0)
            #expect(try await guesser.call(AuthRequests.friendList).outgoing.isEmpty, "nothing happened")
            clock.advance(by: .seconds(15 * 60 + 1))
            #expect(try await guesser.exchange(AuthRequests.redeemInvite, InviteEntry(code: fresh.code)).type == .reply)
        }
    }
}
