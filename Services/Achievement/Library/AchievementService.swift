import PodiumMessages
import PodiumRuntime

/// `podium-achievement`: Achievement definitions, progress and rules. In this release it joins the bus, answers health and receives game events.
public enum AchievementService {
    /// The service name: its request types start with `achievement.`.
    public static let name = "achievement"

    /// Bus topic prefixes the service subscribes to.
    public static let subscriptions = [Topic.allGameEvents]

    /// The service as the shared runtime runs it.
    public static func definition() -> ServiceDefinition {
        ServiceDefinition(name: name, subscriptions: subscriptions)
    }
}
