/// One achievement of a game, as its configuration file defines it (docs/GAME-CONFIG.md).
public struct AchievementDefinition: Codable, Sendable, Equatable {
    /// Reverse-DNS style id, at most 100 characters.
    public var id: String
    public var title: String
    /// Shown before the player earns it.
    public var description: String
    /// Shown once earned (the completion banner's text).
    public var earnedDescription: String
    /// 1-100; a game's achievements add up to at most 1,000.
    public var points: Int
    /// Not shown to a player until they have progress or have earned it.
    public var hidden: Bool
    /// Can be earned again after it was earned (counts how often).
    public var repeatable: Bool
    /// An image reference for clients (a URL or asset name).
    public var image: String?
    /// Steps that complete it when reported directly (default 100: report percent or steps of 100).
    public var target: Int64?
    /// How it follows from game events; absent: only direct reports progress it.
    public var rule: AchievementRule?

    public init(
        id: String, title: String, description: String, earnedDescription: String, points: Int, hidden: Bool = false,
        repeatable: Bool = false, image: String? = nil, target: Int64? = nil, rule: AchievementRule? = nil
    ) {
        self.id = id
        self.title = title
        self.description = description
        self.earnedDescription = earnedDescription
        self.points = points
        self.hidden = hidden
        self.repeatable = repeatable
        self.image = image
        self.target = target
        self.rule = rule
    }

    private enum CodingKeys: String, CodingKey {
        case id, title, description, earnedDescription, points, hidden, repeatable, image, target, rule
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(String.self, forKey: .id)
        title = try container.decode(String.self, forKey: .title)
        description = try container.decode(String.self, forKey: .description)
        earnedDescription = try container.decode(String.self, forKey: .earnedDescription)
        points = try container.decode(Int.self, forKey: .points)
        hidden = try container.decodeIfPresent(Bool.self, forKey: .hidden) ?? false
        repeatable = try container.decodeIfPresent(Bool.self, forKey: .repeatable) ?? false
        image = try container.decodeIfPresent(String.self, forKey: .image)
        target = try container.decodeIfPresent(Int64.self, forKey: .target)
        rule = try container.decodeIfPresent(AchievementRule.self, forKey: .rule)
    }

    /// The number of steps that completes the achievement.
    public var completionSteps: Int64 { rule?.completionSteps ?? target ?? 100 }
}

/// An event a game sends, declared so that rules can be checked against it.
public struct EventDeclaration: Codable, Sendable, Equatable {
    public var name: String
    /// Attributes the event may carry.
    public var attributes: [String]?

    public init(name: String, attributes: [String]? = nil) {
        self.name = name
        self.attributes = attributes
    }
}
