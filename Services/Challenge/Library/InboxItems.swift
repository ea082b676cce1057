import Foundation
import PodiumMessages

/// The inbox items the challenge service makes, as values: a challenge's news, a friend
/// request's, and their ids. Pure: no store, no clock (the time is given).
enum InboxItems {
    /// The size of the top whose leavers are told (the leaderboard's).
    static let topSize = 10

    static func newItemID() -> String { UUID().uuidString.lowercased() }

    /// An operator notice's item id: `notice:<gameId>:<playerId>:<request id>`.
    static func noticeID(gameId: String, playerId: String, requestId: String) -> String {
        "notice:\(gameId):\(playerId):\(requestId)"
    }

    /// A notification about `challenge` as the inbox keeps it.
    static func challenge(
        kind: String, message: String, challenge: ChallengeDetail, at time: Int64, extra: [String: JSONValue] = [:],
        cause: String? = nil
    ) -> InboxItem {
        var details: [String: JSONValue] = [
            "challengeId": .string(challenge.challengeId), "kind": .string(challenge.kind.rawValue),
            "issuerId": .string(challenge.issuerId),
        ]
        if let boardId = challenge.boardId { details["boardId"] = .string(boardId) }
        if let achievementId = challenge.achievementId { details["achievementId"] = .string(achievementId) }
        if let value = challenge.issuerValue { details["issuerValue"] = .integer(value) }
        if let note = challenge.message { details["message"] = .string(note) }
        details.merge(extra) { _, new in new }
        return InboxItem(
            id: newItemID(), kind: kind, message: message, details: details, createdAt: time, read: false,
            correlationId: cause)
    }

    /// Friend requests in the inbox: the auth service's stream `auth` says when a player asked
    /// another (`friend.requested`, for the player asked) or accepted another's request
    /// (`friend.accepted`, for the player who asked), in the game the request came from. A
    /// request sent without a `gameId` has no game's inbox to go to: its message makes no item
    /// (the envelope check in ``ChallengeInbox/notices(for:fact:context:)``).
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
