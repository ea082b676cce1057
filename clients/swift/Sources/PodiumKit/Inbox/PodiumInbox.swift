import Foundation

/// The player's notification inbox in one game (docs/PROTOCOL.md 14.5): every notification but
/// the live-only ones is kept there, unread, so that a player who was offline finds it.
public struct PodiumInbox: Sendable {
    public let player: PodiumLocalPlayer
    public let gameId: String

    /// A page of items: without `after` or `before`, the newest, newest first; with `before` (a
    /// page's ``Page/nextBefore``), older ones; with `after` (the highest position seen), the
    /// items since, oldest first.
    public func loadItems(
        after: Int64? = nil, before: Int64? = nil, unreadOnly: Bool = false,
        kinds: [PodiumNotification.Kind]? = nil, limit: Int = 50
    ) async throws -> Page {
        try await player.client.send(
            .game(
                gameId, get: "inbox", "items",
                query: [
                    "after": after.map(PodiumJSON.integer), "before": before.map(PodiumJSON.integer),
                    "unreadOnly": unreadOnly ? true : nil, "limit": .integer(Int64(limit)),
                    "kinds": kinds.map { .string($0.map(\.rawValue).joined(separator: ",")) },
                ]))
    }

    /// The player's unread items in this game.
    public func unreadCount() async throws -> Int {
        struct Reply: Decodable { var unread: Int }
        return try await player.client.send(.game(gameId, get: "inbox", "unread"), as: Reply.self).unread
    }

    /// Marks items read (their ids, or a live notification's ``PodiumNotification/inboxId``);
    /// returns how many were unread.
    @discardableResult
    public func markRead(_ ids: [String]) async throws -> Int {
        try await mark(["ids": .array(ids.map(PodiumJSON.string))])
    }

    /// Marks every item of the player in this game read.
    @discardableResult
    public func markAllRead() async throws -> Int { try await mark(["all": true]) }

    /// Deletes items for good; returns how many were deleted.
    @discardableResult
    public func delete(_ ids: [String]) async throws -> Int {
        struct Reply: Decodable { var deleted: Int }
        return try await player.client.send(
            .game(gameId, post: "inbox", "delete", body: ["ids": .array(ids.map(PodiumJSON.string))]), as: Reply.self
        ).deleted
    }

    private func mark(_ body: PodiumJSON) async throws -> Int {
        struct Reply: Decodable { var marked: Int }
        return try await player.client.send(.game(gameId, post: "inbox", "read", body: body), as: Reply.self).marked
    }

    /// A page of the inbox.
    public struct Page: Sendable, Equatable, Decodable {
        public var items: [PodiumInboxItem]
        /// On a full newest-first page: pass as `before` for the next one. Nil: nothing older.
        public var nextBefore: Int64?
        /// The player's unread items in this game, of every kind.
        public var unread: Int
    }
}

/// A notification kept in the inbox.
public struct PodiumInboxItem: Sendable, Equatable, Decodable {
    /// The item's id; its live notification carries it as ``PodiumNotification/inboxId``.
    public var id: String
    public var kind: PodiumNotification.Kind
    public var message: String
    public var details: [String: PodiumJSON]
    public var createdDate: Date
    public var isRead: Bool
    /// Its place in the player's inbox: later items have higher positions.
    public var position: Int64?
    /// The request that caused it, as its notification's.
    public var correlationId: String?

    private enum CodingKeys: String, CodingKey {
        case id, kind, message, details, createdAt, read, position, correlationId
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(String.self, forKey: .id)
        kind = try container.decode(PodiumNotification.Kind.self, forKey: .kind)
        message = try container.decode(String.self, forKey: .message)
        details = try container.decodeIfPresent([String: PodiumJSON].self, forKey: .details) ?? [:]
        createdDate = Date(milliseconds: try container.decode(Int64.self, forKey: .createdAt))
        isRead = try container.decodeIfPresent(Bool.self, forKey: .read) ?? false
        position = try container.decodeIfPresent(Int64.self, forKey: .position)
        correlationId = try container.decodeIfPresent(String.self, forKey: .correlationId)
    }

    /// The item as the notification it was (``PodiumNotification/Source/inbox``).
    public func notification(gameId: String, playerId: String?) -> PodiumNotification {
        var details = details
        details["inboxId"] = .string(id)
        return PodiumNotification(
            kind: kind, message: message, details: details, gameId: gameId, playerId: playerId,
            correlationId: correlationId, date: createdDate, source: .inbox)
    }
}
