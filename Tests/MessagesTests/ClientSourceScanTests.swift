import Foundation
import PodiumMessages
import Testing

/// The edges that talk to the gateway (the `podium` command, the console, the test support)
/// build every request through the typed client (`Shared/Client`) from the request catalog:
/// no request type spelled as a string, no request envelope or payload built by hand as JSON.
@Suite("Typed requests at the edges")
struct ClientSourceScanTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// The folders scanned.
    static let folders = ["Services/CLI", "Services/Gateway/Library/Console", "Shared/Testing"]

    /// What counts as building a request by hand, and the few places allowed to, with why.
    struct Rule {
        let name: String
        let pattern: String
        /// Allowed occurrences by file (a path under the root): more fail, and so do fewer, so
        /// that an allowance never outlives its reason.
        let allowed: [String: (count: Int, reason: String)]
    }

    static let rules: [Rule] = [
        Rule(
            name: "a request envelope built by hand", pattern: #"ClientRequest\("#,
            allowed: [
                "Services/CLI/RequestCommand.swift": (
                    1, "`podium request --type T --payload P` sends any type the user names"
                ),
                "Shared/Testing/TestClient.swift": (
                    1, "the raw escape hatch, for tests about malformed or hand-built requests"
                ),
            ]),
        Rule(
            name: "a payload built as a JSON object", pattern: #"payload: *(\[|\.object\()|\.object\(\["#,
            allowed: [:]),
        Rule(
            name: "a JSON object typed by hand", pattern: #"\[String: JSONValue\]"#,
            allowed: [
                "Services/CLI/EventSource.swift": (
                    1, "a game event's attributes, read from the command line or a file"
                ),
                "Services/CLI/PublishCommand.swift": (1, "a game event's attributes, from --attribute"),
                "Services/CLI/Leaderboard/LeaderboardSubmitCommand.swift": (1, "a score's metadata, from --metadata"),
                "Shared/Testing/TestClient+Games.swift": (1, "the attributes of the events a test plays"),
            ]),
        Rule(name: "a reply read by key", pattern: #"payload\["#, allowed: [:]),
    ]

    static func sources() throws -> [(path: String, text: String)] {
        var sources: [(String, String)] = []
        for folder in folders {
            let url = root.appendingPathComponent(folder)
            let files =
                FileManager.default.enumerator(at: url, includingPropertiesForKeys: nil)?
                .compactMap { $0 as? URL }.filter { $0.pathExtension == "swift" } ?? []
            #expect(!files.isEmpty, "no sources under \(url.path)")
            for file in files {
                let path = folder + "/" + file.path.dropFirst(url.path.count + 1)
                sources.append((path, try String(contentsOf: file, encoding: .utf8)))
            }
        }
        return sources
    }

    @Test("no request type is spelled as a string: the catalog's definitions name them")
    func noTypeStrings() throws {
        let known = Set(RequestCatalog.all.map(\.type.rawValue))
        let literal = try Regex(#""([a-z]+\.[a-z][a-z.-]*)""#)
        var offences: [String] = []
        for (path, text) in try Self.sources() {
            for match in text.matches(of: literal) {
                let type = String(text[match.output[1].range!])
                if known.contains(type) { offences.append("\(path): \(type)") }
            }
        }
        #expect(offences.isEmpty, "spelled as strings: \(offences)")
    }

    @Test("no request is built as JSON by hand: the typed client builds them (but where allowed, and why)")
    func noHandBuiltRequests() throws {
        let sources = try Self.sources()
        for rule in Self.rules {
            let regex = try Regex(rule.pattern)
            var counts: [String: Int] = [:]
            for (path, text) in sources {
                let count = text.split(separator: "\n").filter { line in
                    !line.trimmingCharacters(in: .whitespaces).hasPrefix("//") && line.contains(regex)
                }.count
                if count > 0 { counts[path] = count }
            }
            for (path, count) in counts where count != rule.allowed[path]?.count {
                Issue.record("\(path): \(count) × \(rule.name) (allowed: \(rule.allowed[path]?.count ?? 0))")
            }
            for (path, allowance) in rule.allowed where counts[path] == nil {
                Issue.record("\(path) no longer has \(rule.name) (\(allowance.reason)): drop its allowance")
            }
        }
    }

    /// The scan must see a violation: each rule's pattern matches what it forbids.
    @Test("the patterns catch what they forbid")
    func patternsCatch() throws {
        let samples = [
            #"let request = ClientRequest(type: "x", id: "1")"#,
            #"try await client.request("leaderboard.top", payload: ["boardId": "b"])"#,
            #"var payload: [String: JSONValue] = [:]"#,
            #"#expect(reply.payload["entry"]?["value"] == 1)"#,
        ]
        for (rule, sample) in zip(Self.rules, samples) {
            #expect(sample.contains(try Regex(rule.pattern)), "\(rule.name) misses \(sample)")
        }
    }
}
