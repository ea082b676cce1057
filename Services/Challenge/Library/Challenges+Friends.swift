import PodiumMessages

/// Friend requests in the inbox: the auth service's stream `auth` says when a player asked
/// another (`friend.requested`, for the player asked) or accepted another's request
/// (`friend.accepted`, for the player who asked), in the game the request came from. A request
/// sent without a `gameId` has no game's inbox to go to: its message makes no item (the envelope
/// check in ``Challenges/notices(for:fact:context:)``).
extension Challenges {
    /// The item a friend request message makes, for `update.toPlayerId` in `gameId`.
    static func friendNotice(_ update: FriendRequestUpdate, accepted: Bool, gameId: String, time: Int64, cause: String?)
        -> AddressedInboxItem
    {
        let name = update.fromDisplayName ?? update.fromPlayerId
        var details: [String: JSONValue] = ["playerId": .string(update.fromPlayerId)]
        if let displayName = update.fromDisplayName { details["displayName"] = .string(displayName) }
        let item = InboxItem(
            id: newItemID(), kind: accepted ? "friend.accepted" : "friend.requested",
            message: accepted ? "\(name) accepted your friend request" : "\(name) wants to be your friend",
            details: details, createdAt: time, read: false, correlationId: cause)
        return (gameId, update.toPlayerId, item)
    }
}
