import PodiumMessages
import PodiumRuntime

/// Checking one rule against the events its game declares: a rule that names what the game does
/// not send, compares what cannot be compared, or can never complete is refused at load (and by
/// `achievement.admin.define`), with a message that names the game, the achievement and, where
/// it applies, the attribute.
extension AchievementCatalog {
    /// `place` names the achievement and game; `events` maps each declared event to its attributes.
    static func validate(_ rule: AchievementRule, place: String, events: [String: Set<String>]) throws {
        let names = try listenedEvents(rule, place: place, events: events)
        for (attribute, written) in (rule.where ?? [:]).sorted(by: { $0.key < $1.key }) {
            do {
                _ = try AttributeCondition(written)
            } catch {
                throw ConfigurationProblem("\(place): \"where\" on attribute '\(attribute)': \(error.description)")
            }
        }
        var needed = Array((rule.where ?? [:]).keys).sorted()
        if let groupBy = rule.groupBy { needed.append(groupBy) }
        if let attribute = rule.attribute { needed.append(attribute) }
        if let measured = rule.measureAttribute { needed.append(measured) }
        for name in names {
            let declared = events[name] ?? []
            for attribute in needed where !declared.contains(attribute) {
                throw ConfigurationProblem("\(place): event '\(name)' has no attribute '\(attribute)'")
            }
        }
        if rule.measureAttribute != nil && rule.measure != nil {
            throw ConfigurationProblem(
                "\(place): give either measure or measureAttribute (measureAttribute '\(rule.measureAttribute ?? "")' is the measure)"
            )
        }
        try checkCompletion(rule, place: place)
    }

    /// The events the rule listens to: exactly one of `event` and `events`, each declared.
    private static func listenedEvents(_ rule: AchievementRule, place: String, events: [String: Set<String>]) throws
        -> [String]
    {
        switch (rule.event, rule.events) {
        case (nil, nil):
            throw ConfigurationProblem("\(place): the rule needs \"event\" (one name) or \"events\" (a list of names)")
        case (_?, _?):
            throw ConfigurationProblem("\(place): the rule has both \"event\" and \"events\"; give one of them")
        case (nil, let names?):
            guard !names.isEmpty else {
                throw ConfigurationProblem("\(place): \"events\" is empty; list at least one event")
            }
            guard Set(names).count == names.count else {
                throw ConfigurationProblem("\(place): \"events\" names an event twice")
            }
        case (_?, nil):
            break
        }
        let names = rule.eventNames
        for name in names where events[name] == nil {
            throw ConfigurationProblem(
                "\(place): the rule uses event '\(name)', which the game does not declare in \"events\"")
        }
        return names
    }

    private static func checkCompletion(_ rule: AchievementRule, place: String) throws {
        func never(_ why: String) -> ConfigurationProblem {
            ConfigurationProblem("\(place): the rule can never complete: \(why)")
        }
        if let target = rule.target, target > maximumTarget { throw never("target is above \(maximumTarget)") }
        if let values = rule.values, values.count > 1000 { throw never("perValue takes at most 1000 values") }
        switch rule.kind {
        case .event:
            break
        case .counter:
            guard (rule.target ?? 0) >= 1 else { throw never("counter needs a target of at least 1") }
        case .threshold:
            guard rule.groupBy != nil else { throw never("threshold needs groupBy (the match or session attribute)") }
            guard (rule.target ?? 0) >= 1 else { throw never("threshold needs a target of at least 1") }
            let countsOne = rule.measure != .value && rule.measureAttribute == nil
            if countsOne && rule.aggregate == .max && (rule.target ?? 0) > 1 {
                throw never("the largest count of one event is 1, below the target")
            }
        case .window:
            guard (rule.count ?? 0) >= 1, (rule.count ?? 0) <= 10_000 else {
                throw never("window needs a count of 1-10000")
            }
            guard (rule.withinMilliseconds ?? 0) >= 1 else {
                throw never("window needs withinMilliseconds of at least 1")
            }
        case .perValue:
            guard rule.attribute != nil else { throw never("perValue needs an attribute") }
            guard let values = rule.values, !values.isEmpty, Set(values).count == values.count else {
                throw never("perValue needs distinct values")
            }
            guard (rule.target ?? 0) >= 1 else { throw never("perValue needs a target of at least 1") }
        case .sequence:
            guard rule.groupBy != nil else { throw never("sequence needs groupBy (the match or session attribute)") }
            guard rule.below != nil, rule.atLeast != nil else { throw never("sequence needs below and atLeast") }
        }
    }
}
