/// Refresh-token rotation and reuse detection: a pure decision, tested without a database.
///
/// A session keeps the id of its one current refresh token. Presenting it rotates it (a new id
/// replaces it). Presenting any other id of the session means an old token was replayed, by
/// its owner's attacker or a confused client: the whole session is revoked, so that whoever
/// holds the current token loses it too (RFC 6819 5.2.2.3, OAuth 2.0 Security BCP 4.14).
public enum RefreshRotation {
    /// What a store found for the session.
    public struct Stored: Sendable, Equatable {
        public var currentTokenId: String
        public var revoked: Bool

        public init(currentTokenId: String, revoked: Bool) {
            self.currentTokenId = currentTokenId
            self.revoked = revoked
        }
    }

    /// What to write.
    public enum Decision: Sendable, Equatable {
        /// Replace the current token id with the new one.
        case rotate
        /// Revoke the session (an old token was presented).
        case revokeSession
        /// Nothing: the session is gone or revoked.
        case refuse
    }

    public static func decide(_ stored: Stored?, presentedTokenId: String) -> Decision {
        guard let stored, !stored.revoked else { return .refuse }
        return stored.currentTokenId == presentedTokenId ? .rotate : .revokeSession
    }

    /// The outcome a decision reports.
    public static func outcome(of decision: Decision) -> RefreshOutcome {
        switch decision {
        case .rotate: .rotated
        case .revokeSession: .reused
        case .refuse: .revoked
        }
    }
}
