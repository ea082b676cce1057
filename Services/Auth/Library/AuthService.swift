import PodiumMessages
import PodiumRuntime

/// `podium-auth`: Accounts, sessions and friends. In this release it joins the bus, answers health and follows game events as player activity.
public enum AuthService {
    /// The service name: its request types start with `auth.`.
    public static let name = "auth"

    /// Bus topic prefixes the service subscribes to.
    public static let subscriptions = [Topic.allGameEvents]

    /// The service as the shared runtime runs it.
    public static func definition() -> ServiceDefinition {
        ServiceDefinition(name: name, subscriptions: subscriptions)
    }
}
