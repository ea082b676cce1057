import PodiumMessages
import Testing

@testable import Achievement

/// The rule language as pure logic: conditions, measured attributes, several events and
/// all-or-nothing progress, applied event by event without sockets or a database.
@Suite("Rule language")
struct RuleLanguageTests {
    /// Applies events (name, value, attributes, time) to a rule from fresh state; the steps after each.
    static func run(_ rule: AchievementRule, _ events: [(String, Int64?, [String: JSONValue], Int64)]) -> [RuleStep] {
        var state = RuleState()
        return events.map { rule.apply(name: $0.0, value: $0.1, attributes: $0.2, at: $0.3, to: &state) }
    }

    static func one(
        _ rule: AchievementRule, _ attributes: [String: JSONValue], name: String = "hit", value: Int64? = nil
    ) -> RuleStep {
        run(rule, [(name, value, attributes, 0)])[0]
    }

    static func rule(where conditions: [String: JSONValue]) -> AchievementRule {
        AchievementRule(kind: .event, event: "hit", where: conditions)
    }

    @Test("gte and gt: a value exactly at the bound is in for gte, out for gt; integers and doubles compare exactly")
    func numericBounds() {
        let gte = Self.rule(where: ["score": ["gte": 100]])
        #expect(Self.one(gte, ["score": 99]) == .notMatched)
        #expect(Self.one(gte, ["score": 100]) == .progressed(steps: 1))
        #expect(Self.one(gte, ["score": 99.5]) == .notMatched)
        #expect(Self.one(gte, ["score": 100.0]) == .progressed(steps: 1))
        let gt = Self.rule(where: ["score": ["gt": 100]])
        #expect(Self.one(gt, ["score": 100]) == .notMatched)
        #expect(Self.one(gt, ["score": 101]) == .progressed(steps: 1))
        #expect(Self.one(gt, ["score": 100.25]) == .progressed(steps: 1))
        // 2^53 + 1 is not a double: compared as an integer, it is above the bound 2^53.
        let big = Self.rule(where: ["score": ["gt": .double(9_007_199_254_740_992)]])
        #expect(Self.one(big, ["score": .integer(9_007_199_254_740_993)]) == .progressed(steps: 1))
        #expect(Self.one(big, ["score": .integer(9_007_199_254_740_992)]) == .notMatched)
    }

    @Test("lte and lt, and a range of two bounds that must both hold")
    func upperBounds() {
        let lte = Self.rule(where: ["misses": ["lte": 0]])
        #expect(Self.one(lte, ["misses": 0]) == .progressed(steps: 1))
        #expect(Self.one(lte, ["misses": 1]) == .notMatched)
        let lt = Self.rule(where: ["ms": ["lt": 1.5]])
        #expect(Self.one(lt, ["ms": 1]) == .progressed(steps: 1))
        #expect(Self.one(lt, ["ms": 1.5]) == .notMatched)
        let range = Self.rule(where: ["level": ["gte": 3, "lt": 5]])
        #expect(
            Self.run(range, ([2, 3, 4, 5] as [Int64]).map { ("hit", nil, ["level": .integer($0)], 0) }).map {
                $0 == .progressed(steps: 1)
            }
                == [false, true, true, false])
    }

    @Test("a numeric comparison on a value that is not a number ignores the event (not a match); a missing one too")
    func notANumber() {
        let gte = Self.rule(where: ["score": ["gte": 100]])
        #expect(Self.one(gte, ["score": "150"]) == .notANumber("score"), "a string is not read as a number")
        #expect(Self.one(gte, ["score": true]) == .notANumber("score"))
        #expect(Self.one(gte, [:]) == .missingAttribute("score"))
        #expect(Self.one(gte, ["score": .null]) == .missingAttribute("score"), "null counts as absent")
        // A condition the event plainly fails wins over an attribute it lacks: not matched, not logged.
        let both = Self.rule(where: ["mode": "ranked", "score": ["gte": 100]])
        #expect(Self.one(both, ["mode": "casual"]) == .notMatched)
        #expect(Self.one(both, ["mode": "ranked", "score": "x"]) == .notANumber("score"))
    }

    @Test("in: one of a list of values, compared like plain equality (1 is not \"1\")")
    func oneOf() {
        let mode = Self.rule(where: ["mode": ["in": ["ranked", "duel"]]])
        #expect(Self.one(mode, ["mode": "ranked"]) == .progressed(steps: 1))
        #expect(Self.one(mode, ["mode": "duel"]) == .progressed(steps: 1))
        #expect(Self.one(mode, ["mode": "casual"]) == .notMatched)
        #expect(Self.one(mode, [:]) == .missingAttribute("mode"))
        let level = Self.rule(where: ["level": ["in": [1, 2]]])
        #expect(Self.one(level, ["level": 2]) == .progressed(steps: 1))
        #expect(Self.one(level, ["level": "2"]) == .notMatched)
    }

    @Test("present: true needs the attribute, false needs it absent (null counts as absent)")
    func presence() {
        let clean = Self.rule(where: ["cheat": ["present": false]])
        #expect(Self.one(clean, [:]) == .progressed(steps: 1))
        #expect(Self.one(clean, ["cheat": .null]) == .progressed(steps: 1))
        #expect(Self.one(clean, ["cheat": false]) == .notMatched, "present, whatever its value")
        let tagged = Self.rule(where: ["clan": ["present": true]])
        #expect(Self.one(tagged, ["clan": "red"]) == .progressed(steps: 1))
        #expect(Self.one(tagged, [:]) == .notMatched, "absence is the condition's answer, not an ignored event")
        let taggedHigh = Self.rule(where: ["clan": ["present": true, "in": ["red"]]])
        #expect(Self.one(taggedHigh, ["clan": "blue"]) == .notMatched)
        #expect(Self.one(taggedHigh, ["clan": "red"]) == .progressed(steps: 1))
    }

    @Test("the plain equality form works as before")
    func plainEquality() {
        let level = Self.rule(where: ["level": "3", "won": true])
        #expect(Self.one(level, ["level": "3", "won": true]) == .progressed(steps: 1))
        #expect(Self.one(level, ["level": 3, "won": true]) == .notMatched)
        #expect(Self.one(level, ["won": true]) == .missingAttribute("level"))
    }

    @Test("measureAttribute: the named integer attribute is the measure; one event feeds several measured rules")
    func measuredAttribute() {
        let damage = AchievementRule(kind: .counter, event: "hit", measureAttribute: "damage", target: 100)
        let healing = AchievementRule(kind: .counter, event: "hit", measureAttribute: "healing", target: 50)
        let byValue = AchievementRule(kind: .counter, event: "hit", measure: .value, target: 10)
        var states = [RuleState(), RuleState(), RuleState()]
        let rules = [damage, healing, byValue]
        func send(_ value: Int64?, _ attributes: [String: JSONValue]) -> [RuleStep] {
            rules.indices.map {
                rules[$0].apply(name: "hit", value: value, attributes: attributes, at: 0, to: &states[$0])
            }
        }
        #expect(
            send(3, ["damage": 60, "healing": 20]) == [
                .progressed(steps: 60), .progressed(steps: 20), .progressed(steps: 3),
            ])
        #expect(
            send(3, ["damage": 40, "healing": -5]) == [
                .progressed(steps: 100), .progressed(steps: 20), .progressed(steps: 6),
            ])
        #expect(
            send(nil, ["damage": 1]) == [
                .progressed(steps: 100), .missingAttribute("healing"), .missingAttribute("value"),
            ])
        #expect(Self.one(damage, ["damage": 2.5]) == .notANumber("damage"), "a measure counts whole numbers only")
        #expect(Self.one(damage, ["damage": "9"]) == .notANumber("damage"))
        let biggest = AchievementRule(
            kind: .threshold, event: "hit", measureAttribute: "damage", aggregate: .max, groupBy: "m", target: 50)
        #expect(
            Self.run(biggest, [("hit", 999, ["m": "a", "damage": 30], 0), ("hit", 1, ["m": "a", "damage": 50], 0)])
                == [.progressed(steps: 30), .progressed(steps: 50)])
        let comeback = AchievementRule(
            kind: .sequence, event: "hit", measureAttribute: "hp", groupBy: "m", below: 10, atLeast: 100)
        #expect(
            Self.run(comeback, [("hit", 500, ["m": "a", "hp": 5], 0), ("hit", 0, ["m": "a", "hp": 100], 0)])
                == [.progressed(steps: 1), .progressed(steps: 2)])
    }

    @Test("events: a rule listens to several event names alike, and to no other")
    func severalEvents() {
        let rule = AchievementRule(kind: .counter, events: ["goal", "assist"], target: 3)
        let steps = Self.run(
            rule, [("goal", nil, [:], 0), ("save", nil, [:], 0), ("assist", nil, [:], 0), ("goal", nil, [:], 0)])
        #expect(steps == [.progressed(steps: 1), .notMatched, .progressed(steps: 2), .progressed(steps: 3)])
        #expect(rule.listens(to: "assist") && !rule.listens(to: "save"))
        #expect(AchievementRule(kind: .event, event: "goal").eventNames == ["goal"])
    }

    @Test("all or nothing: counter, threshold, window and sequence show 0 steps until complete, then 1")
    func allOrNothing() {
        let counter = AchievementRule(kind: .counter, event: "hit", target: 3, allOrNothing: true)
        #expect(counter.completionSteps == 1 && counter.countedSteps == 3)
        #expect(Self.run(counter, Array(repeating: ("hit", nil, [:], 0), count: 3)).map(Self.steps) == [0, 0, 1])

        let threshold = AchievementRule(kind: .threshold, event: "hit", groupBy: "m", target: 2, allOrNothing: true)
        #expect(
            Self.run(
                threshold, [("hit", nil, ["m": "a"], 0), ("hit", nil, ["m": "b"], 0), ("hit", nil, ["m": "b"], 0)]
            )
            .map(Self.steps) == [0, 0, 1])

        let window = AchievementRule(
            kind: .window, event: "hit", count: 3, withinMilliseconds: 1000, allOrNothing: true)
        #expect(
            Self.run(window, ([0, 500, 1000, 1200] as [Int64]).map { ("hit", nil, [:], $0) }).map(Self.steps) == [
                0, 0, 0, 1,
            ],
            "0, 500 and 1000 are not within 1000 ms; 500, 1000 and 1200 are")

        let sequence = AchievementRule(
            kind: .sequence, event: "balance", groupBy: "s", below: 10, atLeast: 100, allOrNothing: true)
        #expect(sequence.completionSteps == 1)
        #expect(
            Self.run(sequence, [("balance", 5, ["s": "x"], 0), ("balance", 100, ["s": "x"], 0)]).map(Self.steps) == [
                0, 1,
            ])

        let perValue = AchievementRule(
            kind: .perValue, event: "hit", target: 1, attribute: "v", values: ["a", "b"], allOrNothing: true)
        #expect(
            Self.run(perValue, [("hit", nil, ["v": "a"], 0), ("hit", nil, ["v": "b"], 0)]).map(Self.steps) == [0, 1])
        // Without the flag the same rule shows its count.
        #expect(
            Self.run(AchievementRule(kind: .counter, event: "hit", target: 3), [("hit", nil, [:], 0)]).map(Self.steps)
                == [1])
    }

    static func steps(_ step: RuleStep) -> Int64 {
        if case .progressed(let steps) = step { return steps }
        return -1
    }

    @Test("an all-or-nothing achievement is earned once the rule completes, through the service's evaluation")
    func allOrNothingEarns() throws {
        let definition = AchievementDefinition(
            id: "quick", title: "Quick", description: "d", earnedDescription: "e", points: 5, hidden: true,
            rule: AchievementRule(kind: .window, event: "hit", count: 2, withinMilliseconds: 100, allOrNothing: true))
        #expect(definition.completionSteps == 1)
        var record = ProgressRecord()
        var state = RuleState()
        for (time, expected) in [(Int64(0), Int64(0)), (200, 0), (250, 1)] {
            guard
                case .progressed(let steps) = definition.rule!.apply(
                    name: "hit", value: nil, attributes: [:], at: time, to: &state)
            else {
                Issue.record("the hit did not progress")
                return
            }
            #expect(steps == expected)
            record.steps = max(record.steps, steps)
        }
        #expect(record.percentComplete(target: definition.completionSteps) == 100)
        #expect(
            !ProgressRecord(steps: 0).hasProgress, "partial progress keeps a hidden all-or-nothing achievement hidden")
    }
}
