import PodiumMessages
import Testing

@testable import Auth

/// Which message a friend relation change announces (``FriendNews``): a pure rule on the sides
/// before and after, no database, no sockets.
@Suite("Friend news rule")
struct FriendNewsTests {
    /// Applies `change` to the relation `mine`/`theirs` and returns its news (nil when it threw).
    static func news(_ mine: FriendState, _ theirs: FriendState, _ change: (inout FriendRules) throws -> FriendState)
        -> FriendNews?
    {
        let before = FriendRules(mine: mine, theirs: theirs)
        var after = before
        guard (try? change(&after)) != nil else { return nil }
        return FriendNews(before: before, after: after)
    }

    @Test("a new request is `requested`; asking back or accepting is `accepted`")
    func realChanges() {
        #expect(Self.news(.none, .none) { try $0.request() } == .requested)
        #expect(Self.news(.incomingRequest, .outgoingRequest) { try $0.request() } == .accepted, "asking back accepts")
        #expect(Self.news(.incomingRequest, .outgoingRequest) { try $0.accept() } == .accepted)
        #expect(FriendNews.requested.type == .friendRequested)
        #expect(FriendNews.accepted.type == .friendAccepted)
        #expect(FriendNews.topic(for: "p1").rawValue == "friend/p1")
    }

    @Test("repeats, refusals and every other change are no news")
    func noNews() {
        #expect(Self.news(.outgoingRequest, .incomingRequest) { try $0.request() } == nil, "a repeated request")
        #expect(Self.news(.friends, .friends) { try $0.request() } == nil, "a request between friends")
        #expect(Self.news(.friends, .friends) { try $0.accept() } == nil, "an accept between friends")
        #expect(Self.news(.none, .blocked) { try $0.request() } == nil, "refused: blocked")
        #expect(Self.news(.none, .none) { try $0.accept() } == nil, "refused: nothing to accept")
        #expect(Self.news(.incomingRequest, .outgoingRequest) { try $0.decline() } == nil)
        #expect(Self.news(.outgoingRequest, .incomingRequest) { $0.remove() } == nil, "a withdrawn request")
        #expect(Self.news(.friends, .friends) { $0.remove() } == nil)
        #expect(Self.news(.incomingRequest, .outgoingRequest) { $0.block() } == nil)
        #expect(Self.news(.blocked, .none) { $0.unblock() } == nil)
    }

    @Test("the writes hold one message for news, addressed to the other player, and nothing otherwise")
    func writes() throws {
        let cause = FriendNews.Cause(playerId: "ann", displayName: "Ann", gameId: "dash", requestId: "fr-1")
        let announce = FriendNews.writes(cause, other: "ben", now: 1234)
        let asked = try announce(FriendRules(), FriendRules(mine: .outgoingRequest, theirs: .incomingRequest))
        let message = try #require(asked.outbox.first)
        #expect(asked.outbox.count == 1 && asked.receipts.isEmpty && asked.positions.isEmpty)
        #expect(message.topic == "friend/ben")
        #expect(message.time == 1234)
        let envelope = try WireCodec.decode(RawEnvelope.self, from: message.envelope)
        #expect(envelope.type == .friendRequested)
        #expect(envelope.gameId == "dash" && envelope.playerId == "ann" && envelope.correlationId == "fr-1")
        #expect(
            try envelope.decodePayload(as: FriendRequestUpdate.self)
                == FriendRequestUpdate(
                    fromPlayerId: "ann", fromDisplayName: "Ann", toPlayerId: "ben", gameId: "dash", time: 1234))
        let repeated = FriendRules(mine: .outgoingRequest, theirs: .incomingRequest)
        #expect(try announce(repeated, repeated).isEmpty)
    }
}
