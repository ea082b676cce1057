import Foundation
import Leaderboard
import LeaderboardPostgres
import LeaderboardSQLite
import PodiumMessages
import PodiumRuntime
import PodiumTesting

/// podium-bench's command line.
struct BenchOptions {
    var entries = 1_000_000
    var events: Int
    var runs = 3
    var quick = false
    var clients = 4
    var window = 64
    var backgroundRate = 10_000.0
    var resultsDirectory = "bench-results"
    var zmqPath: String?
    var redisDirectory: String?
    var profile: String?
    var profileSeconds = 20.0
    var readyFile: String?
    var recoveryChild: String?
    var catchUp = false
    /// Runs the leaderboard and ingest measurements with every store in this PostgreSQL database.
    var postgres: String?
    /// The SQLite run's summary.json, to compare the PostgreSQL rows with.
    var compare: String?

    var latencySamples: Int { quick ? 300 : 2000 }
    var pipelinedDuration: Duration { quick ? .seconds(1) : .seconds(3) }
    var ingestDuration: Duration { quick ? .milliseconds(1500) : .seconds(5) }
    var notificationSamples: Int { quick ? 20 : 100 }
    var catchUpEvents: Int { quick ? 5_000 : 50_000 }

    init(_ arguments: [String]) {
        var events: Int?
        var iterator = arguments.dropFirst().makeIterator()
        while let argument = iterator.next() {
            func value() -> String {
                guard let value = iterator.next() else { fatalError("podium-bench: \(argument) needs a value") }
                return value
            }
            switch argument {
            case "--entries": entries = Int(value()) ?? entries
            case "--events": events = Int(value())
            case "--runs": runs = max(1, Int(value()) ?? runs)
            case "--quick": quick = true
            case "--clients": clients = Int(value()) ?? clients
            case "--window": window = Int(value()) ?? window
            case "--background-rate": backgroundRate = Double(value()) ?? backgroundRate
            case "--results": resultsDirectory = value()
            case "--zmq": zmqPath = value()
            case "--redis": redisDirectory = value()
            case "--profile": profile = value()
            case "--seconds": profileSeconds = Double(value()) ?? profileSeconds
            case "--ready-file": readyFile = value()
            case "--recovery-child": recoveryChild = value()
            case "--catch-up": catchUp = true
            case "--postgres": postgres = value()
            case "--compare": compare = value()
            default: fatalError("podium-bench: unknown argument \(argument)")
            }
        }
        self.events = events ?? entries
    }
}

/// Loads `entries` random scores on the board straight into the leaderboard's database: its
/// SQLite file, or on PostgreSQL (`--postgres`) the schema the stack's leaderboard will open.
func preload(entries: Int, into data: URL) async throws {
    typealias Rows = [(playerId: String, value: Int64, submittedAt: Int64)]
    let load: (Rows) async throws -> Void
    var close: () async -> Void = {}
    if let database = try PodiumTestStack.testDatabase(service: "leaderboard", dataDirectory: data) {
        let store = try await PostgresLeaderboardStore.open(database)
        load = { try await store.importEntries(gameId: Workload.game, boardId: Workload.board, $0) }
        close = { await store.close() }
    } else {
        let store = try SQLiteLeaderboardStore(path: StorageLocation.database(for: "leaderboard-scores", in: data))
        load = { try await store.importEntries(gameId: Workload.game, boardId: Workload.board, $0) }
    }
    var generator = SeededGenerator(seed: 7)
    for chunk in stride(from: 0, to: entries, by: 100_000) {
        try await load(
            (chunk..<min(chunk + 100_000, entries)).map {
                (
                    playerId: "player-\($0)", value: Int64.random(in: 0..<1_000_000, using: &generator),
                    submittedAt: Int64($0)
                )
            })
    }
    await close()
}

/// One restart, in this process (started fresh by ``runRecoveryChild``): the time from start
/// to serving (every service ready and a first top-10 answered), the resident memory that
/// added, and how far the achievement service is behind the event log; with `--catch-up`, also
/// how long the achievement service takes to reach the log's head.
func recoveryChild(dataDirectory: URL, options: BenchOptions) async throws {
    let before = residentBytes()
    let start = ContinuousClock.now
    let stack = try await PodiumTestStack.start(Workload.stackOptions(dataDirectory: dataDirectory))
    let player = try await stack.player("restart-\(UUID().uuidString.prefix(8).lowercased())")
    try await Workload.top.call(player.client)
    let serving = ContinuousClock.now - start
    let after = residentBytes()
    let client = try stack.client()
    let health = try await systemHealth(client)
    let events = health.services["achievement"]?.health?.streams?[StreamName.events]
    var result: [String: Double] = [
        "seconds": serving.seconds, "rssGrowth": Double(after - before), "rssAfter": Double(after),
        "achievementBehind": Double((events?.head ?? 0) - min(events?.head ?? 0, events?.position ?? 0)),
    ]
    if options.catchUp {
        let head = events?.head ?? 0
        _ = try await waitUntilApplied(eventSequence: head, client: client, limit: .seconds(300))
        result["catchUpSeconds"] = (ContinuousClock.now - start).seconds
    }
    await client.close()
    await player.client.close()
    await stack.shutdown()
    let json = try JSONSerialization.data(withJSONObject: result)
    print("RECOVERY " + String(decoding: json, as: UTF8.self))
}

/// Runs this executable again as a recovery child and returns what it measured.
func runRecoveryChild(dataDirectory: URL, options: BenchOptions, catchUp: Bool) throws -> [String: Double] {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
    process.arguments =
        ["--recovery-child", dataDirectory.path, "--entries", "\(options.entries)"] + (catchUp ? ["--catch-up"] : [])
    let pipe = Pipe()
    process.standardOutput = pipe
    try process.run()
    let output = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    let text = String(decoding: output, as: UTF8.self)
    guard process.terminationStatus == 0,
        let line = text.split(whereSeparator: \.isNewline).first(where: { $0.hasPrefix("RECOVERY ") }),
        let object = try JSONSerialization.jsonObject(with: Data(line.dropFirst(9).utf8)) as? [String: Double]
    else { throw BenchFailure("recovery child failed (\(process.terminationStatus)): \(text)") }
    return object
}

/// A steady workload for `perf record -p`: preloads, starts the stack, writes `--ready-file`,
/// then runs pipelined top-10 queries or the ingest mix for `--seconds`.
func profileWorkload(_ workload: String, options: BenchOptions) async throws {
    let data = FileManager.default.temporaryDirectory.appendingPathComponent("podium-profile-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: data) }
    try await preload(entries: options.entries, into: data)
    let stack = try await PodiumTestStack.start(Workload.stackOptions(dataDirectory: data))
    var players: [(client: TestClient, grant: SessionGrant)] = []
    for index in 0..<options.clients { players.append(try await stack.player("profiler-\(index)")) }
    if let readyFile = options.readyFile {
        _ = FileManager.default.createFile(atPath: readyFile, contents: Data("\(getpid())\n".utf8))
    }
    let outcome = try await pipelinedLoad(
        players: players, window: options.window, duration: .seconds(options.profileSeconds)
    ) {
        client, sequence, token in
        if workload == "top10" {
            return Workload.top.request("prof-\(client)-\(sequence)", token)
        }
        var random = SeededGenerator(seed: UInt64(client * 1_000_003 + sequence))
        return Workload.ingestRequest(client: client, sequence: sequence, prefix: "prof", token: token, random: &random)
    }
    print("profile \(workload): \(outcome.replies) replies, \(figure(outcome.rate))/s, \(outcome.errors) errors")
    for player in players { await player.client.close() }
    await stack.shutdown()
}

/// What the figures were taken on, and how busy it was.
func machineDescription(startedAt: Date, options: BenchOptions) -> [String: Any] {
    func read(_ path: String) -> String { (try? String(contentsOfFile: path, encoding: .utf8)) ?? "" }
    let model =
        read("/proc/cpuinfo").split(separator: "\n").first { $0.hasPrefix("model name") }
        .map { String($0.split(separator: ":", maxSplits: 1)[1]).trimmingCharacters(in: .whitespaces) } ?? "unknown"
    let memory = read("/proc/meminfo").split(separator: "\n").first { $0.hasPrefix("MemTotal") }.map(String.init) ?? ""
    return [
        "cpu": model, "cores": ProcessInfo.processInfo.activeProcessorCount, "memory": memory,
        "loadAverageAtEnd": read("/proc/loadavg").trimmingCharacters(in: .whitespacesAndNewlines),
        "startedAt": ISO8601DateFormatter().string(from: startedAt),
        "finishedAt": ISO8601DateFormatter().string(from: Date()),
        "entries": options.entries, "events": options.events, "runs": options.runs, "quick": options.quick,
        "clients": options.clients, "window": options.window,
    ]
}
