import Foundation

extension PodiumChallenge {
    // MARK: - Issuing and starting

    /// Challenges friends to beat the local player's score on a board, or to earn an achievement
    /// the player has earned (GameKit's `issueChallenge(toPlayers:message:)`). Each receiver gets a
    /// `challenge.received` notification.
    ///
    /// - Parameters:
    ///   - receivers: 1-20 player ids, friends of the player (in open games, anyone).
    ///   - message: at most 280 characters.
    ///   - expiresIn: the challenge becomes invalid this long after it was issued (1 ms to 30 days).
    ///   - idempotencyKey: the request id; the same key again returns the same challenge.
    public static func issue(
        _ goal: Goal, to receivers: [String], message: String? = nil, expiresIn: Duration? = nil,
        idempotencyKey: String? = nil, for player: PodiumLocalPlayer
    ) async throws -> PodiumChallenge {
        var body: [String: PodiumJSON?] = [
            "receivers": .array(receivers.map(PodiumJSON.string)), "message": message.map(PodiumJSON.string),
            "expiresInMilliseconds": expiresIn.map { .integer($0.milliseconds) },
        ]
        switch goal {
        case .score(let boardId):
            body["kind"] = "score"
            body["boardId"] = .string(boardId)
        case .achievement(let achievementId):
            body["kind"] = "achievement"
            body["achievementId"] = .string(achievementId)
        }
        return try await player.client.send(
            .game(player.gameId, post: "challenges", body: .compact(body)), idempotencyKey: idempotencyKey)
    }

    /// Starts a time-boxed challenge on a board with `receivers`: the best score submitted within
    /// `duration` (1 minute to 30 days) wins. With `definitionId`, the studio's definition's board,
    /// durations and attempts apply (``PodiumChallengeDefinition/start(duration:with:message:for:)``).
    public static func start(
        on boardId: String?, duration: Duration, with receivers: [String], message: String? = nil,
        definitionId: String? = nil, idempotencyKey: String? = nil, for player: PodiumLocalPlayer
    ) async throws -> PodiumChallenge {
        try await player.client.send(
            .game(
                player.gameId, post: "challenges", "timed",
                body: .compact([
                    "boardId": boardId.map(PodiumJSON.string), "definitionId": definitionId.map(PodiumJSON.string),
                    "durationMilliseconds": .integer(duration.milliseconds),
                    "receivers": .array(receivers.map(PodiumJSON.string)), "message": message.map(PodiumJSON.string),
                ])),
            idempotencyKey: idempotencyKey)
    }

    /// Joins a running time-boxed challenge with an invite code a participant shared.
    public static func join(code: String, for player: PodiumLocalPlayer) async throws -> PodiumChallenge {
        try await player.client.send(.game(player.gameId, post: "challenges", "join", body: ["code": .string(code)]))
    }

    // MARK: - Loading

    /// The challenges the player received (GameKit's `loadReceivedChallenges`), newest first, at
    /// most 200; time-boxed ones the player started too. `state`: only those where the player's
    /// own state is that one.
    public static func loadReceivedChallenges(state: State? = nil, for player: PodiumLocalPlayer) async throws
        -> [PodiumChallenge]
    {
        try await player.client.send(
            .game(player.gameId, get: "challenges", "received", query: ["state": state.map { .string($0.rawValue) }]),
            as: List.self
        ).challenges
    }

    /// The challenges the player issued or started, newest first, at most 200.
    public static func loadIssuedChallenges(for player: PodiumLocalPlayer) async throws -> [PodiumChallenge] {
        try await player.client.send(.game(player.gameId, get: "challenges", "issued"), as: List.self).challenges
    }

    /// One challenge the player issued or received.
    public static func load(id challengeId: String, for player: PodiumLocalPlayer) async throws -> PodiumChallenge {
        try await player.client.send(.game(player.gameId, get: "challenges", challengeId))
    }

    /// The player's friends worth challenging to beat `score` on a board: those without an entry as good.
    public static func loadCandidates(boardId: String, score: Int64, for player: PodiumLocalPlayer) async throws
        -> [String]
    {
        try await candidates(["boardId": .string(boardId), "score": .integer(score)], for: player)
    }

    /// The player's friends worth challenging to earn an achievement: those who have not (all, if repeatable).
    public static func loadCandidates(achievementId: String, for player: PodiumLocalPlayer) async throws -> [String] {
        try await candidates(["achievementId": .string(achievementId)], for: player)
    }

    private static func candidates(_ query: [String: PodiumJSON?], for player: PodiumLocalPlayer) async throws
        -> [String]
    {
        struct Reply: Decodable { var playerIds: [String] }
        return try await player.client.send(
            .game(player.gameId, get: "challenges", "candidates", query: query), as: Reply.self
        ).playerIds
    }

    private struct List: Decodable { var challenges: [PodiumChallenge] }

    // MARK: - Acting on one

    /// Declines a score or achievement challenge the player received (GameKit's `decline()`).
    @discardableResult
    public func decline(for player: PodiumLocalPlayer) async throws -> PodiumChallenge {
        try await player.client.send(.game(player.gameId, post: "challenges", challengeId, "decline"))
    }

    /// Starts a new time-boxed challenge like this ended one, with the player as issuer. Not
    /// idempotent: each call starts one (so it is resent only when nothing was applied).
    public func rematch(for player: PodiumLocalPlayer) async throws -> PodiumChallenge {
        try await player.client.send(
            Endpoint.game(player.gameId, post: "challenges", challengeId, "rematch").resend(.onlyIfNotApplied))
    }

    /// The live order of this time-boxed challenge.
    public func loadStandings(for player: PodiumLocalPlayer) async throws -> PodiumChallengeStandings {
        try await player.client.send(.game(player.gameId, get: "challenges", challengeId, "standings"))
    }

    /// A code that lets others join this running time-boxed challenge (one day by default).
    public func makeInvite(expiresIn: Duration? = nil, for player: PodiumLocalPlayer) async throws -> PodiumInvite {
        try await player.client.send(
            Endpoint.game(
                player.gameId, post: "challenges", challengeId, "invites",
                body: .compact(["expiresInMilliseconds": expiresIn.map { .integer($0.milliseconds) }])
            ).resend(.onlyIfNotApplied))
    }
}

extension PodiumLeaderboard {
    /// Challenges friends to beat the local player's entry on this board (a score challenge).
    public func issueChallenge(
        to receivers: [String], message: String? = nil, expiresIn: Duration? = nil, idempotencyKey: String? = nil
    ) async throws -> PodiumChallenge {
        try await PodiumChallenge.issue(
            .score(boardId: baseLeaderboardID), to: receivers, message: message, expiresIn: expiresIn,
            idempotencyKey: idempotencyKey, for: player)
    }
}
