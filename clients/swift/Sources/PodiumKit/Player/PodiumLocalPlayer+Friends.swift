/// Friends (docs/PROTOCOL.md section 9): two-sided, asked and accepted. Requests and accepts are
/// sent from the configured game, so that the other player hears of them there (a
/// `friend.requested` or `friend.accepted` notification, kept in that game's inbox).
extension PodiumLocalPlayer {
    /// The player's friends (GameKit's `loadFriends()`).
    public func loadFriends() async throws -> [PodiumPlayer] { try await loadFriendList().friends }

    /// Friends, requests both ways and blocked players.
    public func loadFriendList() async throws -> PodiumFriendList { try await client.send(.get("friends")) }

    /// Asks `playerId` to be friends; when they had asked first, you are friends now.
    @discardableResult
    public func sendFriendRequest(to playerId: String) async throws -> PodiumFriendRelation {
        try await friendAction("request", playerId)
    }

    @discardableResult
    public func acceptFriendRequest(from playerId: String) async throws -> PodiumFriendRelation {
        try await friendAction("accept", playerId)
    }

    @discardableResult
    public func declineFriendRequest(from playerId: String) async throws -> PodiumFriendRelation {
        try await friendAction("decline", playerId)
    }

    /// Ends a friendship, or withdraws a request.
    @discardableResult
    public func removeFriend(_ playerId: String) async throws -> PodiumFriendRelation {
        try await friendAction("remove", playerId)
    }

    @discardableResult
    public func blockPlayer(_ playerId: String) async throws -> PodiumFriendRelation {
        try await friendAction("block", playerId)
    }

    @discardableResult
    public func unblockPlayer(_ playerId: String) async throws -> PodiumFriendRelation {
        try await friendAction("unblock", playerId)
    }

    /// A friend code to share (docs/PROTOCOL.md 9.5): whoever redeems it sends the player a
    /// friend request. One day by default, one minute to 30 days.
    public func makeFriendInvite(expiresIn: Duration? = nil) async throws -> PodiumInvite {
        try await client.send(
            Endpoint.post(
                "invites", body: .compact(["expiresInMilliseconds": expiresIn.map { .integer($0.milliseconds) }])
            ).resend(.onlyIfNotApplied))
    }

    /// Sends a friend request to the owner of a friend code.
    @discardableResult
    public func redeemFriendInvite(code: String) async throws -> PodiumFriendRelation {
        try await client.send(.game(gameId, post: "invites", "redeem", body: ["code": .string(code)]))
    }

    /// The player's codes that still work, both purposes, newest first.
    public func loadInvites() async throws -> [PodiumInvite] {
        struct List: Decodable { var invites: [PodiumInvite] }
        return try await client.send(.get("invites"), as: List.self).invites
    }

    /// Stops a code working; false when it was revoked already.
    @discardableResult
    public func revokeInvite(code: String) async throws -> Bool {
        struct Revocation: Decodable { var revoked: Bool }
        return try await client.send(.post("invites", "revoke", body: ["code": .string(code)]), as: Revocation.self)
            .revoked
    }

    private func friendAction(_ action: String, _ playerId: String) async throws -> PodiumFriendRelation {
        try await client.send(.game(gameId, post: "friends", playerId, action))
    }
}
