import Foundation
import PodiumMessages

/// The pages of popular reads the gateway answers itself, without a hop to the leaderboard
/// service (docs/ARCHITECTURE.md, "Popular reads"): the replies to `leaderboard.top` it passed on,
/// kept as their payload's bytes.
///
/// Consistency: a client that got an acknowledgement through this gateway for a change to a game's
/// boards (a score, a removal, a reset, a definition) sees the change in its next read, because
/// the acknowledgement drops the game's pages before it leaves, and a page that was being read
/// from the service when it did is not kept (``Ticket``). Changes acknowledged elsewhere (another
/// gateway) drop the pages when their `score/…` message reaches this gateway's bus feed, and no
/// page is older than ``lifetime`` in any case (on the monotonic clock and on the wall clock, so
/// that periods of recurring boards roll over).
///
/// Pure state: the shell (``ReadCache``) feeds it requests, replies, bus news and the time.
struct PopularReads: Sendable {
    /// What a page answers: the same request from anyone (the payload as sent, the game, the version).
    struct Key: Hashable, Sendable {
        let type: MessageType
        let version: Int
        let payload: JSONValue
    }

    /// A kept reply's payload, its JSON text and its value (for fronts that take envelopes as values).
    struct Page: Sendable {
        let text: Data
        let value: JSONValue
        let filledAt: Int64
        let filledAtWall: Int64
    }

    /// Taken when a read is forwarded: its reply is kept only if nothing changed the game's boards
    /// in between.
    struct Ticket: Sendable, Equatable {
        let gameId: String
        let key: Key
        let generation: UInt64
    }

    /// How long a page is answered from, in milliseconds.
    let lifetime: Int64
    /// Pages kept at most over all games, and their text's bytes at most (a page's value takes
    /// a few times its text): past either, all are dropped and filled again, so that requests
    /// for many large pages cannot make the gateway hold more than that.
    let capacity: Int
    let capacityBytes: Int
    private var pages: [String: [Key: Page]] = [:]
    private var generations: [String: UInt64] = [:]
    private(set) var count = 0
    private(set) var bytes = 0

    init(lifetime: Int64, capacity: Int = 10_000, capacityBytes: Int = 16 << 20) {
        self.lifetime = lifetime
        self.capacity = capacity
        self.capacityBytes = capacityBytes
    }

    /// The key of a request answered the same for everyone, nil for any other: `leaderboard.top`
    /// of a game, not friends-only (that one depends on who asks).
    static func key(type: MessageType, version: Int?, gameId: String?, payload: JSONValue?) -> Key? {
        guard type == LeaderboardRequests.top.type, gameId != nil else { return nil }
        let payload = payload ?? .object([:])
        guard case .object(let members) = payload, members["friendsOnly"] != .bool(true) else { return nil }
        return Key(type: type, version: version ?? 1, payload: payload)
    }

    /// Whether an answer to the request type may mean a game's boards changed: every leaderboard
    /// request that is not a read.
    static func changesBoards(_ type: MessageType) -> Bool {
        type.serviceName == "leaderboard" && !reads.contains(type)
    }

    private static let reads: Set<MessageType> = [
        LeaderboardRequests.boards.type, LeaderboardRequests.sets.type, LeaderboardRequests.entry.type,
        LeaderboardRequests.top.type, LeaderboardRequests.around.type, LeaderboardRequests.history.type,
        LeaderboardRequests.archives.type, LeaderboardRequests.games.type, LeaderboardRequests.export.type,
        .health(of: "leaderboard"),
    ]

    /// The kept page for the request, if it is young enough.
    func page(gameId: String, key: Key, now: Int64, wallNow: Int64) -> Page? {
        guard let page = pages[gameId]?[key] else { return nil }
        guard now - page.filledAt < lifetime, (0..<lifetime).contains(wallNow - page.filledAtWall) else { return nil }
        return page
    }

    /// What a forwarded read must show to have its reply kept.
    func ticket(gameId: String, key: Key) -> Ticket {
        Ticket(gameId: gameId, key: key, generation: generations[gameId, default: 0])
    }

    /// Keeps a reply's payload, unless the game's boards changed since the ticket was taken.
    @discardableResult
    mutating func fill(_ ticket: Ticket, text: Data, value: JSONValue, now: Int64, wallNow: Int64) -> Bool {
        guard generations[ticket.gameId, default: 0] == ticket.generation, text.count <= capacityBytes else {
            return false
        }
        if count >= capacity || bytes + text.count > capacityBytes {
            pages.removeAll()
            count = 0
            bytes = 0
        }
        let page = Page(text: text, value: value, filledAt: now, filledAtWall: wallNow)
        if let replaced = pages[ticket.gameId, default: [:]].updateValue(page, forKey: ticket.key) {
            bytes -= replaced.text.count
        } else {
            count += 1
        }
        bytes += text.count
        return true
    }

    /// A game's boards changed: its pages go, and replies read before now are not kept.
    mutating func invalidate(gameId: String) {
        generations[gameId, default: 0] &+= 1
        if let dropped = pages.removeValue(forKey: gameId) {
            count -= dropped.count
            bytes -= dropped.values.reduce(0) { $0 + $1.text.count }
        }
    }

    /// The game a `score/<game>/<board>` bus topic names.
    static func game(ofScoreTopic topic: String) -> String? {
        guard topic.hasPrefix(scoreTopicPrefix) else { return nil }
        let rest = topic.dropFirst(scoreTopicPrefix.count)
        guard let slash = rest.firstIndex(of: "/"), slash > rest.startIndex else { return nil }
        return String(rest[..<slash])
    }

    /// The bus topics of accepted scores (the leaderboard's outbox).
    static let scoreTopicPrefix = "score/"
}
