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
    /// An attribute the rule compares or measures as a number is not one (an integer, for a
    /// measure); the rule ignores the event.
    case notANumber(String)
    /// The rule's state changed; `steps` is the progress now (out of the rule's completion steps).
    case progressed(steps: Int64)
}

extension AchievementRule {
    /// Applies one event (name, value, attributes, time) to the state.
    func apply(name: String, value: Int64?, attributes: [String: JSONValue], at time: Int64, to state: inout RuleState)
        -> RuleStep
    {
        guard listens(to: name) else { return .notMatched }
        if let refusal = filter(attributes) { return refusal }
        // The number the rule reads: the event's value, or the attribute it measures instead.
        let reading: Int64?
        if let measureAttribute {
            switch attributes[measureAttribute] {
            case nil, .null?: return .missingAttribute(measureAttribute)
            case .integer(let number)?: reading = number
            case _?: return .notANumber(measureAttribute)
            }
        } else {
            reading = value
        }
        let amount: Int64
        if measure == .value || measureAttribute != nil {
            guard let reading else { return .missingAttribute("value") }
            // Progress only ever adds up: a negative measure counts as nothing.
            amount = max(0, reading)
        } else {
            amount = 1
        }
        let complete = countedSteps
        let steps: Int64
        switch kind {
        case .event:
            steps = 1
        case .counter:
            state.total = Self.saturatingSum(state.total, amount)
            steps = min(state.total, complete)
        case .threshold:
            guard let groupBy, let group = Self.key(attributes[groupBy]) else {
                return .missingAttribute(groupBy ?? "groupBy")
            }
            let current = state.groups[group]
            let next: Int64
            switch aggregate ?? .sum {
            case .sum: next = Self.saturatingSum(current ?? 0, amount)
            case .max: next = max(current ?? Int64.min, amount)
            }
            Self.remember(group, next, in: &state)
            steps = min(max(0, next), complete)
        case .window:
            let window = withinMilliseconds ?? 0
            state.times.append(time)
            state.times.removeAll { $0 <= time - window }
            if state.times.count > Int(complete) { state.times.removeFirst(state.times.count - Int(complete)) }
            steps = Int64(state.times.count)
        case .perValue:
            guard let attribute, let key = Self.key(attributes[attribute]) else {
                return .missingAttribute(attribute ?? "attribute")
            }
            guard let values, values.contains(key) else { return .notMatched }
            let each = max(1, target ?? 1)
            state.perValue[key] = min(each, Self.saturatingSum(state.perValue[key] ?? 0, amount))
            steps = values.reduce(Int64(0)) { Self.saturatingSum($0, min(each, state.perValue[$1] ?? 0)) }
        case .sequence:
            guard let groupBy, let group = Self.key(attributes[groupBy]) else {
                return .missingAttribute(groupBy ?? "groupBy")
            }
            guard let reading else { return .missingAttribute("value") }
            let fell = (state.groups[group] ?? 0) == 1
            if !fell, let below, reading < below {
                Self.remember(group, 1, in: &state)
                steps = 1
            } else if fell, let atLeast, reading >= atLeast {
                Self.remember(group, 2, in: &state)
                steps = 2
            } else {
                steps = state.groups[group] ?? 0
            }
        }
        // `best` keeps the rule's own count, so an all-or-nothing rule still counts its way up.
        state.best = max(state.best, steps)
        if allOrNothing == true { return .progressed(steps: state.best >= complete ? 1 : 0) }
        return .progressed(steps: state.best)
    }

    /// Checks the `where` conditions, in the order of their attribute names. An event that
    /// fails any condition does not concern the rule (even if it also lacks another attribute);
    /// otherwise the first missing or non-numeric attribute makes the rule ignore it.
    func filter(_ attributes: [String: JSONValue]) -> RuleStep? {
        guard let conditions = `where`, !conditions.isEmpty else { return nil }
        var ignored: RuleStep?
        for (key, written) in conditions.sorted(by: { $0.key < $1.key }) {
            // The catalog refused conditions that do not parse; one that got here anyway matches nothing.
            guard let condition = try? AttributeCondition(written) else { return .notMatched }
            switch condition.verdict(for: attributes[key]) {
            case .holds: continue
            case .fails: return .notMatched
            case .missing: ignored = ignored ?? .missingAttribute(key)
            case .notANumber: ignored = ignored ?? .notANumber(key)
            }
        }
        return ignored
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
