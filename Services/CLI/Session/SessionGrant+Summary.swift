import PodiumMessages

extension SessionGrant {
    /// One line about a new or renewed session, without its tokens.
    func summary(savedIn path: String) -> String {
        let who = username.map { "\(displayName) (\($0))" } ?? displayName
        return
            "\(who) is player \(playerId); session saved in \(path), valid until \(Timestamp.text(sessionExpiresAt)), "
            + "renewable until \(Timestamp.text(refreshExpiresAt))"
    }
}
