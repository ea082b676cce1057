import PodiumMessages

/// One entry of a rule's `where`: what one attribute of an event must be for the event to count.
///
/// Written in the game file either as a plain scalar (equality, the original form, kept as it
/// was) or as an object of operators that must all hold:
/// `{"gte": 100}`, `{"gt": 1, "lte": 5}`, `{"in": ["ranked", "duel"]}`, `{"present": false}`.
/// Parsing refuses anything the language cannot compare, so a configuration never holds a
/// condition that silently never matches.
struct AttributeCondition: Sendable, Equatable {
    /// The plain form: exactly this JSON value (`true` is not `"true"`, `1` is not `"1"`).
    var equals: JSONValue?
    /// Numeric bounds; each holds only for an attribute that is a number.
    var greaterThan: JSONValue?
    var atLeast: JSONValue?
    var lessThan: JSONValue?
    var atMost: JSONValue?
    /// One of these values (compared like `equals`).
    var oneOf: [JSONValue]?
    /// Whether the attribute must be there (`true`) or must not (`false`).
    var present: Bool?

    /// The operator names of the object form, as written in the game file.
    static let operators = ["gt", "gte", "lt", "lte", "in", "present"]
    /// Most values an `in` list may hold.
    static let maximumListed = 1000

    /// How one event's attribute fares against the condition.
    enum Verdict: Sendable, Equatable {
        case holds
        case fails
        /// The attribute is absent (or `null`) and the condition needs a value to judge.
        case missing
        /// A numeric comparison met a value that is not a number (a string, a boolean).
        case notANumber
    }

    /// Reads one `where` entry; throws a sentence saying what is wrong with it.
    init(_ written: JSONValue) throws(ConditionProblem) {
        switch written {
        case .array:
            throw ConditionProblem("a list cannot be compared; to accept one of several values write {\"in\": [...]}")
        case .object(let operators):
            guard !operators.isEmpty else {
                throw ConditionProblem(
                    "an empty condition; use one or more of \(Self.operators.joined(separator: ", "))")
            }
            for (name, operand) in operators.sorted(by: { $0.key < $1.key }) {
                switch name {
                case "gt": greaterThan = try Self.number(operand, name)
                case "gte": atLeast = try Self.number(operand, name)
                case "lt": lessThan = try Self.number(operand, name)
                case "lte": atMost = try Self.number(operand, name)
                case "in":
                    guard case .array(let listed) = operand, !listed.isEmpty, listed.count <= Self.maximumListed else {
                        throw ConditionProblem("'in' needs a list of 1-\(Self.maximumListed) values")
                    }
                    for value in listed where !Self.isComparable(value) {
                        throw ConditionProblem(
                            "'in' lists \(Self.describe(value)); only strings, numbers and booleans can be compared")
                    }
                    oneOf = listed
                case "present":
                    guard case .bool(let flag) = operand else {
                        throw ConditionProblem("'present' needs true or false")
                    }
                    present = flag
                default:
                    throw ConditionProblem("unknown operator '\(name)'; use \(Self.operators.joined(separator: ", "))")
                }
            }
            if present == false && operators.count > 1 {
                throw ConditionProblem("'present': false cannot be combined with a condition on the value")
            }
        default:
            equals = written
        }
    }

    /// Judges an event's value of the attribute (`nil`: the event does not carry it).
    func verdict(for value: JSONValue?) -> Verdict {
        if let equals {
            // The original form: an absent attribute is missing, any other value must be equal.
            guard let value else { return .missing }
            return value == equals ? .holds : .fails
        }
        // In the operator form a null counts as absent, as everywhere on the wire (PROTOCOL 3).
        guard let actual = value == .null ? nil : value else {
            switch present {
            case false?: return .holds
            case true?: return .fails
            case nil: return .missing
            }
        }
        if present == false { return .fails }
        if let oneOf, !oneOf.contains(actual) { return .fails }
        let bounds: [(JSONValue?, (Int) -> Bool)] = [
            (greaterThan, { $0 > 0 }), (atLeast, { $0 >= 0 }), (lessThan, { $0 < 0 }), (atMost, { $0 <= 0 }),
        ]
        for (bound, accepts) in bounds {
            guard let bound else { continue }
            guard let order = Self.compare(actual, bound) else { return .notANumber }
            if !accepts(order) { return .fails }
        }
        return .holds
    }

    /// Whether any bound needs a number.
    var comparesNumbers: Bool { greaterThan != nil || atLeast != nil || lessThan != nil || atMost != nil }

    /// -1, 0 or 1 as `a` is below, equal to or above `b`; nil unless both are numbers. An integer
    /// and a double compare exactly (no rounding of large integers through a double).
    static func compare(_ a: JSONValue, _ b: JSONValue) -> Int? {
        switch (a, b) {
        case (.integer(let x), .integer(let y)): return x < y ? -1 : (x == y ? 0 : 1)
        case (.double(let x), .double(let y)): return x < y ? -1 : (x == y ? 0 : 1)
        case (.integer(let x), .double(let y)): return compare(x, y)
        case (.double(let x), .integer(let y)): return -compare(y, x)
        default: return nil
        }
    }

    /// Compares an integer with a (finite) double without losing the integer's precision.
    private static func compare(_ integer: Int64, _ double: Double) -> Int {
        // 2^63 is exactly representable; every Int64 lies in [-2^63, 2^63).
        if double >= 9_223_372_036_854_775_808.0 { return -1 }
        if double < -9_223_372_036_854_775_808.0 { return 1 }
        let floor = double.rounded(.down)
        let whole = Int64(floor)
        if integer < whole { return -1 }
        if integer > whole { return 1 }
        return floor == double ? 0 : -1
    }

    private static func number(_ operand: JSONValue, _ name: String) throws(ConditionProblem) -> JSONValue {
        switch operand {
        case .integer, .double: return operand
        default: throw ConditionProblem("'\(name)' needs a number, not \(describe(operand))")
        }
    }

    private static func isComparable(_ value: JSONValue) -> Bool {
        switch value {
        case .string, .integer, .double, .bool: true
        case .null, .array, .object: false
        }
    }

    private static func describe(_ value: JSONValue) -> String {
        switch value {
        case .null: "null"
        case .bool: "a boolean"
        case .integer, .double: "a number"
        case .string(let text): "the string \"\(text)\""
        case .array: "a list"
        case .object: "an object"
        }
    }
}

/// Why a `where` entry cannot be used; the catalog adds the game, achievement and attribute.
struct ConditionProblem: Error, Sendable, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
