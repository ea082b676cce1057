import Foundation
import PodiumMessages
import PodiumRuntime

/// `podium-challenge`: players challenge friends to beat a score or earn an achievement, and
/// time-boxed challenges on a board; completions follow from the leaderboard's and the achievement
/// service's bus messages; every notification is also kept in an inbox.
///
/// `PODIUM_CHALLENGE_OPEN_GAMES` (comma-separated game ids) lists games whose challenges may go to
/// players who are not friends; elsewhere receivers must be friends.
public enum ChallengeService {
    /// The service name: its request types start with `challenge.`.
    public static let name = "challenge"

    /// Accepted scores and earned achievements (the leaderboard's and achievement service's outboxes).
    public static let subscriptions = ["score/", "achievement/"]

    /// How often expiries and the ends of time-boxed challenges are checked.
    static let sweepInterval = Duration.milliseconds(500)

    /// Builds the service on the store `openStore` opens; `openGames` nil reads
    /// `PODIUM_CHALLENGE_OPEN_GAMES`.
    public static func blueprint(openGames: Set<String>? = nil, openStore: @escaping ChallengeStoreOpener) -> ServiceBlueprint {
        ServiceBlueprint(name: name) { settings, clock in
            let open = openGames ?? Set(
                RuntimeSettings.environmentReader().string(forKey: "podium.challenge.open.games", default: "")
                    .split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty })
            let store = try await openStore(settings)
            var service = definition(Challenges(store: store, clock: clock, openGames: open))
            service.storage = store.location
            service.shutdown = { await store.close() }
            service.sizedStorage = store as? any StorageSize
            service.receipts = store.durable
            return service
        }
    }

    /// The service without storage (for stacks that do not use challenges).
    public static func definition() -> ServiceDefinition {
        ServiceDefinition(name: name, subscriptions: subscriptions)
    }

    static func definition(_ challenges: Challenges) -> ServiceDefinition {
        @Sendable func id(_ request: RawEnvelope) throws -> String {
            guard let id = request.payload["challengeId"]?.stringValue else {
                throw ErrorReply(code: .missingField, message: "give the challengeId", field: "payload.challengeId")
            }
            return id
        }
        return ServiceDefinition(
            name: name, subscriptions: subscriptions,
            requestHandlers: [
                "challenge.issue": { request, context in
                    try WireCodec.jsonValue(await challenges.issue(request, try request.requestPayload(as: ChallengeIssue.self), context: context))
                },
                "challenge.start": { request, context in
                    try WireCodec.jsonValue(
                        await challenges.start(request, try request.requestPayload(as: TimedChallengeStart.self), context: context))
                },
                "challenge.admin.list": { request, _ in
                    try request.requireOperator()
                    guard let gameId = request.gameId else {
                        throw ErrorReply(code: .missingField, message: "give the gameId", field: "gameId")
                    }
                    let query = try request.requestPayload(as: ChallengeListing.self)
                    let limit = query.limit ?? 50
                    guard (1...200).contains(limit) else {
                        throw ErrorReply(code: .invalidField, message: "limit is 1-200", field: "payload.limit")
                    }
                    return try WireCodec.jsonValue([
                        "challenges": await challenges.store.recent(gameId: gameId, openOnly: query.openOnly ?? false, limit: limit)
                    ])
                },
                "challenge.admin.end": { request, _ in
                    try request.requireOperator()
                    guard let gameId = request.gameId else {
                        throw ErrorReply(code: .missingField, message: "give the gameId", field: "gameId")
                    }
                    return try WireCodec.jsonValue(await challenges.endEarly(gameId: gameId, challengeId: try id(request)))
                },
                "challenge.rematch": { request, context in
                    try WireCodec.jsonValue(await challenges.rematch(request, challengeId: try id(request), context: context))
                },
                "challenge.decline": { request, _ in try WireCodec.jsonValue(await challenges.decline(request, challengeId: try id(request))) },
                "challenge.received": { request, _ in try WireCodec.jsonValue(["challenges": await challenges.list(request, issued: false)]) },
                "challenge.issued": { request, _ in try WireCodec.jsonValue(["challenges": await challenges.list(request, issued: true)]) },
                "challenge.detail": { request, _ in try WireCodec.jsonValue(await challenges.detail(request, challengeId: try id(request))) },
                "challenge.candidates": { request, context in
                    try WireCodec.jsonValue(["playerIds": await challenges.candidates(request, context: context)])
                },
                "challenge.inbox": { request, _ in
                    let (gameId, playerId) = try Challenges.player(request)
                    var after: Int64?
                    switch request.payload["after"] {
                    case nil, .null?: after = nil
                    case .integer(let position)? where position >= 0: after = position
                    default:
                        throw ErrorReply(
                            code: .invalidField, message: "after is an item's position: an integer, 0 or more",
                            field: "payload.after")
                    }
                    let items = try await challenges.store.inbox(
                        gameId: gameId, playerId: playerId, unreadOnly: request.payload["unreadOnly"] == .bool(true),
                        after: after)
                    return try WireCodec.jsonValue(["items": items])
                },
                "challenge.inbox.read": { request, _ in
                    let (gameId, playerId) = try Challenges.player(request)
                    guard case .array(let values)? = request.payload["ids"] else {
                        throw ErrorReply(code: .missingField, message: "give the ids to mark read", field: "payload.ids")
                    }
                    let ids = values.compactMap(\.stringValue)
                    guard ids.count == values.count, ids.count <= 200 else {
                        throw ErrorReply(code: .invalidField, message: "ids are 0-200 strings", field: "payload.ids")
                    }
                    return ["marked": .integer(Int64(try await challenges.store.markRead(gameId: gameId, playerId: playerId, ids: ids)))]
                },
            ],
            background: { context in
                while !Task.isCancelled {
                    await challenges.sweep(context: context)
                    try? await context.clock.sleep(for: sweepInterval)
                }
            },
            follows: ["leaderboard", "achievement"], consumer: challenges)
    }
}
