/// Every request type of the protocol, from the definitions in `Shared/Messages/Requests`: what
/// the gateway routes and authorizes by.
public enum RequestCatalog {
    /// The services behind the gateway, each answering the types that start with its name.
    public static let services = ["auth", "leaderboard", "achievement", "challenge"]

    /// The services with an outbox that other services follow (and operators read).
    public static let servicesWithOutbox: Set<String> = ["leaderboard", "achievement", "auth"]

    /// Every service type, the runtime's built-in ones included, and the gateway's own.
    public static let all: [RequestInfo] = {
        var all =
            GatewayRequests.all + AuthRequests.all + LeaderboardRequests.all + AchievementRequests.all
            + ChallengeRequests.all
        for service in services {
            all.append(ServiceRequests.health(of: service).info)
            all.append(ServiceRequests.testNotification(of: service).info)
            if receiptKeepingServices.contains(service) {
                all.append(ServiceRequests.receipt(of: service).info)
            }
            if servicesWithOutbox.contains(service) {
                all.append(ServiceRequests.outboxRead(of: service).info)
            }
        }
        return all
    }()

    /// The definitions by type.
    public static let byType: [MessageType: RequestInfo] = Dictionary(all.map { ($0.type, $0) }) {
        first, _ in first
    }

    /// The definition of `type`, if the protocol has one.
    public static func info(_ type: MessageType) -> RequestInfo? { byType[type] }

    /// Types that need no credential.
    public static let publicTypes: Set<MessageType> = Set(all.filter(\.access.isPublic).map(\.type))

    /// Types for the admin key only.
    public static let operatorTypes: Set<MessageType> = Set(
        all.filter(\.access.isOperatorOnly).map(\.type))

    /// Whether a type is named as an operator's (`admin.*`, `<service>.admin.*`): every
    /// operator-only definition is, and the gateway refuses undefined ones named so to others.
    public static func isOperatorName(_ type: MessageType) -> Bool {
        type.rawValue.hasPrefix("admin.") || type.rawValue.contains(".admin.")
    }

    /// The types the gateway answers itself.
    public static let gatewayTypes: Set<MessageType> = Set(GatewayRequests.all.map(\.type))

    /// The services that keep receipts of some of their types (each answers `<service>.receipt`).
    public static let receiptKeepingServices: Set<String> = Set(
        (AuthRequests.all + LeaderboardRequests.all + AchievementRequests.all + ChallengeRequests.all)
            .filter(\.keepsReceipt).map(\.owner))
}
