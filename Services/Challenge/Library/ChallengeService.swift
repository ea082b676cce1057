import PodiumMessages
import PodiumRuntime

/// `podium-challenge`: Challenges between players and their notifications. In this release it joins the bus, answers health and receives game events.
public enum ChallengeService {
    /// The service name: its request types start with `challenge.`.
    public static let name = "challenge"

    /// Bus topic prefixes the service subscribes to.
    public static let subscriptions = [Topic.allGameEvents]

    /// The service as the shared runtime runs it.
    public static func definition() -> ServiceDefinition {
        ServiceDefinition(name: name, subscriptions: subscriptions)
    }
}
