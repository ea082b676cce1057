/// The payload of `challenge.received` and `challenge.issued`: optionally, only one state.
public struct ChallengeFilter: Codable, Sendable, Equatable {
    /// `pending`, `completed`, `declined` or `invalid` (a value that is not a string is ignored).
    public var state: String?
    public init(state: String? = nil) { self.state = state }

    enum CodingKeys: String, CodingKey { case state }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        state = (try? container.decodeIfPresent(JSONValue.self, forKey: .state))??.stringValue
    }
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
    /// Only `true` filters; any other value is taken as false (docs/PROTOCOL.md 12.8).
    public var unreadOnly: Bool?

    public init(after: Int64? = nil, unreadOnly: Bool? = nil) {
        self.after = after
        self.unreadOnly = unreadOnly
    }

    enum CodingKeys: String, CodingKey { case after, unreadOnly }

    /// `after` that is not an integer of 0 or more: `invalid_field`.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        switch try container.decodeIfPresent(JSONValue.self, forKey: .after) {
        case nil, .null?: after = nil
        case .integer(let position)? where position >= 0: after = position
        default:
            throw ErrorReply(
                code: .invalidField, message: "after is an item's position: an integer, 0 or more",
                field: "payload.after")
        }
        unreadOnly = try container.decodeIfPresent(JSONValue.self, forKey: .unreadOnly) == .bool(true)
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

    enum CodingKeys: String, CodingKey { case ids }

    /// `ids` absent or not an array: `missing_field`; an element that is not a string, or more
    /// than 200: `invalid_field` (docs/PROTOCOL.md 12.8).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        guard case .array(let values)? = try? container.decodeIfPresent(JSONValue.self, forKey: .ids) else {
            throw ErrorReply(code: .missingField, message: "give the ids to mark read", field: "payload.ids")
        }
        let ids = values.compactMap(\.stringValue)
        guard ids.count == values.count, ids.count <= 200 else {
            throw ErrorReply(code: .invalidField, message: "ids are 0-200 strings", field: "payload.ids")
        }
        self.ids = ids
    }
}

/// The reply to `challenge.inbox.read`: how many items were unread and now are read.
public struct InboxMarked: Codable, Sendable, Equatable {
    public var marked: Int
    public init(marked: Int) { self.marked = marked }
}
