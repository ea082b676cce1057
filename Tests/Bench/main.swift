import Foundation
import Leaderboard
import PodiumMessages
import PodiumRuntime
import PodiumTesting

/// `podium-bench`: measures the leaderboard at scale, in-process and through the gateway.
/// Usage: podium-bench [entries] [queries] [json-output-path]
let arguments = CommandLine.arguments
let entryCount = arguments.count > 1 ? Int(arguments[1]) ?? 1_000_000 : 1_000_000
let queryCount = arguments.count > 2 ? Int(arguments[2]) ?? 20_000 : 20_000
let outputPath = arguments.count > 3 ? arguments[3] : nil

var results: [BenchResult] = []
@MainActor func report(_ result: BenchResult) {
    results.append(result)
    print(result.line)
}

print("podium-bench: \(entryCount) entries, \(queryCount) queries per measurement")

// 1. The in-memory rank index alone.
do {
    var index = RankIndex(descending: true)
    var generator = SeededGenerator(seed: 42)
    let values = (0..<entryCount).map { _ in Int64.random(in: 0..<1_000_000, using: &generator) }
    let insert = measureThroughput(count: entryCount) {
        for (position, value) in values.enumerated() {
            index.upsert(RankIndex.Entry(playerId: "player-\(position)", value: value, submittedAt: Int64(position)))
        }
    }
    report(BenchResult(name: "rank index: insert", unit: "entries/s", value: insert))
    let probes = (0..<queryCount).map { _ in "player-\(Int.random(in: 0..<entryCount, using: &generator))" }
    var sink = 0
    let rank = measureThroughput(count: probes.count) {
        for probe in probes { sink &+= index.rank(of: probe) ?? 0 }
    }
    report(BenchResult(name: "rank index: rank lookup", unit: "lookups/s", value: rank))
    let top = measureThroughput(count: queryCount) {
        for _ in 0..<queryCount { sink &+= index.entries(offset: 0, limit: 10).count }
    }
    report(BenchResult(name: "rank index: top 10", unit: "queries/s", value: top))
    if sink == 42 { print("") }
}

// 2. Through the gateway, with the leaderboard service on SQLite, 1M entries preloaded.
let data = FileManager.default.temporaryDirectory.appendingPathComponent("podium-bench-\(UUID().uuidString)")
defer { try? FileManager.default.removeItem(at: data) }
let store = try SQLiteLeaderboardStore(path: StorageLocation.database(for: "leaderboard-scores", in: data))
var generator = SeededGenerator(seed: 7)
for chunk in stride(from: 0, to: entryCount, by: 100_000) {
    let rows = (chunk..<min(chunk + 100_000, entryCount)).map {
        (playerId: "player-\($0)", value: Int64.random(in: 0..<1_000_000, using: &generator), submittedAt: Int64($0))
    }
    try await store.importEntries(gameId: "dash", boardId: "dash.highscore", rows)
}
let rssBefore = residentBytes()
let startedAt = ContinuousClock.now
let stack = try await PodiumTestStack.start(.init(dataDirectory: data))
let recovery = ContinuousClock.now - startedAt
report(BenchResult(name: "recovery: start to serving with \(entryCount) entries", unit: "s", value: recovery.seconds))
let rssAfter = residentBytes()
report(BenchResult(
    name: "memory: resident growth per entry (whole process)", unit: "bytes", value: Double(rssAfter - rssBefore) / Double(entryCount)))

let (client, grant) = try await stack.player("bencher")
_ = grant
func timed(_ type: MessageType, _ payload: JSONValue) async throws -> Duration {
    let start = ContinuousClock.now
    let reply = try await client.request(type, gameId: "dash", payload: payload)
    guard reply.type == .reply else { throw BenchFailure("\(type) failed: \(reply.payload)") }
    return ContinuousClock.now - start
}
_ = try await timed("leaderboard.submit", ["boardId": "dash.highscore", "value": 500_000])
let queries: [(String, MessageType, JSONValue)] = [
    ("top 10", "leaderboard.top", ["boardId": "dash.highscore", "limit": 10]),
    ("around player (radius 5)", "leaderboard.around", ["boardId": "dash.highscore", "radius": 5]),
    ("player rank and entry", "leaderboard.entry", ["boardId": "dash.highscore"]),
]
for (label, type, payload) in queries {
    var samples: [Duration] = []
    for _ in 0..<min(queryCount, 5000) { samples.append(try await timed(type, payload)) }
    let sorted = samples.sorted()
    for (name, quantile) in [("p50", 0.5), ("p99", 0.99), ("p999", 0.999)] {
        let sample = sorted[min(sorted.count - 1, Int(Double(sorted.count) * quantile))]
        report(BenchResult(name: "gateway \(label): one client \(name)", unit: "ms", value: sample.milliseconds))
    }
}
for (label, type, payload) in queries + [("submit", "leaderboard.submit", ["boardId": "dash.highscore", "value": 77])] {
    let count = min(queryCount, 20_000)
    let start = ContinuousClock.now
    var sent = 0
    var received = 0
    while received < count {
        while sent < count && sent - received < 256 {
            try await client.send(ClientRequest(type: type, id: "q\(sent)", gameId: "dash", payload: payload, token: grant.sessionToken))
            sent += 1
        }
        let reply = try await client.nextReply()
        guard reply.type == .reply else { throw BenchFailure("\(type) failed: \(reply.payload)") }
        received += 1
    }
    let elapsed = ContinuousClock.now - start
    report(BenchResult(name: "gateway \(label): pipelined, 256 in flight", unit: "requests/s", value: Double(count) / elapsed.seconds))
}
await client.close()
await stack.shutdown()

if let outputPath {
    let json = try JSONEncoder().encode(results)
    try json.write(to: URL(fileURLWithPath: outputPath))
    print("wrote \(outputPath)")
}

// MARK: - Helpers

struct BenchResult: Codable {
    let name: String
    let unit: String
    let value: Double
    var line: String { "\(name.padding(toLength: 62, withPad: " ", startingAt: 0)) \(String(format: "%12.3f", value)) \(unit)" }
}

struct BenchFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

func measureThroughput(count: Int, _ body: () -> Void) -> Double {
    let start = ContinuousClock.now
    body()
    return Double(count) / (ContinuousClock.now - start).seconds
}

func residentBytes() -> Int {
    guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8),
        let pages = Int(text.split(separator: " ").dropFirst().first ?? "")
    else { return 0 }
    return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
}

extension Duration {
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
    var milliseconds: Double { seconds * 1000 }
}
