import Foundation
import Gateway
import GatewaySQLite
import Leaderboard
import PodiumClient
import PodiumMessages
import PodiumRuntime
import PodiumTesting
import Synchronization

/// The board the queries run on, and the games the ingest mix uses (PodiumTestStack's catalogs:
/// `dash` boards, the example games' achievement rules for `whackacac`).
enum Workload {
    static let game = "dash"
    static let board = "dash.highscore"
    static let eventGame = "whackacac"
    static let eventName = "cactus.hit"

    /// A query the benchmark sends on `board`, typed: one call at a time (its error reply throws),
    /// or its request for pipelining.
    struct Query: Sendable {
        let request: @Sendable (_ id: String, _ token: String) -> ClientRequest
        let call: @Sendable (TestClient) async throws -> Void

        static func of<Payload, Reply>(_ definition: RequestDefinition<Payload, Reply>, _ payload: Payload) -> Query {
            Query(
                // A catalog payload always encodes.
                request: { id, token in
                    try! RequestCodec.request(definition, payload, id: id, gameId: game, credential: .token(token))
                },
                call: { _ = try await $0.call(definition, payload, gameId: game) })
        }
    }

    static let top = Query.of(LeaderboardRequests.top, BoardQuery(boardId: board, limit: 10))
    static let around = Query.of(LeaderboardRequests.around, BoardQuery(boardId: board, radius: 5))
    static let rank = Query.of(LeaderboardRequests.entry, BoardQuery(boardId: board))

    /// Stack settings for measuring: no rate limits in the way, generous timeouts.
    static func stackOptions(dataDirectory: URL) -> PodiumTestStack.Options {
        PodiumTestStack.Options(
            requestTimeout: .seconds(60), dataDirectory: dataDirectory,
            connectionRateLimit: RateLimit(perSecond: 1e9, burst: 1e9),
            playerRateLimit: RateLimit(perSecond: 1e9, burst: 1e9),
            maxInFlightPerConnection: 100_000)
    }

    /// The i-th request of the ingest mix: every other one a score, the rest game events that the
    /// example achievements count (`cactus.hit`: first whack, 100/1000 whacks, five in a second, per match).
    static func ingestRequest(client: Int, sequence: Int, prefix: String, token: String, random: inout SeededGenerator)
        -> ClientRequest
    {
        let id = "\(prefix)-\(client)-\(sequence)"
        // Typed requests (RequestCodec): the values and names cannot be wrong, and they cannot fail to encode.
        if sequence % 2 == 0 {
            let score = ScoreSubmission(boardId: board, value: Int64.random(in: 0..<1_000_000, using: &random))
            return try! RequestCodec.request(
                LeaderboardRequests.submit, score, id: id, gameId: game, credential: .token(token))
        }
        let event = GameEvent(name: eventName, attributes: ["matchId": .string("m-\(client)-\(sequence / 200)")])
        return try! RequestCodec.request(
            GatewayRequests.publish, event, id: id, gameId: eventGame, credential: .token(token))
    }
}

/// The outcome of a pipelined load.
struct LoadOutcome: Sendable {
    var replies: Int
    var errors: Int
    var elapsed: Duration
    /// The highest event-log sequence acknowledged.
    var lastEventSequence: UInt64
    var firstError: String?
    var rate: Double { Double(replies) / elapsed.seconds }
}

/// A switch one task flips and others read.
final class StopFlag: Sendable {
    private let stopped = Mutex(false)
    func stop() { stopped.withLock { $0 = true } }
    var isStopped: Bool { stopped.withLock { $0 } }
}

/// Several clients, each keeping up to `window` requests in flight, until `duration` has passed
/// (or `stop` is set); with `ratePerClient`, each client sends no faster than that.
func pipelinedLoad(
    players: [(client: TestClient, grant: SessionGrant)], window: Int, duration: Duration?, stop: StopFlag? = nil,
    ratePerClient: Double? = nil, request: @escaping @Sendable (Int, Int, String) -> ClientRequest
) async throws -> LoadOutcome {
    let start = ContinuousClock.now
    let outcomes = try await withThrowingTaskGroup(of: LoadOutcome.self) { group in
        for (index, player) in players.enumerated() {
            group.addTask {
                let client = player.client
                let token = player.grant.sessionToken
                var sent = 0
                var received = 0
                var errors = 0
                var lastSequence: UInt64 = 0
                var firstError: String?
                func open() -> Bool {
                    if let stop, stop.isStopped { return false }
                    if let duration, ContinuousClock.now - start >= duration { return false }
                    return true
                }
                while true {
                    while open() && sent - received < window {
                        if let ratePerClient, Double(sent) >= ratePerClient * (ContinuousClock.now - start).seconds {
                            break
                        }
                        try await client.send(request(index, sent, token))
                        sent += 1
                    }
                    if sent == received {
                        if !open() { break }
                        try await Task.sleep(for: .microseconds(200))
                        continue
                    }
                    let reply = try await client.nextReply(timeout: .seconds(60))
                    received += 1
                    if reply.type != .reply {
                        errors += 1
                        if firstError == nil { firstError = "\(reply.payload)" }
                    } else if let acknowledgement = try? reply.decodePayload(as: EventAcknowledgement.self) {
                        lastSequence = max(lastSequence, acknowledgement.sequence)
                    }
                }
                return LoadOutcome(
                    replies: received, errors: errors, elapsed: ContinuousClock.now - start,
                    lastEventSequence: lastSequence,
                    firstError: firstError)
            }
        }
        var all: [LoadOutcome] = []
        for try await outcome in group { all.append(outcome) }
        return all
    }
    return LoadOutcome(
        replies: outcomes.map(\.replies).reduce(0, +), errors: outcomes.map(\.errors).reduce(0, +),
        elapsed: outcomes.map(\.elapsed).max() ?? .zero,
        lastEventSequence: outcomes.map(\.lastEventSequence).max() ?? 0,
        firstError: outcomes.compactMap(\.firstError).first)
}

/// The system's health in detail, as the gateway answers `health` to the admin key.
func systemHealth(_ client: TestClient) async throws -> SystemHealth {
    try await client.call(
        GatewayRequests.healthDetails, credential: .adminKey(PodiumTestStack.testAdminKey), timeout: .seconds(30))
}

/// Waits until the achievement service has applied the event log up to `sequence` and every
/// service has caught up with every stream it follows; returns how long that took.
func waitUntilApplied(eventSequence sequence: UInt64, client: TestClient, limit: Duration = .seconds(600)) async throws
    -> Duration
{
    let start = ContinuousClock.now
    while ContinuousClock.now - start < limit {
        let health = try await systemHealth(client)
        let achievement = health.services["achievement"]?.health?.streams?[StreamName.events]?.position ?? 0
        let behind = health.services.values.compactMap { $0.health?.streams }.flatMap(\.values).contains {
            $0.position < $0.head
        }
        if achievement >= sequence && !behind { return ContinuousClock.now - start }
        try await Task.sleep(for: .milliseconds(5))
    }
    throw BenchFailure("services did not catch up with event \(sequence) within \(limit)")
}

/// Makes two players friends.
func befriend(_ a: (client: TestClient, grant: SessionGrant), _ b: (client: TestClient, grant: SessionGrant))
    async throws
{
    _ = try await a.client.call(AuthRequests.friendRequest, FriendTarget(playerId: b.grant.playerId))
    _ = try await b.client.call(AuthRequests.friendAccept, FriendTarget(playerId: a.grant.playerId))
}

/// Appends `count` `cactus.hit` events to the gateway's event log directly, in the format the
/// gateway writes (EventLog.swift), and returns the log's new head.
func appendEvents(count: Int, dataDirectory: URL, players: [String]) throws -> UInt64 {
    let log = try SQLiteEventLogPreload(path: StorageLocation.database(for: "gateway-events", in: dataDirectory))
    return try log.append(count: count, players: players, game: Workload.eventGame, name: Workload.eventName)
}

/// Sets the achievement service's position in the event stream (its `podium_position` row).
func setAchievementPosition(_ sequence: UInt64, dataDirectory: URL) throws {
    try SQLiteEventLogPreload.setPosition(
        sequence, stream: StreamName.events,
        database: StorageLocation.database(for: "achievement-progress", in: dataDirectory))
}

/// Sets the challenge service's position in the event log (it follows `events` too, for
/// event-based challenge goals): at the head, so that the recovery and catch-up figures time the
/// achievement service alone rather than the challenge service reading the whole appended log.
func setChallengeEventsPosition(_ sequence: UInt64, dataDirectory: URL) throws {
    try SQLiteEventLogPreload.setPosition(
        sequence, stream: StreamName.events,
        database: StorageLocation.database(for: "challenge-challenges", in: dataDirectory))
}

/// The kind of the next notification the subscriber receives (`challenge.completed`, …).
func notificationKind(_ subscriber: TestSubscriber) async throws -> String {
    try await subscriber.next(timeout: .seconds(60)).envelope.decodePayload(as: PlayerNotification.self).kind
}
