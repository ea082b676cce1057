import Foundation
import Leaderboard
import PodiumClient
import PodiumMessages
import PodiumRuntime
import PodiumTesting

/// `podium-bench`: issue 8's measurements of Podium, side by side with the references that
/// scripts/bench measured just before (raw libzmq, Redis). Every Podium figure is the median of
/// `--runs` runs, with min and max.
///
/// Usage: podium-bench [--entries 1000000] [--events <entries>] [--runs 3] [--quick]
///                     [--clients 4] [--window 64] [--background-rate 10000]
///                     [--results bench-results] [--zmq bench-results/zmq.json] [--redis bench-results/redis]
///        podium-bench --profile top10|ingest --entries N --seconds S --ready-file PATH
///        podium-bench --recovery-child DIR --entries N [--catch-up]   (internal: one restart, JSON on stdout)
let options = BenchOptions(CommandLine.arguments)

if let directory = options.recoveryChild {
    try await recoveryChild(dataDirectory: URL(fileURLWithPath: directory), options: options)
    exit(0)
}
if let workload = options.profile {
    try await profileWorkload(workload, options: options)
    exit(0)
}

if let url = options.postgres {
    // Every store of the stack in this database (schemas of their own), with a real pool.
    setenv("PODIUM_TEST_DATABASE_URL", url, 1)
    setenv("PODIUM_TEST_DATABASE_POOL", "8", 1)
}

let startedAt = Date()
print(
    "podium-bench: \(options.entries) entries, \(options.events) logged events, \(options.runs) runs per measurement\(options.quick ? " (quick)" : "")"
)
var report = Report()
var curves: [String: [[Double]]] = [:]
let references = References(zmqPath: options.zmqPath, redisDirectory: options.redisDirectory)
@MainActor func redis(_ key: String) -> References.RedisFigure? { references.redis[key] }

// 1. The in-memory rank index alone (not on PostgreSQL: no storage involved).
if options.postgres == nil {
    var inserts: [Double] = []
    var ranks: [Double] = []
    var tops: [Double] = []
    for _ in 0..<options.runs {
        var index = RankIndex(descending: true)
        var players = PlayerTable()
        var generator = SeededGenerator(seed: 42)
        let values = (0..<options.entries).map { _ in Int64.random(in: 0..<1_000_000, using: &generator) }
        inserts.append(
            measureThroughput(count: options.entries) {
                for (position, value) in values.enumerated() {
                    let player = players.intern("player-\(position)")
                    index.upsert(RankSlot(player: player, value: value, submittedAt: Int64(position)), players: players)
                }
            })
        let ranking = Ranking(index: index, players: players)
        let probes = (0..<100_000).map { _ in "player-\(Int.random(in: 0..<options.entries, using: &generator))" }
        var sink = 0
        ranks.append(
            measureThroughput(count: probes.count) { for probe in probes { sink &+= ranking.rank(of: probe) ?? 0 } })
        // Reads the last id of each page, or the optimizer may skip building the entries.
        tops.append(
            measureThroughput(count: 100_000) {
                for _ in 0..<100_000 { sink &+= ranking.entries(offset: 0, limit: 10).last?.playerId.utf8.count ?? 0 }
            })
        if sink == 42 { print("") }
    }
    report.rows.append(Row(measurement: "rank index alone: insert", unit: "entries/s", podium: Series(inserts)))
    report.rows.append(Row(measurement: "rank index alone: rank lookup", unit: "lookups/s", podium: Series(ranks)))
    report.rows.append(Row(measurement: "rank index alone: top 10", unit: "queries/s", podium: Series(tops)))
    print("rank index: done")
}

// 2. The whole stack in one process on TCP loopback with SQLite (or, `--postgres`, PostgreSQL), the board preloaded.
let data = FileManager.default.temporaryDirectory.appendingPathComponent("podium-bench-\(UUID().uuidString)")
defer { try? FileManager.default.removeItem(at: data) }
try await preload(entries: options.entries, into: data)
print("preloaded \(options.entries) entries")
let stack = try await PodiumTestStack.start(Workload.stackOptions(dataDirectory: data))
let health = try stack.client()
let runID = UUID().uuidString.prefix(8).lowercased()

// 2a. Queries: one client, one request at a time.
let prober = try await stack.player("prober-\(runID)")
_ = try await prober.client.call(
    LeaderboardRequests.submit, ScoreSubmission(boardId: Workload.board, value: 500_000), gameId: Workload.game)
let queryKinds: [(label: String, key: String, request: Workload.Query, redis: String?)] = [
    ("top 10", "top10", Workload.top, "zrevrange"),
    ("around player (radius 5)", "around", Workload.around, nil),
    ("rank (player's entry)", "rank", Workload.rank, "zrevrank"),
]
for kind in queryKinds {
    var p50: [Double] = []
    var p99: [Double] = []
    var p999: [Double] = []
    var pooled = LatencySamples()
    for _ in 0..<options.runs {
        var samples = LatencySamples()
        for _ in 0..<options.latencySamples {
            let start = ContinuousClock.now
            try await kind.request.call(prober.client)
            samples.append(ContinuousClock.now - start)
        }
        p50.append(samples.percentile(0.5))
        p99.append(samples.percentile(0.99))
        p999.append(samples.percentile(0.999))
        pooled.append(contentsOf: samples)
    }
    curves["Podium \(kind.label)"] = pooled.curve
    let single = kind.redis.flatMap { redis("\($0)-c1") }
    let isTop = kind.key == "top10"
    let refName = single != nil ? "Redis \(kind.redis!.uppercased()), 1 client" : "raw ZeroMQ DEALER/ROUTER"
    let zmqRTT = references.zmqSeries("roundTripP50Milliseconds")
    report.rows.append(
        Row(
            measurement: "\(kind.label): one client p50", unit: "ms", podium: Series(p50), referenceName: refName,
            reference: single?.p50 ?? zmqRTT?.median, better: .lower))
    report.rows.append(
        Row(
            measurement: "\(kind.label): one client p99", unit: "ms", podium: Series(p99), referenceName: refName,
            reference: single?.p99 ?? references.zmqSeries("roundTripP99Milliseconds")?.median, target: isTop ? 1 : nil,
            targetText: isTop ? "< 1 ms" : nil, better: .lower))
    report.rows.append(
        Row(
            measurement: "\(kind.label): one client p999", unit: "ms", podium: Series(p999),
            referenceName: single == nil ? refName : nil,
            reference: single == nil ? references.zmqSeries("roundTripP999Milliseconds")?.median : nil, better: .lower))
    print("\(kind.label): one client p50 \(figure(Series(p50).median)) ms, p99 \(figure(Series(p99).median)) ms")
}

// 2b. Queries and submissions, pipelined: several clients, each with a window in flight.
var loaders: [(client: TestClient, grant: SessionGrant)] = []
for index in 0..<options.clients {
    let player = try await stack.player("loader-\(runID)-\(index)")
    _ = try await player.client.call(
        LeaderboardRequests.submit, ScoreSubmission(boardId: Workload.board, value: Int64(1000 + index)),
        gameId: Workload.game)
    loaders.append(player)
}
let pipelinedKinds: [(label: String, request: Workload.Query?, redis: String?, target: Double?, targetText: String?)] =
    [
        ("top 10", Workload.top, "zrevrange", 100_000, "≥ 100,000/s"),
        ("around player (radius 5)", Workload.around, nil, nil, nil),
        ("rank (player's entry)", Workload.rank, "zrevrank", nil, "≥ ½ Redis"),
        ("score submissions", nil, "zadd", nil, nil),
    ]
for kind in pipelinedKinds {
    var rates: [Double] = []
    for run in 0..<options.runs {
        let prefix = "p-\(runID)-\(run)"
        let request = kind.request
        let outcome = try await pipelinedLoad(
            players: loaders, window: options.window, duration: options.pipelinedDuration
        ) {
            client, sequence, token in
            if let request {
                return request.request("\(prefix)-\(client)-\(sequence)", token)
            }
            let score = ScoreSubmission(boardId: Workload.board, value: Int64((sequence * 7919 + client) % 1_000_000))
            return try! RequestCodec.request(
                LeaderboardRequests.submit, score, id: "\(prefix)-\(client)-\(sequence)", gameId: Workload.game,
                credential: .token(token))
        }
        if outcome.errors > 0 {
            throw BenchFailure("\(kind.label): \(outcome.errors) errors, first: \(outcome.firstError ?? "")")
        }
        rates.append(outcome.rate)
    }
    let reference = kind.redis.flatMap { redis("\($0)-p16") }
    var row = Row(
        measurement: "\(kind.label): pipelined, \(options.clients) clients × \(options.window) in flight",
        unit: "requests/s",
        podium: Series(rates),
        referenceName: reference != nil ? "Redis \(kind.redis!.uppercased()) -c \(options.clients) -P 16" : nil,
        reference: reference?.requestsPerSecond, target: kind.target, targetText: kind.targetText)
    if kind.redis == "zrevrank", let reference { row.target = reference.requestsPerSecond / 2 }
    report.rows.append(row)
    if let plain = kind.redis.flatMap({ redis("\($0)-p1") }) {
        report.notes.append(
            "Redis \(kind.redis!.uppercased()) with \(options.clients) clients without pipelining: \(figure(plain.requestsPerSecond)) requests/s."
        )
    }
    print("\(kind.label): pipelined \(figure(Series(rates).median)) requests/s")
}

// 2c. Ingest: the mix of scores and rule events, acknowledged, then applied everywhere.
var acknowledged: [Double] = []
var endToEnd: [Double] = []
var drains: [Double] = []
for run in 0..<options.runs {
    let prefix = "i-\(runID)-\(run)"
    let outcome = try await pipelinedLoad(players: loaders, window: options.window, duration: options.ingestDuration) {
        client, sequence, token in
        var random = SeededGenerator(seed: UInt64(client * 1_000_003 + sequence))
        return Workload.ingestRequest(client: client, sequence: sequence, prefix: prefix, token: token, random: &random)
    }
    if outcome.errors > 0 { throw BenchFailure("ingest: \(outcome.errors) errors, first: \(outcome.firstError ?? "")") }
    let drain = try await waitUntilApplied(
        eventSequence: outcome.lastEventSequence, client: health, limit: .seconds(300))
    acknowledged.append(outcome.rate)
    endToEnd.append(Double(outcome.replies) / (outcome.elapsed + drain).seconds)
    drains.append(drain.milliseconds)
    print(
        "ingest run \(run + 1): \(outcome.replies) events, \(figure(outcome.rate)) acknowledged/s, drain \(figure(drain.milliseconds)) ms"
    )
}
let zmqPipelined = references.zmqSeries("pipelinedMessagesPerSecond")?.median
report.rows.append(
    Row(
        measurement: "ingest, end to end (acknowledged + applied by leaderboard, achievement, challenge)",
        unit: "events/s",
        podium: Series(endToEnd), referenceName: "raw ZeroMQ DEALER/ROUTER pipelined", reference: zmqPipelined,
        target: 50_000,
        targetText: "≥ 50,000/s"))
report.rows.append(
    Row(
        measurement: "ingest, acknowledged by the gateway", unit: "events/s", podium: Series(acknowledged),
        referenceName: "Redis ZADD -c \(options.clients) -P 16", reference: redis("zadd-p16")?.requestsPerSecond))
report.rows.append(
    Row(measurement: "ingest, drain after the last acknowledgement", unit: "ms", podium: Series(drains), better: .lower)
)

// With `--postgres`, only the leaderboard and ingest rows, beside the SQLite run's.
if options.postgres != nil {
    await stack.shutdown()
    try writeBackendComparison(report, options: options, startedAt: startedAt)
    exit(0)
}

// 2d. Notification latency under background load.
do {
    let issuer = try await stack.player("issuer-\(runID)")
    let receiver = try await stack.player("receiver-\(runID)")
    try await befriend(issuer, receiver)
    _ = try await issuer.client.call(
        LeaderboardRequests.submit, ScoreSubmission(boardId: Workload.board, value: 100), gameId: Workload.game)
    let topic = try await receiver.client.call(GatewayRequests.subscribe, gameId: Workload.game).topic
    let subscriber = try TestSubscriber(endpoint: stack.endpoints.notifications, topics: [topic])
    try await Task.sleep(for: .milliseconds(300))
    var background: [(client: TestClient, grant: SessionGrant)] = []
    for index in 0..<options.clients { background.append(try await stack.player("background-\(runID)-\(index)")) }
    var submitted = 0
    /// One sample: issue a score challenge, then time the receiver's beating score to `challenge.completed`.
    func notificationSample() async throws -> Duration {
        _ = try await issuer.client.call(
            ChallengeRequests.issue,
            ChallengeIssue(kind: .score, boardId: Workload.board, receivers: [receiver.grant.playerId]),
            gameId: Workload.game, timeout: .seconds(60))
        while try await notificationKind(subscriber) != "challenge.received" {}
        submitted += 1
        let start = ContinuousClock.now
        try await receiver.client.send(
            RequestCodec.request(
                LeaderboardRequests.submit, ScoreSubmission(boardId: Workload.board, value: Int64(200 + submitted)),
                id: "n-\(runID)-\(submitted)", gameId: Workload.game, credential: .token(receiver.grant.sessionToken)))
        while try await notificationKind(subscriber) != "challenge.completed" {}
        let latency = ContinuousClock.now - start
        _ = try await receiver.client.nextReply(timeout: .seconds(60))
        return latency
    }
    // Without background load first: the floor of the path.
    var quietP50: [Double] = []
    var quietP99: [Double] = []
    var quietPooled = LatencySamples()
    for _ in 0..<options.runs {
        var samples = LatencySamples()
        for _ in 0..<options.notificationSamples { samples.append(try await notificationSample()) }
        quietP50.append(samples.percentile(0.5))
        quietP99.append(samples.percentile(0.99))
        quietPooled.append(contentsOf: samples)
    }
    print(
        "notification without background: p50 \(figure(Series(quietP50).median)) ms, p99 \(figure(Series(quietP99).median)) ms"
    )
    var p50: [Double] = []
    var p99: [Double] = []
    var rates: [Double] = []
    var pooled = LatencySamples()
    for run in 0..<options.runs {
        let stop = StopFlag()
        let prefix = "b-\(runID)-\(run)"
        let load = Task {
            try await pipelinedLoad(
                players: background, window: options.window, duration: nil, stop: stop,
                ratePerClient: options.backgroundRate / Double(options.clients)
            ) { client, sequence, token in
                ClientRequest(
                    type: .eventPublish, id: "\(prefix)-\(client)-\(sequence)", gameId: Workload.eventGame,
                    payload: [
                        "name": .string(Workload.eventName),
                        "attributes": ["matchId": .string("bg-\(client)-\(sequence / 200)")],
                    ],
                    token: token)
            }
        }
        try await Task.sleep(for: .milliseconds(500))
        var samples = LatencySamples()
        for _ in 0..<options.notificationSamples { samples.append(try await notificationSample()) }
        stop.stop()
        let outcome = try await load.value
        if outcome.errors > 0 {
            throw BenchFailure("background: \(outcome.errors) errors, first: \(outcome.firstError ?? "")")
        }
        rates.append(outcome.rate)
        p50.append(samples.percentile(0.5))
        p99.append(samples.percentile(0.99))
        pooled.append(contentsOf: samples)
        print(
            "notification run \(run + 1): p50 \(figure(p50.last)) ms, p99 \(figure(p99.last)) ms, background \(figure(outcome.rate)) events/s"
        )
    }
    curves["Podium notification, background load"] = pooled.curve
    curves["Podium notification, no load"] = quietPooled.curve
    report.rows.append(
        Row(
            measurement: "notification without background load: p50", unit: "ms", podium: Series(quietP50),
            better: .lower))
    report.rows.append(
        Row(
            measurement: "notification without background load: p99", unit: "ms", podium: Series(quietP99),
            better: .lower))
    let zmqP50 = references.zmqSeries("roundTripP50Milliseconds")?.median
    report.rows.append(
        Row(
            measurement: "notification under background load: submit → challenge.completed p50", unit: "ms",
            podium: Series(p50),
            referenceName: "raw ZeroMQ round trip p50", reference: zmqP50, better: .lower))
    report.rows.append(
        Row(
            measurement: "notification under background load: submit → challenge.completed p99", unit: "ms",
            podium: Series(p99),
            referenceName: "raw ZeroMQ round trip p99",
            reference: references.zmqSeries("roundTripP99Milliseconds")?.median, target: 5,
            targetText: "< 5 ms", better: .lower))
    report.rows.append(
        Row(
            measurement: "notification: background load achieved (target rate \(figure(options.backgroundRate))/s)",
            unit: "events/s",
            podium: Series(rates), target: 10_000, targetText: "≥ 10,000/s"))
    await subscriber.close()
    for player in background { await player.client.close() }
    await issuer.client.close()
    await receiver.client.close()
}

let playerIds = loaders.map(\.grant.playerId)
for player in loaders { await player.client.close() }
await prober.client.close()
await health.close()
await stack.shutdown()

// 3. Recovery: a fresh process starts on the data directory with N entries and N logged events.
let logHead = try appendEvents(count: options.events, dataDirectory: data, players: playerIds)
try setAchievementPosition(logHead, dataDirectory: data)
try setChallengeEventsPosition(logHead, dataDirectory: data)
print("event log: \(logHead) events")
var recoveries: [Double] = []
var perEntry: [Double] = []
var behind: [Double] = []
for _ in 0..<options.runs {
    let result = try runRecoveryChild(dataDirectory: data, options: options, catchUp: false)
    recoveries.append(result["seconds"] ?? .nan)
    perEntry.append((result["rssGrowth"] ?? .nan) / Double(options.entries))
    behind.append(result["achievementBehind"] ?? .nan)
    print(
        "recovery: \(figure(result["seconds"])) s, \(figure((result["rssGrowth"] ?? 0) / Double(options.entries))) bytes/entry"
    )
}
report.rows.append(
    Row(
        measurement:
            "recovery: start to serving (\(figure(Double(options.entries))) entries, \(figure(Double(logHead))) logged events)",
        unit: "s", podium: Series(recoveries), target: 5, targetText: "< 5 s", better: .lower))
report.rows.append(
    Row(
        measurement: "memory: resident growth per leaderboard entry (whole stack process)", unit: "bytes",
        podium: Series(perEntry),
        referenceName: "Redis used_memory_rss per member",
        reference: references.redisMemoryBytes.flatMap { bytes in references.redisMembers.map { bytes / $0 } },
        target: 150,
        targetText: "≤ 150 bytes", better: .lower))
report.notes.append(
    "At serving time the achievement service was \(figure(Series(behind).median)) events behind the log head (its position was pre-set to the head)."
)
let catchUpCount = min(options.catchUpEvents, Int(logHead))
try setAchievementPosition(logHead - UInt64(catchUpCount), dataDirectory: data)
try setChallengeEventsPosition(logHead, dataDirectory: data)
let catchUp = try runRecoveryChild(dataDirectory: data, options: options, catchUp: true)
report.rows.append(
    Row(
        measurement:
            "recovery, achievement service \(figure(Double(catchUpCount))) events behind: start to caught up (1 run)",
        unit: "s",
        podium: Series([catchUp["catchUpSeconds"] ?? .nan]), better: .lower))
report.notes.append(
    "Achievement catch-up: \(figure(Double(catchUpCount))) events replayed from the log in at most \(figure(catchUp["catchUpSeconds"])) s from process start, "
        + "≥ \(figure(Double(catchUpCount) / (catchUp["catchUpSeconds"] ?? .nan))) events/s.")

// 4. The references' own figures.
if let series = references.zmqSeries("pubSubMessagesPerSecond") {
    report.rows.append(
        Row(
            measurement: "reference: raw ZeroMQ PUB/SUB, 200-byte messages", unit: "messages/s", podium: nil,
            referenceName: "raw ZeroMQ", reference: series.median))
}
if let series = references.zmqSeries("pipelinedMessagesPerSecond") {
    report.rows.append(
        Row(
            measurement: "reference: raw ZeroMQ DEALER/ROUTER pipelined", unit: "messages/s", podium: nil,
            referenceName: "raw ZeroMQ", reference: series.median))
}
curves["raw ZeroMQ DEALER/ROUTER round trip"] = references.zmqCurve
for (key, name) in [
    ("zrevrange-c1", "Redis ZREVRANGE 0 9 (p50/p95/p99)"), ("zrevrank-c1", "Redis ZREVRANK (p50/p95/p99)"),
] {
    if let figure = redis(key) { curves[name] = [[0.5, figure.p50], [0.95, figure.p95], [0.99, figure.p99]] }
}

// 5. Output.
let machine = machineDescription(startedAt: startedAt, options: options)
print("")
print(report.markdown)
for note in report.notes { print("* \(note)") }
try FileManager.default.createDirectory(atPath: options.resultsDirectory, withIntermediateDirectories: true)
try report.json(machine: machine, curves: curves).write(
    to: URL(fileURLWithPath: "\(options.resultsDirectory)/summary.json"))
try (report.markdown + "\n\n" + report.notes.map { "* \($0)" }.joined(separator: "\n") + "\n")
    .write(toFile: "\(options.resultsDirectory)/summary.md", atomically: true, encoding: .utf8)
let ordered = curves.keys.sorted().map { (name: $0, points: curves[$0]!) }
try latencySVG(ordered, title: "Single-client latency distributions (\(figure(Double(options.entries))) entries)")
    .write(toFile: "\(options.resultsDirectory)/latency.svg", atomically: true, encoding: .utf8)
print("wrote \(options.resultsDirectory)/summary.json, summary.md, latency.svg")
