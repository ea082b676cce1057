import Foundation
import PodiumClient
import PodiumMessages
import PodiumRuntime

/// The console's challenges page and its forms.
extension ConsolePages {
    func challenges(_ query: [String: String]) async -> (template: String, data: [String: Any]) {
        let openOnly = query["open"] == "1"
        var data: [String: Any] = ["game": query["game"] ?? "", "openOnly": openOnly]
        if let game = query["game"], !game.isEmpty {
            switch await admin(ChallengeRequests.list, ChallengeListing(openOnly: openOnly, limit: 100), game: game) {
            case .failure(let error): data["error"] = Self.describe(error)
            case .success(let reply):
                let list = reply.challenges
                let now = parts.clock.nowMilliseconds
                let names = await displayNames(list.flatMap { [$0.issuerId] + $0.receivers.map(\.playerId) })
                func named(_ id: String) -> String { names[id].map { "\($0)" } ?? id }
                data["listed"] = true
                data["list"] = list.map { challenge -> [String: Any] in
                    // A time-boxed challenge whose time is over shows as ended at once (the
                    // service marks it ended at its next sweep, within a second or two).
                    let over = challenge.kind == .timed && (challenge.endsAt ?? .max) <= now
                    return [
                        "challengeId": challenge.challengeId, "createdAt": ConsoleHTTP.time(challenge.createdAt),
                        "kind": challenge.kind.rawValue, "issuer": named(challenge.issuerId),
                        "issuerId": challenge.issuerId, "target": challenge.boardId ?? challenge.achievementId ?? "-",
                        "participants": challenge.receivers.map { "\(named($0.playerId)): \($0.state.rawValue)" }
                            .joined(separator: ", "),
                        "message": challenge.message ?? "",
                        "state": over
                            ? ChallengeState.ended.rawValue
                            : challenge.state?.rawValue
                                ?? challenge.receivers.map { "\($0.state.rawValue)" }.joined(separator: ", "),
                        "endsAt": ConsoleHTTP.time(challenge.endsAt ?? challenge.expiresAt),
                        "endable": challenge.kind == .timed && challenge.state == .running
                            && (challenge.endsAt ?? 0) > now,
                        "game": game,
                    ]
                }
            }
        }
        if let id = query["ended"], !id.isEmpty, let game = query["game"] {
            // Shown after an end: the challenge as the end left it (its detail, read as the issuer).
            if case .success(let list) = await admin(
                ChallengeRequests.detail, ChallengeTarget(challengeId: id), game: game, player: query["issuer"])
            {
                data["ended"] = [
                    "challengeId": list.challengeId, "boardId": list.boardId ?? "-",
                    "endsAt": ConsoleHTTP.time(list.endsAt),
                    "participants": list.receivers.map(\.playerId).joined(separator: ", "),
                ]
            }
        }
        if case .success(let page) = await admin(
            GatewayRequests.audit, AuditQuery(limit: 20, type: ChallengeRequests.end.type.rawValue))
        {
            data["recent"] = page.entries.map {
                [
                    "at": ConsoleHTTP.time($0.at), "type": "\($0.type) (\($0.outcome))", "gameId": $0.gameId ?? "-",
                    "playerId": (try? WireCodec.convert($0.payload, to: ChallengeTarget.self))?.challengeId ?? "-",
                ]
            }
        }
        return ("challenges", data)
    }

    func endChallenge(_ fields: [String: String]) async -> (location: String, flash: String) {
        let game = fields["game"] ?? ""
        let id = fields["challenge"] ?? ""
        switch await admin(ChallengeRequests.end, ChallengeTarget(challengeId: id), game: game) {
        case .success(let detail):
            return (
                "/console/challenges"
                    + ConsoleHTTP.query([("game", game), ("ended", id), ("issuer", detail.issuerId)]),
                "ended at \(ConsoleHTTP.time(detail.endsAt)); the participants get the standings"
            )
        case .failure(let error):
            return ("/console/challenges" + ConsoleHTTP.query([("game", game)]), Self.describe(error))
        }
    }
}

extension ConsoleTemplates {
    static let challenges = """
        <form method="get" class="filters"><label>Game <input name="game" value="{{game}}" list="game-choices" required></label>
        <label><input type="checkbox" name="open" value="1"{{#openOnly}} checked{{/openOnly}}> open only</label><button type="submit">Show</button></form>
        {{#error}}<p class="flash error">{{error}}</p>{{/error}}
        {{#listed}}
        <table id="challenge-list"><thead><tr><th>created</th><th>challenge</th><th>kind</th><th>issuer</th><th>participants</th><th>board / achievement</th><th>message</th><th>state</th><th>ends</th><th></th></tr></thead><tbody>
        {{#list}}<tr><td>{{createdAt}}</td><td><code>{{challengeId}}</code></td><td>{{kind}}</td><td><a href="/console/players?playerId={{issuerId}}">{{issuer}}</a></td><td>{{participants}}</td><td>{{target}}</td><td>{{message}}</td><td>{{state}}</td><td>{{endsAt}}</td><td>{{#endable}}<form method="post" action="/console/challenges/end" data-confirm="End the challenge {{challengeId}} now? It is decided as if its time had run out."><input type="hidden" name="csrf" value="{{csrf}}"><input type="hidden" name="game" value="{{game}}"><input type="hidden" name="challenge" value="{{challengeId}}"><button type="submit" class="danger">End now</button></form>{{/endable}}</td></tr>{{/list}}
        {{^list}}<tr><td colspan="10">no challenges</td></tr>{{/list}}
        </tbody></table>
        {{/listed}}
        <h2>End by id</h2>
        <p>End a running time-boxed challenge now: it is decided as if its time had run out.</p>
        <form method="post" action="/console/challenges/end" class="danger-zone" data-confirm="End this challenge now? It is decided as if its time had run out."><input type="hidden" name="csrf" value="{{csrf}}">
        <label>Game <input name="game" value="{{game}}" list="game-choices" required></label>
        <label>Challenge id <input name="challenge" required></label>
        <button type="submit" class="danger">End now</button></form>
        {{#ended}}<h2>Ended</h2><dl><dt>challenge</dt><dd><code>{{challengeId}}</code></dd><dt>board</dt><dd>{{boardId}}</dd><dt>ends at</dt><dd>{{endsAt}}</dd><dt>participants</dt><dd>{{participants}}</dd></dl>{{/ended}}
        <h2>Recently ended by operators</h2>
        <table><thead><tr><th>when</th><th>what</th><th>game</th><th>challenge</th></tr></thead><tbody>
        {{#recent}}<tr><td>{{at}}</td><td>{{type}}</td><td>{{gameId}}</td><td>{{playerId}}</td></tr>{{/recent}}
        {{^recent}}<tr><td colspan="4">none in the audit log</td></tr>{{/recent}}
        </tbody></table>
        """
}
