import Foundation
import PodiumMessages

/// One event to publish, with the game and player it is for.
struct OutgoingEvent {
    var gameId: String?
    var playerId: String?
    var event: GameEvent
}

/// Reads events from JSON: one object, an array of objects, or one object per line. Each object
/// is `{"gameId", "playerId", "name", "value", "attributes"}`; gameId and playerId may be left
/// to the command's flags.
enum EventSource {
    struct Problem: Error, CustomStringConvertible {
        let description: String
    }

    static func parse(_ data: Data) throws -> [OutgoingEvent] {
        if let whole = try? WireCodec.decode(JSONValue.self, from: data) {
            switch whole {
            case .array(let items): return try items.enumerated().map { try event(from: $1, at: "item \($0 + 1)") }
            case .object: return [try event(from: whole, at: "the input")]
            default: throw Problem(description: "input must be a JSON object, an array of objects, or JSON lines")
            }
        }
        var events: [OutgoingEvent] = []
        for (number, line) in String(decoding: data, as: UTF8.self).split(separator: "\n").enumerated() {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.isEmpty { continue }
            guard let value = try? WireCodec.decode(JSONValue.self, from: Data(trimmed.utf8)) else {
                throw Problem(description: "line \(number + 1) is not JSON")
            }
            events.append(try event(from: value, at: "line \(number + 1)"))
        }
        return events
    }

    private static func event(from value: JSONValue, at place: String) throws -> OutgoingEvent {
        guard let object = value.objectValue else { throw Problem(description: "\(place) is not a JSON object") }
        guard let name = object["name"]?.stringValue else { throw Problem(description: "\(place) has no \"name\"") }
        var attributes: [String: JSONValue]?
        if let given = object["attributes"] {
            guard let members = given.objectValue else {
                throw Problem(description: "\(place): \"attributes\" must be an object")
            }
            attributes = members
        }
        var number: Int64?
        if let given = object["value"] {
            guard let integer = given.integerValue else {
                throw Problem(description: "\(place): \"value\" must be an integer")
            }
            number = integer
        }
        return OutgoingEvent(
            gameId: object["gameId"]?.stringValue, playerId: object["playerId"]?.stringValue,
            event: GameEvent(name: name, value: number, attributes: attributes))
    }

    /// Parses `key=value`; numbers and booleans become JSON numbers and booleans.
    static func attribute(_ text: String) throws -> (String, JSONValue) {
        guard let equals = text.firstIndex(of: "="), equals != text.startIndex else {
            throw Problem(description: "--attribute takes key=value, got '\(text)'")
        }
        let key = String(text[..<equals])
        let raw = String(text[text.index(after: equals)...])
        if let integer = Int64(raw) { return (key, .integer(integer)) }
        if let double = Double(raw), raw.contains(".") { return (key, .double(double)) }
        if raw == "true" || raw == "false" { return (key, .bool(raw == "true")) }
        return (key, .string(raw))
    }
}
