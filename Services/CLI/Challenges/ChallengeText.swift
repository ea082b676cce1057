import PodiumMessages

/// How challenges and inbox items are written for people.
enum ChallengeText {
    /// One challenge: a header (kind and what it asks, issuer, times, message) and a table with
    /// one row per receiver (state, value, when it changed).
    static func table(_ challenge: ChallengeDetail) -> String {
        var header = TextTable([.left, .left])
        header.append(["challenge", challenge.challengeId])
        header.append(["kind", "\(challenge.kind.rawValue): \(what(challenge))"])
        header.append(["issuer", challenge.issuerId])
        header.append(["issued", Timestamp.text(challenge.createdAt)])
        if let expiresAt = challenge.expiresAt { header.append(["expires", Timestamp.text(expiresAt)]) }
        if let endsAt = challenge.endsAt {
            header.append(["ends", Timestamp.text(endsAt) + (challenge.state.map { " (\($0.rawValue))" } ?? "")])
        }
        if let rematchOf = challenge.rematchOf { header.append(["rematch of", rematchOf]) }
        if let message = challenge.message { header.append(["message", message]) }

        var receivers = TextTable([.left, .left, .right, .left])
        receivers.append([challenge.kind == .timed ? "participant" : "receiver", "state", "value", "at"])
        for receiver in challenge.receivers {
            receivers.append([
                receiver.playerId + (receiver.playerId == challenge.issuerId ? " (issuer)" : ""),
                receiver.state.rawValue,
                receiver.value.map(String.init) ?? "-", receiver.completedAt.map(Timestamp.text) ?? "-",
            ])
        }
        return header.text + "\n" + receivers.text
    }

    /// What the challenge asks: the score to beat, the achievement to earn, or the board to play.
    static func what(_ challenge: ChallengeDetail) -> String {
        switch challenge.kind {
        case .score:
            return "beat \(challenge.issuerValue.map(String.init) ?? "?") on \(challenge.boardId ?? "?")"
        case .achievement:
            return "earn \(challenge.achievementId ?? "?")"
        case .timed:
            return "best score on \(challenge.boardId ?? "?")"
        }
    }

    /// Several challenges, each as its table, separated by a blank line.
    static func list(_ challenges: [ChallengeDetail], empty: String) -> String {
        guard !challenges.isEmpty else { return empty }
        return challenges.map(table).joined(separator: "\n\n")
    }

    /// The inbox: one line per item, `*` marking the unread ones, newest first, then a count.
    static func inbox(_ items: [InboxItem], unreadOnly: Bool) -> String {
        guard !items.isEmpty else {
            return unreadOnly ? "no unread challenge notifications" : "the challenge inbox is empty"
        }
        var table = TextTable([.left, .left, .left, .left, .left, .left])
        table.append(["", "when", "kind", "message", "inbox id", "challenge"])
        for item in items {
            table.append([
                item.read ? "" : "*", Timestamp.text(item.createdAt), item.kind, item.message, item.id,
                item.details["challengeId"]?.stringValue ?? "-",
            ])
        }
        let unread = items.filter { !$0.read }.count
        return table.text + "\n\(unread) unread of \(items.count) (* = unread)"
    }
}
