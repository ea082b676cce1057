import PodiumMessages
import PodiumRuntime

/// `podium-leaderboard`: Scores, ranks and leaderboard views. In this release it joins the bus, answers health and receives game events.
public enum LeaderboardService {
    /// The service name: its request types start with `leaderboard.`.
    public static let name = "leaderboard"

    /// Bus topic prefixes the service subscribes to.
    public static let subscriptions = [Topic.allGameEvents]

    /// The service as the shared runtime runs it.
    public static func definition() -> ServiceDefinition {
        ServiceDefinition(name: name, subscriptions: subscriptions)
    }
}
