import Foundation
import PodiumClient
import PodiumMessages
import PodiumRuntime

/// The console's games page and its forms.
extension ConsolePages {
    func games(_ query: [String: String]) async -> (template: String, data: [String: Any]) {
        let game = query["game"] ?? ""
        var data: [String: Any] = ["game": game]
        guard !game.isEmpty else {
            // No game chosen: every game the leaderboard service knows, to choose from.
            switch await admin(LeaderboardRequests.games) {
            case .success(let list):
                data["known"] = list.games.map {
                    [
                        "gameId": $0.gameId, "leaderboards": $0.leaderboards,
                        "link": "/console/games" + ConsoleHTTP.query([("game", $0.gameId)]),
                    ] as [String: Any]
                }
                data["listed"] = true
            case .failure(let error): data["error"] = Self.describe(error)
            }
            return ("games", data)
        }
        switch await admin(LeaderboardRequests.boards, game: game) {
        case .failure(let error):
            data["error"] = Self.describe(error)
            return ("games", data)
        case .success(let boards):
            data["boards"] = boards.leaderboards.map { board -> [String: Any] in
                [
                    "id": board.id, "title": board.title, "game": game,
                    "order": board.sortOrder == .higherIsBetter ? "higher is better" : "lower is better",
                    "recurring": board.recurrence.map {
                        "every \($0.durationMilliseconds / 60_000) min from \(ConsoleHTTP.time($0.startsAt))"
                    } ?? "no",
                ]
            }
        }
        // Rarity is the share of the game's players who earned each achievement; the list is
        // asked for a player id that has no progress, so it holds only the catalogue.
        if case .success(let list) = await admin(AchievementRequests.list, game: game, player: "console-catalogue") {
            data["achievements"] = list.achievements.map { status -> [String: Any] in
                let percent = status.percentOfPlayersEarned ?? 0
                return [
                    "id": status.id, "title": status.title ?? "(hidden)",
                    "points": status.points.map(String.init) ?? "-",
                    "hidden": status.title == nil ? "yes" : "no", "percent": percent,
                    "percentText": String(format: "%.1f %%", percent),
                ]
            }
        }
        if case .success(let list) = await admin(ChallengeRequests.definitions, game: game) {
            data["challengeDefinitions"] = list.definitions.map { definition -> [String: Any] in
                [
                    "id": definition.id, "title": definition.title, "board": definition.leaderboardId,
                    "durations": definition.durations.map(Self.duration).joined(separator: ", "),
                    "attempts": definition.attempts.limit.map(String.init) ?? "unlimited",
                    "repeatable": definition.repeatable ? "yes" : "no", "release": definition.releaseState.rawValue,
                    "runEvent": definition.runEvent.map { event in
                        event.name + (event.measureAttribute.map { " (\($0))" } ?? "")
                    } ?? "-",
                    "game": game,
                ]
            }
        }
        data["boardChoices"] = (data["boards"] as? [[String: Any]]) ?? []
        data["loaded"] = true
        return ("games", data)
    }

    /// A duration as an operator reads it: "90 min", "2 h", "7 d".
    static func duration(_ milliseconds: Int64) -> String {
        let minutes = milliseconds / 60_000
        if minutes % 1440 == 0 { return "\(minutes / 1440) d" }
        if minutes % 60 == 0 { return "\(minutes / 60) h" }
        return "\(minutes) min"
    }

    /// Defines (adds or changes) a challenge of the game from the form (`challenge.admin.define`):
    /// durations are typed in minutes, separated by commas.
    func defineChallenge(_ fields: [String: String]) async -> (location: String, flash: String) {
        let game = fields["game"] ?? ""
        let back = "/console/games" + ConsoleHTTP.query([("game", game)])
        let typed = (fields["durations"] ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        var durations: [Int64] = []
        for text in typed where !text.isEmpty {
            guard let minutes = Int64(text), minutes > 0, minutes <= 43_200 else {
                return (back, "invalid_field: durations are whole minutes from 1 to 43200, separated by commas")
            }
            durations.append(minutes * 60_000)
        }
        let attempts: ChallengeDefinition.Attempts =
            fields["attempts"] == "unlimited" ? .unlimited : .limited(fields["attempts"].flatMap { Int($0) } ?? 1)
        let eventName = fields["runEvent"].flatMap { $0.isEmpty ? nil : $0 }
        let definition = ChallengeDefinition(
            id: fields["id"] ?? "", title: fields["title"] ?? "", details: fields["details"] ?? "",
            leaderboardId: fields["board"] ?? "", durations: durations, attempts: attempts,
            repeatable: fields["repeatable"] == "1",
            releaseState: ChallengeDefinition.ReleaseState(rawValue: fields["release"] ?? "") ?? .prerelease,
            runEvent: eventName.map {
                ChallengeDefinition.RunEvent(
                    name: $0, measureAttribute: fields["measureAttribute"].flatMap { $0.isEmpty ? nil : $0 })
            })
        switch await admin(ChallengeRequests.define, ChallengeDefinitionChange(definition: definition), game: game) {
        case .success(let saved): return (back, "challenge \(saved.definition.id) saved")
        case .failure(let error): return (back, Self.describe(error))
        }
    }

    /// Removes a challenge definition of the game (`challenge.admin.remove`); running challenges
    /// of it play on.
    func removeChallenge(_ fields: [String: String]) async -> (location: String, flash: String) {
        let game = fields["game"] ?? ""
        let back = "/console/games" + ConsoleHTTP.query([("game", game)])
        let id = fields["definition"] ?? ""
        switch await admin(ChallengeRequests.remove, ChallengeDefinitionTarget(definitionId: id), game: game) {
        case .success(let receipt):
            return (back, receipt.removed ? "challenge \(id) removed" : "the game had no challenge \(id)")
        case .failure(let error): return (back, Self.describe(error))
        }
    }

    /// Defines (adds or changes) a board of the game from the form (`leaderboard.admin.define`).
    func defineBoard(_ fields: [String: String]) async -> (location: String, flash: String) {
        let game = fields["game"] ?? ""
        let back = "/console/games" + ConsoleHTTP.query([("game", game)])
        func number(_ name: String) -> Int64? { fields[name].flatMap { Int64($0) } }
        let definition = LeaderboardDefinition(
            id: fields["id"] ?? "", title: fields["title"] ?? "",
            sortOrder: LeaderboardDefinition.SortOrder(rawValue: fields["sortOrder"] ?? "") ?? .higherIsBetter,
            submitOperator: LeaderboardDefinition.SubmitOperator(rawValue: fields["submitOperator"] ?? "") ?? .best,
            format: LeaderboardDefinition.Format(rawValue: fields["format"] ?? "") ?? .integer,
            minimum: number("minimum"), maximum: number("maximum"), serverOnly: fields["serverOnly"] == "1")
        switch await admin(LeaderboardRequests.define, LeaderboardDefinitionChange(definition: definition), game: game)
        {
        case .success(let saved): return (back, "board \(saved.definition.id) saved")
        case .failure(let error): return (back, Self.describe(error))
        }
    }

    /// Defines (adds or changes) an achievement of the game from the form (`achievement.admin.define`).
    func defineAchievement(_ fields: [String: String]) async -> (location: String, flash: String) {
        let game = fields["game"] ?? ""
        let back = "/console/games" + ConsoleHTTP.query([("game", game)])
        let definition = AchievementDefinition(
            id: fields["id"] ?? "", title: fields["title"] ?? "", description: fields["description"] ?? "",
            earnedDescription: fields["earnedDescription"] ?? "", points: fields["points"].flatMap { Int($0) } ?? 0,
            hidden: fields["hidden"] == "1", repeatable: fields["repeatable"] == "1",
            target: fields["target"].flatMap { Int64($0) })
        switch await admin(
            AchievementRequests.define, AchievementDefinitionChange(definition: definition), game: game)
        {
        case .success(let saved): return (back, "achievement \(saved.definition.id) saved")
        case .failure(let error): return (back, Self.describe(error))
        }
    }
}

extension ConsoleTemplates {
    static let games = """
        <form method="get" class="filters"><label>Game <input name="game" value="{{game}}" list="game-choices" required></label><button type="submit">Show</button></form>
        {{#error}}<p class="flash error">{{error}}</p>{{/error}}
        {{#listed}}<table id="game-list"><thead><tr><th>game</th><th>boards</th></tr></thead><tbody>
        {{#known}}<tr><td><a href="{{link}}"><code>{{gameId}}</code></a></td><td>{{leaderboards}}</td></tr>{{/known}}
        {{^known}}<tr><td colspan="2">no games yet: define a board below after naming a game, or add a game file</td></tr>{{/known}}
        </tbody></table>{{/listed}}
        {{#loaded}}
        <h2>Leaderboards</h2>
        <div class="scroll"><table id="game-boards"><thead><tr><th>board</th><th>title</th><th>order</th><th>recurring</th><th></th></tr></thead><tbody>
        {{#boards}}<tr><td><code>{{id}}</code></td><td>{{title}}</td><td>{{order}}</td><td>{{recurring}}</td><td><a href="/console/leaderboards?game={{game}}&amp;board={{id}}">view</a></td></tr>{{/boards}}
        {{^boards}}<tr><td colspan="5">none</td></tr>{{/boards}}
        </tbody></table></div>
        <h2>Achievements</h2>
        <div class="scroll"><table><thead><tr><th>achievement</th><th>points</th><th>hidden</th><th>rarity (players who earned it)</th></tr></thead><tbody>
        {{#achievements}}<tr><td>{{title}} <code>{{id}}</code></td><td>{{points}}</td><td>{{hidden}}</td><td><span class="bar"><span class="fill" data-percent="{{percent}}"></span></span> {{percentText}}</td></tr>{{/achievements}}
        {{^achievements}}<tr><td colspan="4">none</td></tr>{{/achievements}}
        </tbody></table></div>
        <h2>Challenges</h2>
        <p>Time-boxed challenges players start from these definitions; score and achievement challenges among friends need none. Games listed in <code>PODIUM_CHALLENGE_OPEN_GAMES</code> (the challenge service's setting) allow challenges between any players.</p>
        <div class="scroll"><table id="challenge-definitions"><thead><tr><th>challenge</th><th>board</th><th>durations</th><th>attempts</th><th>repeatable</th><th>release</th><th>run event</th><th></th></tr></thead><tbody>
        {{#challengeDefinitions}}<tr><td>{{title}} <code>{{id}}</code></td><td><code>{{board}}</code></td><td>{{durations}}</td><td>{{attempts}}</td><td>{{repeatable}}</td><td>{{release}}</td><td>{{runEvent}}</td><td><form method="post" action="/console/games/remove-challenge" class="inline" data-confirm="Remove the challenge definition {{id}}? Challenges running from it play on; players can start no new ones."><input type="hidden" name="csrf" value="{{csrf}}"><input type="hidden" name="game" value="{{game}}"><input type="hidden" name="definition" value="{{id}}"><button type="submit" class="danger">Remove</button></form></td></tr>{{/challengeDefinitions}}
        {{^challengeDefinitions}}<tr><td colspan="8">none</td></tr>{{/challengeDefinitions}}
        </tbody></table></div>
        <h2>Define a board</h2>
        <p>Adds a board, or changes one with the same id (a board with scores keeps its sort order).</p>
        <form method="post" action="/console/games/define-board" class="filters" id="define-board"><input type="hidden" name="csrf" value="{{csrf}}"><input type="hidden" name="game" value="{{game}}">
        <label>Id <input name="id" id="board-id" required maxlength="128"></label>
        <label>Title <input name="title" id="board-title" required maxlength="200"></label>
        <label>Order <select name="sortOrder"><option value="higherIsBetter">higher is better</option><option value="lowerIsBetter">lower is better</option></select></label>
        <label>Submissions <select name="submitOperator"><option value="best">keep the best</option><option value="latest">keep the latest</option><option value="increment">add up</option></select></label>
        <label>Format <select name="format"><option value="integer">integer</option><option value="timeMilliseconds">time (ms)</option><option value="currencyMicros">currency (micros)</option></select></label>
        <label>Minimum <input name="minimum" type="number"></label>
        <label>Maximum <input name="maximum" type="number"></label>
        <label><span><input type="checkbox" name="serverOnly" value="1"> game server only</span></label>
        <button type="submit" id="define-board-submit">Save board</button></form>
        <h2>Define an achievement</h2>
        <p>Adds an achievement reported by the game (rules from events are defined in the game files), or changes one with the same id.</p>
        <form method="post" action="/console/games/define-achievement" class="filters" id="define-achievement"><input type="hidden" name="csrf" value="{{csrf}}"><input type="hidden" name="game" value="{{game}}">
        <label>Id <input name="id" id="achievement-id" required maxlength="128"></label>
        <label>Title <input name="title" id="achievement-title" required maxlength="200"></label>
        <label>Description <input name="description" id="achievement-description" required maxlength="500"></label>
        <label>Once earned <input name="earnedDescription" id="achievement-earned" required maxlength="500"></label>
        <label>Points <input name="points" id="achievement-points" type="number" min="0" max="100" value="10" required></label>
        <label>Steps to earn it <input name="target" type="number" min="1" placeholder="percent reports"></label>
        <label><span><input type="checkbox" name="hidden" value="1"> hidden</span></label>
        <label><span><input type="checkbox" name="repeatable" value="1"> repeatable</span></label>
        <button type="submit" id="define-achievement-submit">Save achievement</button></form>
        <h2>Define a challenge</h2>
        <p>Adds a time-boxed challenge played on one of the game's boards, or changes one with the same id. A prerelease one can be started only by a game server or an operator.</p>
        <form method="post" action="/console/games/define-challenge" class="filters" id="define-challenge"><input type="hidden" name="csrf" value="{{csrf}}"><input type="hidden" name="game" value="{{game}}">
        <label>Id <input name="id" id="challenge-id" required maxlength="128"></label>
        <label>Title <input name="title" id="challenge-title" required maxlength="200"></label>
        <label>Details <input name="details" id="challenge-details" required maxlength="1000"></label>
        <label>Board <select name="board" id="challenge-board" required>{{#boardChoices}}<option value="{{id}}">{{title}} ({{id}})</option>{{/boardChoices}}</select></label>
        <label>Durations, minutes <input name="durations" id="challenge-durations" required placeholder="60, 1440" pattern="[0-9 ,]+"></label>
        <label>Attempts <select name="attempts"><option value="1">1</option><option value="3">3</option><option value="unlimited">unlimited</option></select></label>
        <label>Release <select name="release" id="challenge-release"><option value="prerelease">prerelease (testing)</option><option value="released">released (every player)</option></select></label>
        <label>Run event (optional) <input name="runEvent" maxlength="64" placeholder="game event name"></label>
        <label>Its measure (optional) <input name="measureAttribute" maxlength="64" placeholder="integer attribute, else value"></label>
        <label><span><input type="checkbox" name="repeatable" value="1"> repeatable</span></label>
        <button type="submit" id="define-challenge-submit">Save challenge</button></form>
        {{/loaded}}
        """
}
