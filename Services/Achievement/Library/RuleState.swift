import PodiumMessages

/// What a rule remembers for one player, stored as JSON next to the player's progress.
/// Counts are integers, so progress is exact.
public struct RuleState: Codable, Sendable, Equatable {
    /// counter: the running total.
    var total: Int64 = 0
    /// threshold: the measure per match or session; sequence: 1 once the value fell below.
    var groups: [String: Int64] = [:]
    /// threshold and sequence: group keys, oldest first (only the latest few are kept).
    var groupOrder: [String] = []
    /// window: times of the latest matching events, oldest first.
    var times: [Int64] = []
    /// perValue: matching events per attribute value.
    var perValue: [String: Int64] = [:]
    /// The best progress reached so far, in steps (progress never goes backwards).
    var best: Int64 = 0

    /// Matches and sessions remembered per player; older ones are dropped (they are over).
    static let groupLimit = 32
}

/// The result of applying one event to one rule.
enum RuleStep: Sendable, Equatable {
    /// The event does not concern this rule.
    case notMatched
    /// The event lacks an attribute the rule needs; the rule ignores it.
    case missingAttribute(String)
    /// The rule's state changed; `steps` is the progress now (out of the rule's completion steps).
    case progressed(steps: Int64)
}

extension AchievementRule {
    /// Applies one event (name, value, attributes, time) to the state.
    func apply(name: String, value: Int64?, attributes: [String: JSONValue], at time: Int64, to state: inout RuleState) -> RuleStep {
        guard name == event else { return .notMatched }
        for (key, expected) in `where` ?? [:] {
            guard let actual = attributes[key] else { return .missingAttribute(key) }
            guard actual == expected else { return .notMatched }
        }
        let amount: Int64
        switch measure ?? .count {
        case .count: amount = 1
        case .value:
            guard let value else { return .missingAttribute("value") }
            // Progress only ever adds up: a negative measure counts as nothing.
            amount = max(0, value)
        }
        let steps: Int64
        switch kind {
        case .event:
            steps = 1
        case .counter:
            state.total = Self.saturatingSum(state.total, amount)
            steps = min(state.total, completionSteps)
        case .threshold:
            guard let groupBy, let group = Self.key(attributes[groupBy]) else { return .missingAttribute(groupBy ?? "groupBy") }
            let current = state.groups[group]
            let next: Int64
            switch aggregate ?? .sum {
            case .sum: next = Self.saturatingSum(current ?? 0, amount)
            case .max: next = max(current ?? Int64.min, amount)
            }
            Self.remember(group, next, in: &state)
            steps = min(max(0, next), completionSteps)
        case .window:
            let window = withinMilliseconds ?? 0
            state.times.append(time)
            state.times.removeAll { $0 <= time - window }
            if state.times.count > Int(completionSteps) { state.times.removeFirst(state.times.count - Int(completionSteps)) }
            steps = Int64(state.times.count)
        case .perValue:
            guard let attribute, let key = Self.key(attributes[attribute]) else { return .missingAttribute(attribute ?? "attribute") }
            guard let values, values.contains(key) else { return .notMatched }
            let each = max(1, target ?? 1)
            state.perValue[key] = min(each, Self.saturatingSum(state.perValue[key] ?? 0, amount))
            steps = values.reduce(Int64(0)) { Self.saturatingSum($0, min(each, state.perValue[$1] ?? 0)) }
        case .sequence:
            guard let groupBy, let group = Self.key(attributes[groupBy]) else { return .missingAttribute(groupBy ?? "groupBy") }
            guard let value else { return .missingAttribute("value") }
            let fell = (state.groups[group] ?? 0) == 1
            if !fell, let below, value < below {
                Self.remember(group, 1, in: &state)
                steps = 1
            } else if fell, let atLeast, value >= atLeast {
                Self.remember(group, 2, in: &state)
                steps = 2
            } else {
                steps = state.groups[group] ?? 0
            }
        }
        state.best = max(state.best, steps)
        return .progressed(steps: state.best)
    }

    /// Adds two non-negative amounts, stopping at the largest integer instead of overflowing.
    static func saturatingSum(_ a: Int64, _ b: Int64) -> Int64 {
        let (sum, overflow) = a.addingReportingOverflow(b)
        return overflow ? Int64.max : sum
    }

    /// Attribute values that identify a group or a per-value bucket.
    static func key(_ value: JSONValue?) -> String? {
        switch value {
        case .string(let text)?: text
        case .integer(let number)?: String(number)
        case .bool(let flag)?: String(flag)
        default: nil
        }
    }

    private static func remember(_ group: String, _ value: Int64, in state: inout RuleState) {
        if state.groups[group] == nil {
            state.groupOrder.append(group)
            if state.groupOrder.count > RuleState.groupLimit {
                let dropped = state.groupOrder.removeFirst()
                state.groups[dropped] = nil
            }
        }
        state.groups[group] = value
    }
}
