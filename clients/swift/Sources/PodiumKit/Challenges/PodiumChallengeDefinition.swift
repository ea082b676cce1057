import Foundation

/// A challenge the studio defines in the game's file (docs/PROTOCOL.md 12.12; GameKit's
/// challenge definitions): a board, the durations a player may pick and the runs each participant has.
public struct PodiumChallengeDefinition: Sendable, Equatable, Decodable {
    public var id: String
    public var title: String
    public var details: String
    public var image: String?
    public var leaderboardId: String
    /// The durations a player may start it for.
    public var durations: [Duration]
    /// Runs per participant; nil for unlimited.
    public var attempts: Int?
    public var repeatable: Bool
    /// `released`, or `prerelease` (seen by game servers only).
    public var releaseState: String
    /// The game event that counts as a run, if any.
    public var runEventName: String?

    private enum CodingKeys: String, CodingKey {
        case id, title, details, image, leaderboardId, durations, attempts, repeatable, releaseState, runEvent
    }

    private struct RunEvent: Decodable { var name: String }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(String.self, forKey: .id)
        title = try container.decode(String.self, forKey: .title)
        details = try container.decode(String.self, forKey: .details)
        image = try container.decodeIfPresent(String.self, forKey: .image)
        leaderboardId = try container.decode(String.self, forKey: .leaderboardId)
        durations = try container.decode([Int64].self, forKey: .durations).map(Duration.milliseconds)
        attempts = try? container.decode(Int.self, forKey: .attempts)
        repeatable = try container.decodeIfPresent(Bool.self, forKey: .repeatable) ?? false
        releaseState = try container.decodeIfPresent(String.self, forKey: .releaseState) ?? "released"
        runEventName = try container.decodeIfPresent(RunEvent.self, forKey: .runEvent)?.name
    }

    /// The game's definitions a player may start, in the game's order.
    public static func loadDefinitions(for player: PodiumLocalPlayer) async throws -> [PodiumChallengeDefinition] {
        struct List: Decodable { var definitions: [PodiumChallengeDefinition] }
        return try await player.client.send(.game(player.gameId, get: "challenges", "definitions"), as: List.self)
            .definitions
    }

    /// Starts this challenge for `duration` (one of ``durations``) with `receivers`. Runs are
    /// scores submitted with the challenge's id (``PodiumLeaderboard/submitScore(_:context:metadata:challengeId:idempotencyKey:)``).
    public func start(
        duration: Duration, with receivers: [String], message: String? = nil, for player: PodiumLocalPlayer
    ) async throws -> PodiumChallenge {
        try await PodiumChallenge.start(
            on: nil, duration: duration, with: receivers, message: message, definitionId: id, for: player)
    }
}
