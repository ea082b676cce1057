import Foundation

/// The local player's progress on one achievement, shaped like GameKit's `GKAchievement`: set
/// ``percentComplete`` (or ``steps``) and ``report(_:for:idempotencyKey:)`` it.
///
/// Progress never goes down: the server keeps the highest percent and the highest steps reported
/// (docs/PROTOCOL.md 11.1). Achievements with a rule follow from the game's events; a player
/// cannot report those (`forbidden`).
public struct PodiumAchievement: Sendable, Equatable {
    /// The achievement's id (GameKit's `identifier`).
    public var identifier: String
    /// 0-100; reported unless ``steps`` is set.
    public var percentComplete: Double
    /// Steps towards the achievement's target; when set, reported instead of ``percentComplete``.
    public var steps: Int64?
    /// Your id for this report: the same id again for the same achievement changes nothing, until a reset.
    public var reportId: String?
    /// Whether the player has earned it (at least once) (GameKit's `isCompleted`).
    public private(set) var isCompleted: Bool
    /// How often it was earned (more than once for a repeatable achievement).
    public private(set) var timesEarned: Int
    /// The steps that complete it.
    public private(set) var target: Int64?
    /// When it was last earned.
    public private(set) var lastEarnedDate: Date?

    /// Progress to report as a percentage.
    public init(identifier: String, percentComplete: Double = 0, reportId: String? = nil) {
        self.identifier = identifier
        self.percentComplete = percentComplete
        self.reportId = reportId
        isCompleted = false
        timesEarned = 0
    }

    /// Progress to report in steps.
    public init(identifier: String, steps: Int64, reportId: String? = nil) {
        self.init(identifier: identifier, reportId: reportId)
        self.steps = steps
    }

    init(status: PodiumAchievementStatus) {
        self.init(identifier: status.id, percentComplete: status.percentComplete ?? 0)
        steps = status.steps
        isCompleted = status.earned
        timesEarned = status.timesEarned
        target = status.target
        lastEarnedDate = status.earnedDate
    }

    // MARK: - GameKit's class methods

    /// The achievements the player has progress on or has earned (GameKit's `loadAchievements`).
    public static func loadAchievements(for player: PodiumLocalPlayer) async throws -> [PodiumAchievement] {
        try await loadAchievementList(for: player).achievements
            .filter { $0.earned || ($0.percentComplete ?? 0) > 0 || ($0.steps ?? 0) > 0 }
            .map(PodiumAchievement.init(status:))
    }

    /// Every achievement of the game with the player's progress and the points (docs/PROTOCOL.md 11.2).
    public static func loadAchievementList(for player: PodiumLocalPlayer) async throws -> PodiumAchievementList {
        try await player.client.send(.game(player.gameId, get: "achievements"))
    }

    /// Reports progress (GameKit's `report(_:)`), 1-100 achievements at once, applied in order;
    /// an error means none was applied. Each `earned` also reaches the player as an
    /// `achievement.earned` notification.
    ///
    /// `idempotencyKey`: the request id; a fresh one by default. The same key again returns the
    /// first outcomes (``ReportReceipt/duplicate``) and applies nothing.
    @discardableResult
    public static func report(
        _ achievements: [PodiumAchievement], for player: PodiumLocalPlayer, idempotencyKey: String? = nil
    ) async throws -> ReportReceipt {
        let reports: [PodiumJSON] = achievements.map { achievement in
            .compact([
                "achievementId": .string(achievement.identifier),
                "steps": achievement.steps.map(PodiumJSON.integer),
                "percentComplete": achievement.steps == nil ? .double(achievement.percentComplete) : nil,
                "reportId": achievement.reportId.map(PodiumJSON.string),
            ])
        }
        return try await player.client.send(
            .game(player.gameId, post: "achievements", "reports", body: ["reports": .array(reports)]),
            idempotencyKey: idempotencyKey)
    }

    /// Deletes all of the player's progress in the game (GameKit's `resetAchievements`); returns
    /// how many achievements had progress. It cannot be undone.
    @discardableResult
    public static func resetAchievements(for player: PodiumLocalPlayer) async throws -> Int {
        struct Receipt: Decodable { var resetAchievements: Int }
        return try await player.client.send(
            .game(
                player.gameId, post: "achievements", "reset",
                body: ["confirm": true, "gameId": .string(player.gameId)]),
            as: Receipt.self
        ).resetAchievements
    }

    /// The answer to a report: one outcome per achievement, in order.
    public struct ReportReceipt: Sendable, Equatable, Decodable {
        public var outcomes: [Outcome]
        /// True when this answers a resend of a report already applied: nothing was applied again.
        public var duplicate: Bool

        private enum CodingKeys: String, CodingKey { case outcomes, duplicate }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            outcomes = try container.decode([Outcome].self, forKey: .outcomes)
            duplicate = try container.decodeIfPresent(Bool.self, forKey: .duplicate) ?? false
        }
    }

    /// What one report did (docs/PROTOCOL.md 11.1).
    public struct Outcome: Sendable, Equatable, Decodable {
        /// What happened; unknown ones keep their raw value.
        public struct Status: RawRepresentable, Sendable, Hashable, Decodable {
            public let rawValue: String
            public init(rawValue: String) { self.rawValue = rawValue }
            public init(from decoder: any Decoder) throws {
                rawValue = try decoder.singleValueContainer().decode(String.self)
            }

            public static let progressed = Status(rawValue: "progressed")
            public static let earned = Status(rawValue: "earned")
            public static let earnedAgain = Status(rawValue: "earned_again")
            public static let ignoredLower = Status(rawValue: "ignored_lower")
            public static let ignoredEarned = Status(rawValue: "ignored_earned")
            public static let duplicate = Status(rawValue: "duplicate")
        }

        public var achievementId: String
        public var status: Status
        public var percentComplete: Double
        public var steps: Int64
        public var target: Int64
        public var earned: Bool
        public var timesEarned: Int
    }
}

/// `achievement.list`: every achievement of the game with the player's progress.
public struct PodiumAchievementList: Sendable, Equatable, Decodable {
    /// In the game's order. A hidden one without progress has only its id and ``PodiumAchievementStatus/hidden``.
    public var achievements: [PodiumAchievementStatus]
    /// The points of the achievements the player earned.
    public var pointsEarned: Int
    /// The points of all of them, hidden ones included.
    public var pointsTotal: Int
}

/// One achievement with the player's progress (docs/PROTOCOL.md 11.2).
public struct PodiumAchievementStatus: Sendable, Equatable, Decodable {
    public var id: String
    public var hidden: Bool
    public var title: String?
    /// The earned description once earned, the other before.
    public var description: String?
    public var points: Int?
    public var image: String?
    public var percentComplete: Double?
    public var steps: Int64?
    public var target: Int64?
    public var earned: Bool
    public var earnedDate: Date?
    public var timesEarned: Int
    /// Of the players with progress in this game, the percentage who earned it.
    public var percentOfPlayersEarned: Double?

    private enum CodingKeys: String, CodingKey {
        case id, hidden, title, description, points, image, percentComplete, steps, target, earned, earnedAt,
            timesEarned, percentOfPlayersEarned
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(String.self, forKey: .id)
        hidden = try container.decodeIfPresent(Bool.self, forKey: .hidden) ?? false
        title = try container.decodeIfPresent(String.self, forKey: .title)
        description = try container.decodeIfPresent(String.self, forKey: .description)
        points = try container.decodeIfPresent(Int.self, forKey: .points)
        image = try container.decodeIfPresent(String.self, forKey: .image)
        percentComplete = try container.decodeIfPresent(Double.self, forKey: .percentComplete)
        steps = try container.decodeIfPresent(Int64.self, forKey: .steps)
        target = try container.decodeIfPresent(Int64.self, forKey: .target)
        earned = try container.decodeIfPresent(Bool.self, forKey: .earned) ?? false
        earnedDate = try container.decodeIfPresent(Int64.self, forKey: .earnedAt).map(Date.init(milliseconds:))
        timesEarned = try container.decodeIfPresent(Int.self, forKey: .timesEarned) ?? 0
        percentOfPlayersEarned = try container.decodeIfPresent(Double.self, forKey: .percentOfPlayersEarned)
    }
}
