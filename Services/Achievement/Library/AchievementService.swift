import Configuration
import Foundation
import Logging
import PodiumMessages
import PodiumRuntime

/// `podium-achievement`: achievements per game, direct progress reports, and rules that unlock
/// them from the game's events (docs/GAME-CONFIG.md).
public enum AchievementService {
    /// The service name: its request types start with `achievement.`.
    public static let name = "achievement"

    /// Bus topic prefixes the service subscribes to.
    public static let subscriptions = [Topic.allGameEvents]

    /// Builds the service on the store `openStore` opens; `catalog` nil reads the game
    /// configurations from `PODIUM_GAMES_DIR`.
    public static func blueprint(catalog: AchievementCatalog? = nil, openStore: @escaping AchievementStoreOpener) -> ServiceBlueprint {
        ServiceBlueprint(name: name) { settings, clock in
            let catalog = try catalog ?? AchievementCatalog(directory: GameFiles.configuredDirectory())
            let store = try await openStore(settings)
            let achievements = Achievements(catalog: catalog, store: store, clock: clock)
            try await achievements.loadOperatorChanges(logger: Logger(label: "podium.achievement"))
            var service = definition(achievements)
            service.outbox = OutboxRelay(stream: name, reader: store.durable)
            service.storage = store.location
            service.shutdown = { await store.close() }
            service.sizedStorage = store as? any StorageSize
            service.receipts = store.durable
            return service
        }
    }

    /// The service without any game (for stacks that do not use achievements).
    public static func definition() -> ServiceDefinition {
        ServiceDefinition(name: name, subscriptions: subscriptions)
    }

    static func definition(_ achievements: Achievements) -> ServiceDefinition {
        ServiceDefinition(
            name: name, subscriptions: subscriptions,
            requestHandlers: [
                "achievement.report": { request, context in
                    let batch = try payload(request, as: ProgressReportBatch.self)
                    let (outcomes, duplicate) = try await achievements.report(request, batch, context: context)
                    var reply: [String: JSONValue] = ["outcomes": try WireCodec.jsonValue(outcomes)]
                    if duplicate { reply["duplicate"] = .bool(true) }
                    return .object(reply)
                },
                "achievement.event-effects": { request, context in
                    let lookup = try serviceLookup(request)
                    guard let sequence = lookup.sequence else {
                        throw ErrorReply(code: .missingField, message: "give the sequence", field: "payload.sequence")
                    }
                    return try WireCodec.jsonValue(await achievements.effects(of: sequence, context: context))
                },
                "achievement.list": { request, _ in try WireCodec.jsonValue(await achievements.list(request)) },
                "achievement.definitions": { request, _ in
                    let definitions = try achievements.catalog.value.achievements(of: request.gameId)
                    // Hidden ones are left out for players, as Game Center's descriptions do.
                    let visible = request.actor?.kind == .player ? definitions.filter { !$0.hidden } : definitions
                    return try WireCodec.jsonValue(["achievements": visible])
                },
                "achievement.reset": { request, _ in
                    ["resetAchievements": .integer(Int64(try await achievements.reset(request)))]
                },
                "achievement.admin.rebuild": { request, context in
                    let rebuild = try payload(request, as: RebuildRequest.self)
                    return try WireCodec.jsonValue(await achievements.rebuild(rebuild, context: context))
                },
                "achievement.admin.define": { request, _ in
                    guard let gameId = request.gameId else {
                        throw ErrorReply(code: .missingField, message: "give the gameId", field: "gameId")
                    }
                    let change = try payload(request, as: DefinitionChange.self)
                    try await achievements.define(change.definition, gameId: gameId)
                    return try WireCodec.jsonValue(["definition": change.definition])
                },
            ],
            follows: [StreamName.events], consumer: achievements)
    }

    /// The payload of a request only the gateway (or another service) may send.
    static func serviceLookup(_ request: RawEnvelope) throws -> ReceiptLookup {
        try request.requireService("ask receipt.get at the gateway")
        return try payload(request, as: ReceiptLookup.self)
    }

    struct DefinitionChange: Decodable {
        var definition: AchievementDefinition
    }

    static func payload<Value: Decodable>(_ request: RawEnvelope, as type: Value.Type) throws -> Value {
        try request.requestPayload(as: type)
    }
}
