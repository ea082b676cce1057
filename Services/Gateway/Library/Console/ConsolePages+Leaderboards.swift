import Foundation
import PodiumClient
import PodiumMessages
import PodiumRuntime

/// The console's leaderboards page and its forms.
extension ConsolePages {
    func leaderboards(_ query: [String: String]) async -> (template: String, data: [String: Any]) {
        let game = query["game"] ?? ""
        let board = query["board"] ?? ""
        let scope = query["scope"].flatMap { $0.isEmpty ? nil : $0 } ?? "allTime"
        let archive = query["archive"].flatMap { Int64($0) }
        let period = query["period"].flatMap { Int64($0) }
        let offset = max(0, query["offset"].flatMap { Int($0) } ?? 0)
        var data: [String: Any] = [
            "game": game, "board": board, "offset": offset, "find": query["find"] ?? "",
            "period": period.map(String.init) ?? "",
            "scopes": ["allTime", "week", "today"].map { ["value": $0, "selected": $0 == scope] as [String: Any] },
        ]
        if !game.isEmpty, case .success(let boards) = await admin(LeaderboardRequests.boards, game: game) {
            data["boardChoices"] = boards.leaderboards.map { ["id": $0.id, "title": $0.title] }
        }
        guard !game.isEmpty, !board.isEmpty else { return ("leaderboards", data) }
        if case .success(let list) = await admin(LeaderboardRequests.archives, BoardTarget(boardId: board), game: game)
        {
            data["archives"] = list.archives.map { item -> [String: Any] in
                [
                    "archive": item.archive, "entries": item.entries, "resetAt": ConsoleHTTP.time(item.resetAt),
                    "selected": item.archive == archive,
                ]
            }
        }
        if let text = query["find"]?.trimmingCharacters(in: .whitespaces), !text.isEmpty {
            data["found"] = await findPlayer(text, board: board, scope: scope, game: game)
        }
        var top = BoardQuery(boardId: board, offset: offset, limit: 50)
        if let archive {
            top.archive = archive
        } else if let period {
            top.period = period
        } else {
            top.scope = .string(scope)
        }
        switch await admin(LeaderboardRequests.top, top, game: game) {
        case .failure(let error):
            data["error"] = Self.describe(error)
        case .success(let page):
            data["loaded"] = true
            data["total"] = page.total
            data["scopeLabel"] =
                archive.map { "Archive \($0)" } ?? period.map { "Ended period \($0)" } ?? "Current standings (\(scope))"
            let names = await displayNames(page.entries.filter { $0.displayName == nil }.map(\.playerId))
            data["entries"] = page.entries.map { entry -> [String: Any] in
                [
                    "rank": entry.rank, "playerId": entry.playerId,
                    "displayName": entry.displayName ?? names[entry.playerId] ?? "",
                    "value": entry.value,
                    "submittedAt": ConsoleHTTP.time(entry.submittedAt), "archived": archive != nil || period != nil,
                    "game": game,
                    "board": board,
                ]
            }
            if offset + page.entries.count < page.total {
                data["next"] =
                    "/console/leaderboards"
                    + ConsoleHTTP.query([
                        ("game", game), ("board", board), ("scope", scope), ("archive", archive.map(String.init)),
                        ("period", period.map(String.init)),
                        ("offset", String(offset + 50)),
                    ])
            }
        }
        return ("leaderboards", data)
    }

    /// "Find a player" on a board: the text as a player id, and the players whose username or
    /// display name starts with it (up to 10), each with their entry or "no entry".
    private func findPlayer(_ text: String, board: String, scope: String, game: String) async -> [[String: Any]] {
        var candidates: [(id: String, label: String)] = []
        if case .success(let found) = await admin(AuthRequests.search, PlayerSearch(query: text, limit: 10)) {
            candidates = found.players.map {
                ($0.playerId, $0.displayName + ($0.username.map { " (\($0))" } ?? ""))
            }
        }
        if !candidates.contains(where: { $0.id == text }) { candidates.insert((text, text), at: 0) }
        var rows: [[String: Any]] = []
        for candidate in candidates {
            let reply = await admin(
                LeaderboardRequests.entry, BoardQuery(boardId: board, scope: .string(scope)), game: game,
                player: candidate.id)
            switch reply {
            case .success(let found):
                if let entry = found.entry {
                    rows.append([
                        "playerId": candidate.id, "label": candidate.label,
                        "text": "rank \(entry.rank) with \(entry.value)",
                    ])
                } else if candidate.label != candidate.id {
                    rows.append(["playerId": candidate.id, "label": candidate.label, "text": "no entry on this board"])
                }
            case .failure(let error) where candidate.label != candidate.id:
                rows.append(["playerId": candidate.id, "label": candidate.label, "text": Self.describe(error)])
            case .failure: continue
            }
        }
        if rows.isEmpty { rows.append(["label": text, "text": "no player by that id or name has an entry here"]) }
        return rows
    }

    func removeScore(_ fields: [String: String]) async -> (location: String, flash: String) {
        let game = fields["game"] ?? ""
        let board = fields["board"] ?? ""
        let player = fields["player"] ?? ""
        let back = "/console/leaderboards" + ConsoleHTTP.query([("game", game), ("board", board)])
        switch await admin(LeaderboardRequests.removeScore, ScoreRemoval(boardId: board, playerId: player), game: game)
        {
        case .success(let receipt):
            return (back, receipt.removed ? "removed the score of \(player)" : "\(player) had no score")
        case .failure(let error): return (back, Self.describe(error))
        }
    }

    func reset(_ fields: [String: String]) async -> (location: String, flash: String) {
        let game = fields["game"] ?? ""
        let board = fields["board"] ?? ""
        let back = "/console/leaderboards" + ConsoleHTTP.query([("game", game), ("board", board)])
        guard fields["confirm"] == "yes" else { return (back, "tick the box to confirm the reset") }
        switch await admin(LeaderboardRequests.reset, BoardTarget(boardId: board), game: game) {
        case .success(let archive):
            return (
                back + "&archive=\(archive.archive)", "reset: \(archive.entries) entries are archive \(archive.archive)"
            )
        case .failure(let error): return (back, Self.describe(error))
        }
    }
}

extension ConsoleTemplates {
    static let leaderboards = """
        <form method="get" class="filters">
        <label>Game <input name="game" value="{{game}}" list="game-choices" required></label>
        <label>Board <input name="board" value="{{board}}" list="board-choices" required></label><datalist id="board-choices">{{#boardChoices}}<option value="{{id}}">{{title}}</option>{{/boardChoices}}</datalist>
        <label>Scope <select name="scope">{{#scopes}}<option value="{{value}}"{{#selected}} selected{{/selected}}>{{value}}</option>{{/scopes}}</select></label>
        <label>Ended period <input name="period" type="number" min="0" value="{{period}}" placeholder="recurring boards"></label>
        <label>Archive <select name="archive"><option value="">current standings</option>{{#archives}}<option value="{{archive}}"{{#selected}} selected{{/selected}}>archive {{archive}} ({{entries}} entries, reset {{resetAt}})</option>{{/archives}}</select></label>
        <label>Offset <input name="offset" type="number" min="0" value="{{offset}}"></label>
        <button type="submit">Show</button>
        </form>
        <form method="get" class="filters"><input type="hidden" name="game" value="{{game}}"><input type="hidden" name="board" value="{{board}}"><label>Find a player <input name="find" id="find-on-board" value="{{find}}" placeholder="username, name or id"></label><button type="submit" id="find-on-board-submit">Find</button></form>
        {{#found}}<p class="flash found">{{#playerId}}<a href="/console/players?playerId={{playerId}}">{{label}}</a>{{/playerId}}{{^playerId}}{{label}}{{/playerId}}: {{text}}</p>{{/found}}
        {{#error}}<p class="flash error">{{error}}</p>{{/error}}
        {{#loaded}}
        <p>{{scopeLabel}}: {{total}} entries.</p>
        <table id="standings"><thead><tr><th>rank</th><th>player</th><th>name</th><th>value</th><th>submitted</th><th></th></tr></thead><tbody>
        {{#entries}}<tr><td>{{rank}}</td><td><a href="/console/players?playerId={{playerId}}"><code>{{playerId}}</code></a></td><td>{{displayName}}</td><td>{{value}}</td><td>{{submittedAt}}</td><td>{{^archived}}<form method="post" action="/console/leaderboards/remove-score" data-confirm="Remove this score of {{displayName}}? The player's entry leaves the board."><input type="hidden" name="csrf" value="{{csrf}}"><input type="hidden" name="game" value="{{game}}"><input type="hidden" name="board" value="{{board}}"><input type="hidden" name="player" value="{{playerId}}"><button type="submit" class="danger">Remove score</button></form>{{/archived}}</td></tr>{{/entries}}
        {{^entries}}<tr><td colspan="6">no entries</td></tr>{{/entries}}
        </tbody></table>
        {{#next}}<p><a href="{{next}}">next page</a></p>{{/next}}
        <h2>Reset</h2>
        <form method="post" action="/console/leaderboards/reset" class="danger-zone" data-confirm="Reset {{board}}? Its standings move into a new archive."><input type="hidden" name="csrf" value="{{csrf}}"><input type="hidden" name="game" value="{{game}}"><input type="hidden" name="board" value="{{board}}">
        <label><input type="checkbox" name="confirm" value="yes" required> move the current standings into a new archive and start the board empty</label>
        <button type="submit" class="danger" id="reset">Reset board</button></form>
        {{/loaded}}
        """
}
