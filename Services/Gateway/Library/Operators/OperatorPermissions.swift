import PodiumMessages

/// Which requests each operator role may send (docs/SECURITY.md 3.10): a pure rule over the
/// request catalog, tested without a gateway. Reads are every role's; moderators act on players;
/// administrators may do everything.
public enum OperatorPermissions {
    /// What a moderator may change besides what a viewer may read.
    static let moderation: Set<MessageType> = [
        AuthRequests.ban.type, AuthRequests.unban.type, AuthRequests.revokeSession.type, AuthRequests.unlock.type,
        AuthRequests.unlinkDevice.type,
        LeaderboardRequests.removeScore.type, ChallengeRequests.end.type, ChallengeRequests.inboxNotify.type,
        GatewayRequests.exportAccount.type,
    ]
    /// Reads that are not a viewer's: a player's whole data.
    /// Reads for administrators only: the list of operator accounts.
    static let administratorsOnly: Set<MessageType> = [GatewayRequests.listOperators.type]
    static let notForViewers: Set<MessageType> = [GatewayRequests.exportAccount.type]

    /// Whether `role` may send a request of `type`.
    public static func permits(_ role: OperatorRole, _ type: MessageType) -> Bool {
        switch role {
        case .administrator:
            return true
        case .moderator:
            return !administratorsOnly.contains(type) && (moderation.contains(type) || isRead(type))
        case .viewer:
            return isRead(type) && !notForViewers.contains(type) && !administratorsOnly.contains(type)
        }
    }

    /// Whether a request is an operator's care of their own account, which every role may do:
    /// a new password (not a new role) or setting up their own second factor. Removing a second
    /// factor is an administrator's (a stolen session must not weaken the account).
    public static func isSelfService(_ type: MessageType, payload: JSONValue?, operator name: String) -> Bool {
        guard payload?["name"]?.stringValue == name else { return false }
        switch type {
        case GatewayRequests.updateOperator.type:
            if let role = payload?["role"], role != .null { return false }
            return true
        case GatewayRequests.beginTOTP.type, GatewayRequests.confirmTOTP.type:
            return true
        default:
            return false
        }
    }

    /// A request that changes nothing: by the catalog, or one of every service's built-in reads
    /// (`<service>.health`, `.receipt`, `.outbox.read`); any other unknown type counts as a change.
    static func isRead(_ type: MessageType) -> Bool {
        if let info = RequestCatalog.info(type) { return !info.changesState }
        let name = type.rawValue
        return name.hasSuffix(".health") || name.hasSuffix(".receipt") || name.hasSuffix(".outbox.read")
    }
}
