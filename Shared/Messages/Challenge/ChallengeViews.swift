/// The payload of `challenge.received` and `challenge.issued`: optionally, only one state.
public struct ChallengeFilter: Codable, Sendable, Equatable {
    /// `pending`, `completed`, `declined` or `invalid`.
    public var state: String?
    public init(state: String? = nil) { self.state = state }
}

/// The reply to `challenge.received`, `challenge.issued` and `challenge.admin.list`.
public struct ChallengeList: Codable, Sendable, Equatable {
    public var challenges: [ChallengeDetail]
    public init(challenges: [ChallengeDetail]) { self.challenges = challenges }
}

/// The reply to `challenge.candidates`: the friends a player may challenge.
public struct ChallengeCandidates: Codable, Sendable, Equatable {
    public var playerIds: [String]
    public init(playerIds: [String]) { self.playerIds = playerIds }
}

/// The payload of `challenge.inbox`: items after a position, optionally only unread ones.
public struct InboxQuery: Codable, Sendable, Equatable {
    /// An item's `position`: only later items.
    public var after: Int64?
    public var unreadOnly: Bool?

    public init(after: Int64? = nil, unreadOnly: Bool? = nil) {
        self.after = after
        self.unreadOnly = unreadOnly
    }
}

/// The reply to `challenge.inbox`.
public struct InboxPage: Codable, Sendable, Equatable {
    public var items: [InboxItem]
    public init(items: [InboxItem]) { self.items = items }
}

/// The payload of `challenge.inbox.read`: the items to mark read (0-200 ids).
public struct InboxMarkRead: Codable, Sendable, Equatable {
    public var ids: [String]
    public init(ids: [String]) { self.ids = ids }
}

/// The reply to `challenge.inbox.read`: how many items were unread and now are read.
public struct InboxMarked: Codable, Sendable, Equatable {
    public var marked: Int
    public init(marked: Int) { self.marked = marked }
}
