import PodiumMessages
import Testing

@testable import Auth

/// The friend relation and refresh-token rotation as pure rules: no database, no sockets.
@Suite("Friend rules and refresh rotation")
struct FriendRulesTests {
    @Test("a request, then the other's request or accept, makes friends on both sides; repeats change nothing")
    func requestAndAccept() throws {
        var alice = FriendRules()
        #expect(try alice.request() == .outgoingRequest)
        #expect(alice == FriendRules(mine: .outgoingRequest, theirs: .incomingRequest))
        #expect(try alice.request() == .outgoingRequest)
        var bob = FriendRules(mine: alice.theirs, theirs: alice.mine)
        #expect(try bob.accept() == .friends)
        #expect(bob == FriendRules(mine: .friends, theirs: .friends))
        #expect(try bob.accept() == .friends)
        var crossed = FriendRules(mine: .incomingRequest, theirs: .outgoingRequest)
        #expect(try crossed.request() == .friends)
        #expect(crossed == FriendRules(mine: .friends, theirs: .friends))
    }

    @Test("accept and decline need a request from the other; decline and remove leave nothing")
    func declineAndRemove() throws {
        var none = FriendRules()
        #expect(throws: ErrorReply.self) { try none.accept() }
        #expect(throws: ErrorReply.self) { try none.decline() }
        var outgoing = FriendRules(mine: .outgoingRequest, theirs: .incomingRequest)
        #expect(throws: ErrorReply.self) { try outgoing.decline() }
        var incoming = FriendRules(mine: .incomingRequest, theirs: .outgoingRequest)
        #expect(try incoming.decline() == FriendState.none)
        #expect(incoming == FriendRules())
        var friends = FriendRules(mine: .friends, theirs: .friends)
        #expect(friends.remove() == FriendState.none)
        #expect(friends == FriendRules())
        var withdrawn = FriendRules(mine: .outgoingRequest, theirs: .incomingRequest)
        #expect(withdrawn.remove() == FriendState.none)
        #expect(withdrawn == FriendRules())
        // Removing an incoming request is not how it ends: it stays for a decline.
        var stays = FriendRules(mine: .incomingRequest, theirs: .outgoingRequest)
        #expect(stays.remove() == .incomingRequest)
        #expect(stays == FriendRules(mine: .incomingRequest, theirs: .outgoingRequest))
    }

    @Test("a block ends a friendship from both sides, refuses requests either way, and is one-sided")
    func blocking() throws {
        var friends = FriendRules(mine: .friends, theirs: .friends)
        #expect(friends.block() == .blocked)
        #expect(friends == FriendRules(mine: .blocked, theirs: .none))
        #expect(throws: ErrorReply.self) { try friends.request() }
        var blockedByThem = FriendRules(mine: .none, theirs: .blocked)
        #expect(throws: ErrorReply.self) { try blockedByThem.request() }
        #expect(blockedByThem.remove() == FriendState.none)
        #expect(blockedByThem == FriendRules(mine: .none, theirs: .blocked))
        var both = FriendRules(mine: .none, theirs: .blocked)
        #expect(both.block() == .blocked)
        #expect(both == FriendRules(mine: .blocked, theirs: .blocked))
        #expect(both.unblock() == FriendState.none)
        #expect(both == FriendRules(mine: .none, theirs: .blocked))
        var notBlocked = FriendRules(mine: .friends, theirs: .friends)
        #expect(notBlocked.unblock() == .friends)
        #expect(notBlocked.remove() == FriendState.none)
    }

    @Test("the current refresh token rotates, an old one revokes the session, a revoked or unknown session refuses")
    func rotation() {
        let stored = RefreshRotation.Stored(currentTokenId: "t2", revoked: false)
        #expect(RefreshRotation.decide(stored, presentedTokenId: "t2") == .rotate)
        #expect(RefreshRotation.decide(stored, presentedTokenId: "t1") == .revokeSession)
        #expect(
            RefreshRotation.decide(RefreshRotation.Stored(currentTokenId: "t2", revoked: true), presentedTokenId: "t2")
                == .refuse)
        #expect(RefreshRotation.decide(nil, presentedTokenId: "t2") == .refuse)
        #expect(RefreshRotation.outcome(of: .rotate) == .rotated)
        #expect(RefreshRotation.outcome(of: .revokeSession) == .reused)
        #expect(RefreshRotation.outcome(of: .refuse) == .revoked)
    }
}
