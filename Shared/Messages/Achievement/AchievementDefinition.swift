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

/// How an achievement follows from a game's events. Every kind counts exactly (integers), so
/// progress never suffers the rounding of percentages.
public struct AchievementRule: Codable, Sendable, Equatable {
    public enum Kind: String, Codable, Sendable {
        /// One matching event earns it (first kill).
        case event
        /// Within one match or session (`groupBy` attribute), the measure reaches `target`
        /// (summed, or the largest single value with `aggregate: "max"`).
        case threshold
        /// Across all matches and sessions, the measure adds up to `target`.
        case counter
        /// `count` matching events within any `withinMilliseconds` window.
        case window
        /// `target` matching events for each of `values` of `attribute`.
        case perValue
        /// Within one match or session, the measure first falls below `below`, later reaches `atLeast`.
        case sequence
    }

    /// What a matching event adds.
    public enum Measure: String, Codable, Sendable {
        /// 1 per event.
        case count
        /// The event's `value`.
        case value
    }

    public enum Aggregate: String, Codable, Sendable {
        case sum
        case max
    }

    public var kind: Kind
    /// The event name that counts.
    public var event: String
    /// Attribute values an event must have to count (all must match).
    public var `where`: [String: JSONValue]?
    public var measure: Measure?
    public var aggregate: Aggregate?
    /// The attribute that identifies the match or session (`threshold`, `sequence`).
    public var groupBy: String?
    public var target: Int64?
    public var count: Int64?
    public var withinMilliseconds: Int64?
    /// The attribute whose values are counted separately (`perValue`).
    public var attribute: String?
    public var values: [String]?
    public var below: Int64?
    public var atLeast: Int64?

    public init(
        kind: Kind, event: String, where filter: [String: JSONValue]? = nil, measure: Measure? = nil, aggregate: Aggregate? = nil,
        groupBy: String? = nil, target: Int64? = nil, count: Int64? = nil, withinMilliseconds: Int64? = nil,
        attribute: String? = nil, values: [String]? = nil, below: Int64? = nil, atLeast: Int64? = nil
    ) {
        self.kind = kind
        self.event = event
        self.where = filter
        self.measure = measure
        self.aggregate = aggregate
        self.groupBy = groupBy
        self.target = target
        self.count = count
        self.withinMilliseconds = withinMilliseconds
        self.attribute = attribute
        self.values = values
        self.below = below
        self.atLeast = atLeast
    }

    /// The number of steps that completes the rule (its progress is shown as steps out of this).
    public var completionSteps: Int64 {
        switch kind {
        case .event: 1
        case .threshold, .counter: max(1, target ?? 1)
        case .window: max(1, count ?? 1)
        case .perValue:
            max(1, target ?? 1).multipliedReportingOverflow(by: Int64(max(1, values?.count ?? 1))).overflow
                ? Int64.max : max(1, target ?? 1) * Int64(max(1, values?.count ?? 1))
        case .sequence: 2
        }
    }
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
