/// How an achievement follows from a game's events (docs/GAME-CONFIG.md, "Rules"). Every kind
/// counts exactly (integers), so progress never suffers the rounding of percentages.
///
/// The type only carries the configuration as written; the achievement service checks it
/// (`AchievementCatalog`) and evaluates it. `where` stays raw JSON here so that a condition the
/// language cannot compare is refused with a message naming the achievement and the attribute,
/// rather than failing to decode somewhere without that context.
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
    /// The event name that counts (give this or `events`).
    public var event: String?
    /// Several event names that count alike (give this or `event`).
    public var events: [String]?
    /// Conditions on attributes an event must meet to count, all of them: a plain value is
    /// equality, an object holds operators (`gt`, `gte`, `lt`, `lte`, `in`, `present`).
    public var `where`: [String: JSONValue]?
    public var measure: Measure?
    /// An integer attribute that is the measure instead of the event's `value`.
    public var measureAttribute: String?
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
    /// Progress is shown as 0 or 1 step (GameKit's "complete when achieved"): partial
    /// progress is still counted, but only completion shows.
    public var allOrNothing: Bool?

    public init(
        kind: Kind, event: String? = nil, events: [String]? = nil, where filter: [String: JSONValue]? = nil,
        measure: Measure? = nil, measureAttribute: String? = nil, aggregate: Aggregate? = nil, groupBy: String? = nil,
        target: Int64? = nil, count: Int64? = nil, withinMilliseconds: Int64? = nil, attribute: String? = nil,
        values: [String]? = nil, below: Int64? = nil, atLeast: Int64? = nil, allOrNothing: Bool? = nil
    ) {
        self.kind = kind
        self.event = event
        self.events = events
        self.where = filter
        self.measure = measure
        self.measureAttribute = measureAttribute
        self.aggregate = aggregate
        self.groupBy = groupBy
        self.target = target
        self.count = count
        self.withinMilliseconds = withinMilliseconds
        self.attribute = attribute
        self.values = values
        self.below = below
        self.atLeast = atLeast
        self.allOrNothing = allOrNothing
    }

    /// Every event name the rule listens to.
    public var eventNames: [String] { (event.map { [$0] } ?? []) + (events ?? []) }

    /// Whether an event of this name concerns the rule.
    public func listens(to name: String) -> Bool {
        event == name || (events?.contains(name) ?? false)
    }

    /// The number of steps that completes the rule (its progress is shown as steps out of this):
    /// 1 for an all-or-nothing rule, else the rule's own count (``countedSteps``).
    public var completionSteps: Int64 { allOrNothing == true ? 1 : countedSteps }

    /// The count at which the rule is complete, whatever is shown: hits in the window, the
    /// threshold's target, the sequence's two steps.
    public var countedSteps: Int64 {
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
