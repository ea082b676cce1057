import Foundation
import PodiumMessages

/// How leaderboard replies are written for people.
///
/// Values are shown as the integers they are: a page carries no board format, and a second
/// request for it would make every read two. `boards` says each board's format.
enum LeaderboardText {
    /// Marks the caller's own row.
    static let youMark = "< you"

    /// A player as `Ada (6f0c1a2b…)`: the display name when known, and the id shortened.
    static func player(_ playerId: String, displayName: String?) -> String {
        let id = playerId.count > 9 ? String(playerId.prefix(8)) + "…" : playerId
        guard let displayName, !displayName.isEmpty else { return id }
        return "\(displayName) (\(id))"
    }

    /// The subject of a sentence about the caller: "you have", or "player X has" for a player
    /// named with --player.
    static func who(_ playerId: String?) -> String {
        playerId.map { "player \($0) has" } ?? "you have"
    }

    /// A page's scope for people: `all time`, `today`, `this week`, `period 3`, `archive 2`.
    static func scope(_ scope: String) -> String {
        switch scope {
        case "allTime": return "all time"
        case "week": return "this week"
        case "today": return "today"
        default:
            if let colon = scope.firstIndex(of: ":") {
                return String(scope[..<colon]) + " " + String(scope[scope.index(after: colon)...])
            }
            return scope
        }
    }

    /// A page: a title line, a table with `< you` on the caller's row, then the next page's cursor.
    static func page(_ page: LeaderboardPage, me: String?, friends: Bool) -> String {
        let title = "\(page.boardId), \(scope(page.scope))" + (friends ? ", you and your friends" : "")
        guard let first = page.entries.first, let last = page.entries.last else {
            return "\(title): no entries" + (page.total > 0 ? " here (\(page.total) in all)" : "")
        }
        let rows = page.entries.map { entry in
            [
                String(entry.rank), player(entry.playerId, displayName: entry.displayName), String(entry.value),
                Timestamp.text(entry.submittedAt), entry.playerId == me ? youMark : "",
            ]
        }
        var lines = [
            "\(title): " + (first.rank == last.rank ? "rank \(first.rank)" : "ranks \(first.rank)-\(last.rank)")
                + " of \(page.total)",
            TextColumns.render(header: ["RANK", "PLAYER", "VALUE", "SUBMITTED", ""], rows: rows),
        ]
        if let next = page.nextCursor { lines.append("next page: --cursor \(next)") }
        return lines.joined(separator: "\n")
    }

    /// The caller's entry, one field a line.
    static func entry(_ entry: LeaderboardEntry, boardId: String, scope: String) -> String {
        var table = TextTable([.left, .left])
        table.append(["board", "\(boardId) (\(scope))"])
        table.append(["player", entry.displayName.map { "\($0) (\(entry.playerId))" } ?? entry.playerId])
        table.append(["rank", String(entry.rank)])
        table.append(["value", String(entry.value)])
        table.append(["submitted", Timestamp.text(entry.submittedAt)])
        if let context = entry.context { table.append(["context", String(context)]) }
        if let metadata = entry.metadata, let text = try? WireCodec.encode(metadata) {
            table.append(["metadata", String(decoding: text, as: UTF8.self)])
        }
        return table.text
    }

    /// A submission's receipt: the entry it left, whether it improved, the scopes it beat.
    static func receipt(_ receipt: ScoreReceipt) -> String {
        var table = TextTable([.left, .left])
        table.append(["board", receipt.boardId])
        table.append(["player", receipt.entry.displayName.map { "\($0) (\(receipt.playerId))" } ?? receipt.playerId])
        if let submitted = receipt.submittedValue { table.append(["submitted", String(submitted)]) }
        table.append(["rank", "\(receipt.entry.rank) (all time)"])
        table.append(["value", String(receipt.entry.value)])
        let improved: String
        switch (receipt.improved, receipt.previousValue) {
        case (true, nil): improved = "yes, a first score"
        case (true, let previous?): improved = "yes, from \(previous)"
        case (false, let previous?): improved = "no, the entry keeps \(previous)"
        case (false, nil): improved = "no"
        }
        table.append(["improved", improved])
        table.append([
            "beaten",
            receipt.scopesBeaten.isEmpty ? "none" : ordered(receipt.scopesBeaten).map(scope).joined(separator: ", "),
        ])
        if receipt.duplicate == true { table.append(["duplicate", "yes: a resend, nothing was submitted again"]) }
        return table.text
    }

    /// Scopes from the shortest to all time.
    static func ordered(_ scopes: [String]) -> [String] {
        let order = ["today", "week", "allTime"]
        return scopes.sorted {
            (order.firstIndex(of: $0) ?? order.count, $0) < (order.firstIndex(of: $1) ?? order.count, $1)
        }
    }

    /// The caller's best scores, best first.
    static func history(_ history: ScoreHistory, named: Bool) -> String {
        guard !history.scores.isEmpty else {
            return "\(who(named ? history.playerId : nil)) no scores on \(history.boardId)"
        }
        let rows = history.scores.enumerated().map { index, score in
            [String(index + 1), String(score.value), Timestamp.text(score.submittedAt)]
        }
        return "\(history.boardId), " + (named ? "best scores of \(history.playerId)" : "your best scores") + ":\n"
            + TextColumns.render(header: ["#", "VALUE", "SUBMITTED"], rows: rows)
    }

    /// The game's boards, one a row.
    static func boards(
        _ boards: [LeaderboardDefinition], gameId: String, now: Int64 = Int64(Date().timeIntervalSince1970 * 1000)
    ) -> String {
        guard !boards.isEmpty else { return "game \(gameId) has no leaderboards" }
        let rows = boards.map { board in
            [
                board.id, board.title + (board.serverOnly ? " (server only)" : ""), board.sortOrder.rawValue,
                board.submitOperator.rawValue, board.format.rawValue, range(board), recurrence(board, now: now),
            ]
        }
        return TextColumns.render(
            header: ["ID", "TITLE", "ORDER", "OPERATOR", "FORMAT", "RANGE", "RECURRENCE"], rows: rows)
    }

    /// The game's sets of boards.
    static func sets(_ sets: [LeaderboardSet]) -> String {
        guard !sets.isEmpty else { return "no leaderboard sets" }
        let rows = sets.map { [$0.id, $0.title, $0.leaderboardIds.joined(separator: ", ")] }
        return TextColumns.render(header: ["SET", "TITLE", "BOARDS"], rows: rows)
    }

    /// `0..100000000`, `1..`, `..0` or `-`.
    static func range(_ board: LeaderboardDefinition) -> String {
        if board.minimum == nil && board.maximum == nil { return "-" }
        return (board.minimum.map(String.init) ?? "") + ".." + (board.maximum.map(String.init) ?? "")
    }

    /// `every 7d from 2026-01-05T00:00:00Z, now period 3`, or `-`.
    static func recurrence(_ board: LeaderboardDefinition, now: Int64) -> String {
        guard let recurrence = board.recurrence else { return "-" }
        var text = "every \(duration(recurrence.durationMilliseconds)) from \(Timestamp.text(recurrence.startsAt))"
        if let period = board.period(at: now) { text += ", now period \(period)" } else { text += ", not started" }
        return text
    }

    /// Milliseconds as the largest whole unit: `7d`, `12h`, `90m`, `45s`, `1500ms`.
    static func duration(_ milliseconds: Int64) -> String {
        for (unit, size) in [("d", Int64(86_400_000)), ("h", 3_600_000), ("m", 60_000), ("s", 1000)]
        where milliseconds >= size && milliseconds % size == 0 {
            return "\(milliseconds / size)\(unit)"
        }
        return "\(milliseconds)ms"
    }
}
