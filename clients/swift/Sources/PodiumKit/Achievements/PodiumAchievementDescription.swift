import Foundation

/// What an achievement is, shaped like GameKit's `GKAchievementDescription`.
///
/// A hidden achievement the player has no progress on shows only its id, ``isHidden`` and its
/// rarity: no title, descriptions or points (docs/PROTOCOL.md 11.2).
public struct PodiumAchievementDescription: Sendable, Equatable {
    public var identifier: String
    public var title: String?
    /// Shown before it is earned.
    public var unachievedDescription: String?
    /// Shown once earned.
    public var achievedDescription: String?
    /// GameKit's `maximumPoints`.
    public var maximumPoints: Int?
    public var isHidden: Bool
    /// Whether it can be earned again (GameKit's `isReplayable`).
    public var isReplayable: Bool
    /// An image reference (a URL or an asset name).
    public var image: String?
    /// The steps that complete it.
    public var target: Int64?
    /// Of the game's players with progress, the percentage who earned it (GameKit's `rarityPercent`).
    public var rarityPercent: Double?

    /// The game's achievements in the game's order (GameKit's `loadAchievementDescriptions`):
    /// the definitions (`achievement.definitions`) with each one's rarity (`achievement.list`).
    public static func loadAchievementDescriptions(for player: PodiumLocalPlayer) async throws
        -> [PodiumAchievementDescription]
    {
        struct Definitions: Decodable {
            struct Definition: Decodable {
                var id: String
                var title: String
                var description: String
                var earnedDescription: String
                var points: Int
                var hidden: Bool?
                var repeatable: Bool?
                var image: String?
                var target: Int64?
            }
            var achievements: [Definition]
        }
        async let definitions = player.client.send(
            .call("achievement.definitions", gameId: player.gameId),
            as: Definitions.self)
        async let list = PodiumAchievement.loadAchievementList(for: player)
        let byId = Dictionary(try await definitions.achievements.map { ($0.id, $0) }) { first, _ in first }
        return try await list.achievements.map { status in
            if let definition = byId[status.id] {
                return PodiumAchievementDescription(
                    identifier: definition.id, title: definition.title,
                    unachievedDescription: definition.description, achievedDescription: definition.earnedDescription,
                    maximumPoints: definition.points, isHidden: definition.hidden ?? false,
                    isReplayable: definition.repeatable ?? false, image: definition.image,
                    target: definition.target ?? status.target, rarityPercent: status.percentOfPlayersEarned)
            }
            // A hidden one (players are not sent its definition): what the list shows.
            return PodiumAchievementDescription(
                identifier: status.id, title: status.title,
                unachievedDescription: status.earned ? nil : status.description,
                achievedDescription: status.earned ? status.description : nil, maximumPoints: status.points,
                isHidden: status.hidden, isReplayable: false, image: status.image, target: status.target,
                rarityPercent: status.percentOfPlayersEarned)
        }
    }
}
