import Foundation

/// The payload of `inbox.list` (docs/PROTOCOL.md 14.5): a page of the player's notification
/// inbox in a game, newest first, or the items after a position, oldest first (catch-up).
public struct InboxListQuery: Codable, Sendable, Equatable {
    /// Only items later than this position, oldest first (a reconnecting client's catch-up).
    public var after: Int64?
    /// Only items earlier than this position, newest first (the next page: a page's `nextBefore`).
    public var before: Int64?
    /// Only unread items.
    public var unreadOnly: Bool
    /// Only items of these kinds (`achievement.earned`, `challenge.received`, …; at most 20; a
    /// comma-separated string is taken as the list).
    public var kinds: [String]?
    /// 1-200, default 50.
    public var limit: Int

    public init(
        after: Int64? = nil, before: Int64? = nil, unreadOnly: Bool = false, kinds: [String]? = nil, limit: Int = 50
    ) {
        self.after = after
        self.before = before
        self.unreadOnly = unreadOnly
        self.kinds = kinds
        self.limit = limit
    }

    enum CodingKeys: String, CodingKey { case after, before, unreadOnly, kinds, limit }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        func position(_ key: CodingKeys) throws -> Int64? {
            switch try container.decodeIfPresent(JSONValue.self, forKey: key) {
            case nil, .null?: return nil
            case .integer(let value)? where value >= 0: return value
            default:
                throw ErrorReply(
                    code: .invalidField, message: "\(key.stringValue) is an item's position: an integer, 0 or more",
                    field: "payload.\(key.stringValue)")
            }
        }
        after = try position(.after)
        before = try position(.before)
        if after != nil && before != nil {
            throw ErrorReply(code: .invalidField, message: "give after or before, not both", field: "payload.before")
        }
        switch try container.decodeIfPresent(JSONValue.self, forKey: .unreadOnly) {
        case nil, .null?: unreadOnly = false
        case .bool(let value)?: unreadOnly = value
        default:
            throw ErrorReply(code: .invalidShape, message: "unreadOnly is true or false", field: "payload.unreadOnly")
        }
        switch try container.decodeIfPresent(JSONValue.self, forKey: .kinds) {
        case nil, .null?: kinds = nil
        case .string(let list)?:
            // Over HTTP the query gives the kinds comma-separated.
            let names = list.split(separator: ",", omittingEmptySubsequences: false).map {
                String($0).trimmingCharacters(in: .whitespaces)
            }
            guard (1...20).contains(names.count), names.allSatisfy({ (1...64).contains($0.utf8.count) }) else {
                throw ErrorReply(
                    code: .invalidField, message: "kinds are 1-20 strings of 1-64 bytes", field: "payload.kinds")
            }
            kinds = names
        case .array(let values)?:
            let names = values.compactMap(\.stringValue)
            guard names.count == values.count, (1...20).contains(names.count),
                names.allSatisfy({ (1...64).contains($0.utf8.count) })
            else {
                throw ErrorReply(
                    code: .invalidField, message: "kinds are 1-20 strings of 1-64 bytes", field: "payload.kinds")
            }
            kinds = names
        default: throw ErrorReply(code: .invalidShape, message: "kinds is an array of strings", field: "payload.kinds")
        }
        switch try container.decodeIfPresent(JSONValue.self, forKey: .limit) {
        case nil, .null?: limit = 50
        case .integer(let value)? where (1...200).contains(value): limit = Int(value)
        case .integer?: throw ErrorReply(code: .invalidField, message: "limit is 1-200", field: "payload.limit")
        default: throw ErrorReply(code: .invalidShape, message: "limit is an integer", field: "payload.limit")
        }
    }
}

/// The reply to `inbox.list`.
public struct InboxList: Codable, Sendable, Equatable {
    public var items: [InboxItem]
    /// Newest-first pages that may have more: the `before` of the next page.
    public var nextBefore: Int64?
    /// The player's unread items in this game (all kinds), when the page was read.
    public var unread: Int

    public init(items: [InboxItem], nextBefore: Int64?, unread: Int) {
        self.items = items
        self.nextBefore = nextBefore
        self.unread = unread
    }
}

/// The reply to `inbox.unread`.
public struct InboxUnread: Codable, Sendable, Equatable {
    public var unread: Int
    public init(unread: Int) { self.unread = unread }
}

/// The payload of `inbox.read` and `inbox.delete`: 1-200 item ids, or (`inbox.read` only)
/// `all: true` for every item of the player in the game.
public struct InboxSelection: Codable, Sendable, Equatable {
    public var ids: [String]
    public var all: Bool

    public init(ids: [String] = [], all: Bool = false) {
        self.ids = ids
        self.all = all
    }

    enum CodingKeys: String, CodingKey { case ids, all }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        all = (try? container.decodeIfPresent(Bool.self, forKey: .all)) == true
        switch try container.decodeIfPresent(JSONValue.self, forKey: .ids) {
        case nil, .null?:
            guard all else {
                throw ErrorReply(code: .missingField, message: "give the ids (or all: true)", field: "payload.ids")
            }
            ids = []
        case .array(let values)?:
            let ids = values.compactMap(\.stringValue)
            guard ids.count == values.count, ids.count <= 200, ids.allSatisfy({ (1...300).contains($0.utf8.count) })
            else {
                throw ErrorReply(code: .invalidField, message: "ids are 0-200 item ids", field: "payload.ids")
            }
            self.ids = ids
        default:
            throw ErrorReply(code: .invalidShape, message: "ids is an array of item ids", field: "payload.ids")
        }
    }
}

/// The reply to `inbox.delete`.
public struct InboxDeleted: Codable, Sendable, Equatable {
    public var deleted: Int
    public init(deleted: Int) { self.deleted = deleted }
}

/// `inbox.admin.notify`: an operator's notice to one player in a game: the payload's `playerId`,
/// or else the request's.
public struct OperatorNotice: Codable, Sendable, Equatable {
    public var playerId: String?
    /// 1-512 characters, no control characters but newlines.
    public var message: String
    /// Optional data for the game (at most 2048 bytes of JSON).
    public var details: [String: JSONValue]?

    public init(playerId: String? = nil, message: String, details: [String: JSONValue]? = nil) {
        self.playerId = playerId
        self.message = message
        self.details = details
    }
}
