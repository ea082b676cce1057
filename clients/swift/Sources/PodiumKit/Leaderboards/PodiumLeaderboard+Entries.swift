import Foundation

extension PodiumLeaderboard {
    /// One player's entry (GameKit's `GKLeaderboard.Entry`).
    public struct Entry: Sendable, Equatable, Decodable {
        public var player: PodiumPlayer
        /// 1-based, in the scope read.
        public var rank: Int
        /// The entry's value (GameKit's `score`).
        public var score: Int64
        /// The number the game attached to the score.
        public var context: Int64?
        /// The JSON object the game attached to the score.
        public var metadata: [String: PodiumJSON]?
        /// When the entry's value was submitted.
        public var date: Date

        private enum CodingKeys: String, CodingKey {
            case playerId, displayName, value, rank, context, metadata, submittedAt
        }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            player = PodiumPlayer(
                playerId: try container.decode(String.self, forKey: .playerId),
                displayName: try container.decodeIfPresent(String.self, forKey: .displayName))
            rank = try container.decode(Int.self, forKey: .rank)
            score = try container.decode(Int64.self, forKey: .value)
            context = try container.decodeIfPresent(Int64.self, forKey: .context)
            metadata = try container.decodeIfPresent([String: PodiumJSON].self, forKey: .metadata)
            date = Date(milliseconds: try container.decode(Int64.self, forKey: .submittedAt))
        }
    }

    /// A page of entries (docs/PROTOCOL.md 10.2, 10.3).
    public struct Page: Sendable, Equatable, Decodable {
        public var boardId: String
        /// What was read: `today`, `week`, `allTime`, `period:<n>` or `archive:<n>`.
        public var scope: String
        public var entries: [Entry]
        /// Every entry in the scope (for a friends page: the player and their friends with an entry).
        public var total: Int
        /// Pass to ``PodiumLeaderboard/loadPage(timeScope:limit:cursor:)`` for the next page; nil on the last.
        public var nextCursor: String?
    }

    /// The local player's own best scores on the board (at most 10, best first).
    public struct Score: Sendable, Equatable, Decodable {
        public var value: Int64
        public var date: Date

        private enum CodingKeys: String, CodingKey { case value, submittedAt }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            value = try container.decode(Int64.self, forKey: .value)
            date = Date(milliseconds: try container.decode(Int64.self, forKey: .submittedAt))
        }
    }

    // MARK: - Submitting

    /// Submits a score for the local player (GameKit's `submitScore(_:context:player:)`).
    ///
    /// - Parameters:
    ///   - context: a 64-bit number the game attaches (a level, a seed).
    ///   - metadata: a JSON object of at most 1024 bytes.
    ///   - challengeId: the defined challenge this score is a run of (docs/PROTOCOL.md 12.12).
    ///   - idempotencyKey: the request id; a fresh one by default. The same key again returns
    ///     the first receipt (``PodiumScoreReceipt/duplicate``) and submits nothing.
    @discardableResult
    public func submitScore(
        _ score: Int64, context: Int64? = nil, metadata: [String: PodiumJSON]? = nil, challengeId: String? = nil,
        idempotencyKey: String? = nil
    ) async throws -> PodiumScoreReceipt {
        try await player.client.send(
            .game(
                player.gameId, post: "leaderboards", baseLeaderboardID, "scores",
                body: .compact([
                    "value": .integer(score), "context": context.map(PodiumJSON.integer),
                    "metadata": metadata.map(PodiumJSON.object), "challengeId": challengeId.map(PodiumJSON.string),
                ])),
            idempotencyKey: idempotencyKey)
    }

    /// Submits one score to several boards (GameKit's `GKLeaderboard.submitScore(_:context:player:leaderboardIDs:)`).
    @discardableResult
    public static func submitScore(
        _ score: Int64, context: Int64? = nil, player: PodiumLocalPlayer, leaderboardIDs: [String]
    ) async throws -> [PodiumScoreReceipt] {
        var receipts: [PodiumScoreReceipt] = []
        for id in leaderboardIDs {
            receipts.append(try await PodiumLeaderboard(id: id, for: player).submitScore(score, context: context))
        }
        return receipts
    }

    // MARK: - Reading

    /// Entries of a range of ranks (GameKit's `loadEntries(for:timeScope:range:)`), with the local
    /// player's own entry and the number of entries in the scope.
    ///
    /// `range` is 1-based (`1...10` is the top ten), at most 200 ranks. With ``PlayerScope/friendsOnly``
    /// the local player and their friends are ranked among themselves. An occurrence or an archive
    /// (``standings``) is read for every player and ignores `timeScope`.
    public func loadEntries(
        for playerScope: PlayerScope, timeScope: TimeScope, range: ClosedRange<Int>
    ) async throws -> (localPlayerEntry: Entry?, entries: [Entry], totalPlayerCount: Int) {
        guard range.lowerBound >= 1 else {
            throw PodiumError(code: .invalidField, message: "ranks start at 1", field: "range")
        }
        switch (standings, playerScope) {
        case (.current, .global):
            async let page = top(["scope": .string(timeScope.rawValue)], range: range)
            async let local = loadLocalPlayerEntry(timeScope: timeScope)
            let (entries, total) = try await page
            return (try await local, entries, total)
        case (.current, .friendsOnly):
            // A friends page holds every friend with an entry (no paging): the range is cut here.
            let page: Page = try await player.client.send(
                .game(
                    player.gameId, get: "leaderboards", baseLeaderboardID, "top",
                    query: ["scope": .string(timeScope.rawValue), "friendsOnly": true]))
            let local = page.entries.first { $0.player.playerId == player.playerId }
            let entries = page.entries.filter { range.contains($0.rank) }
            return (local, entries, page.total)
        case (.occurrence, .global), (.archive, .global):
            let selector: [String: PodiumJSON?] =
                switch standings {
                case .occurrence(let period): ["period": .integer(period)]
                case .archive(let number): ["archive": .integer(number)]
                case .current: [:]
                }
            let (entries, total) = try await top(selector, range: range)
            return (entries.first { $0.player.playerId == player.playerId }, entries, total)
        case (.occurrence, .friendsOnly), (.archive, .friendsOnly):
            throw PodiumError(
                code: .invalidField, message: "an occurrence or an archive is read for every player, not friends only",
                field: "playerScope")
        }
    }

    private func top(_ selector: [String: PodiumJSON?], range: ClosedRange<Int>) async throws -> ([Entry], Int) {
        var query = selector
        query["limit"] = .integer(Int64(range.count))
        query["offset"] = .integer(Int64(range.lowerBound - 1))
        let page: Page = try await player.client.send(
            .game(player.gameId, get: "leaderboards", baseLeaderboardID, "top", query: query))
        return (page.entries, page.total)
    }

    /// A page of the current standings, continuing after `cursor` (a page's ``Page/nextCursor``).
    public func loadPage(timeScope: TimeScope = .allTime, limit: Int = 10, cursor: String? = nil) async throws -> Page {
        try await player.client.send(
            .game(
                player.gameId, get: "leaderboards", baseLeaderboardID, "top",
                query: [
                    "scope": .string(timeScope.rawValue), "limit": .integer(Int64(limit)),
                    "cursor": cursor.map(PodiumJSON.string),
                ]))
    }

    /// The local player and the players ranked next to them: up to `2 × radius + 1` consecutive
    /// ranks (docs/PROTOCOL.md 10.3); no entries when the player has none in the scope.
    public func loadEntriesAroundLocalPlayer(timeScope: TimeScope = .allTime, radius: Int = 5) async throws -> Page {
        try await player.client.send(
            .game(
                player.gameId, get: "leaderboards", baseLeaderboardID, "around",
                query: ["scope": .string(timeScope.rawValue), "radius": .integer(Int64(radius))]))
    }

    /// The local player's entry and rank in the scope; nil when they have none.
    public func loadLocalPlayerEntry(timeScope: TimeScope = .allTime) async throws -> Entry? {
        struct Reply: Decodable { var entry: Entry? }
        return try await player.client.send(
            .game(
                player.gameId, get: "leaderboards", baseLeaderboardID, "entry",
                query: ["scope": .string(timeScope.rawValue)]),
            as: Reply.self
        ).entry
    }

    /// The local player's 10 best scores ever submitted to the board, best first (of the current
    /// period, for a recurring board).
    public func loadScoreHistory() async throws -> [Score] {
        struct Reply: Decodable { var scores: [Score] }
        return try await player.client.send(
            .game(player.gameId, get: "leaderboards", baseLeaderboardID, "history"), as: Reply.self
        ).scores
    }
}

/// What a submission did (docs/PROTOCOL.md 10.1).
public struct PodiumScoreReceipt: Sendable, Equatable, Decodable {
    public var boardId: String
    public var playerId: String
    /// Whether the player's entry changed.
    public var improved: Bool
    /// The entry's value before; nil for a first score.
    public var previousValue: Int64?
    /// The entry right after the submission, with the all-time rank it had then.
    public var entry: PodiumLeaderboard.Entry
    /// The scopes in which this score beat the player's standing, narrowest first.
    public var scopesBeaten: [PodiumLeaderboard.TimeScope]
    /// The score this submission carried (the entry may keep a better one).
    public var submittedValue: Int64
    /// True when this answers a resend of a request already applied: the original receipt, nothing submitted again.
    public var duplicate: Bool
    /// The defined challenge the score was a run of.
    public var challengeId: String?

    private enum CodingKeys: String, CodingKey {
        case boardId, playerId, improved, previousValue, entry, scopesBeaten, submittedValue, duplicate, challengeId
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        boardId = try container.decode(String.self, forKey: .boardId)
        playerId = try container.decode(String.self, forKey: .playerId)
        improved = try container.decode(Bool.self, forKey: .improved)
        previousValue = try container.decodeIfPresent(Int64.self, forKey: .previousValue)
        entry = try container.decode(PodiumLeaderboard.Entry.self, forKey: .entry)
        scopesBeaten = try container.decode([String].self, forKey: .scopesBeaten)
            .compactMap(PodiumLeaderboard.TimeScope.init(rawValue:))
        submittedValue = try container.decodeIfPresent(Int64.self, forKey: .submittedValue) ?? entry.score
        duplicate = try container.decodeIfPresent(Bool.self, forKey: .duplicate) ?? false
        challengeId = try container.decodeIfPresent(String.self, forKey: .challengeId)
    }
}
