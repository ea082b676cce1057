import Foundation
import PodiumClient
import PodiumMessages
import PodiumRuntime

/// The console's event log and audit log page and its forms.
extension ConsolePages {
    static let eventWindow = 1000

    func events(_ query: [String: String]) async -> (template: String, data: [String: Any]) {
        let game = query["game"] ?? ""
        let player = query["player"] ?? ""
        let name = query["name"] ?? ""
        let head = parts.eventLog.head
        var rows: [[String: Any]] = []
        if let page = try? await parts.eventLog.page(
            after: head > UInt64(Self.eventWindow) ? head - UInt64(Self.eventWindow) : 0, limit: Self.eventWindow)
        {
            for message in page.messages.reversed() {
                let envelope = message.envelope
                let event = try? envelope.decodePayload(as: GameEvent.self)
                if !game.isEmpty && envelope.gameId != game { continue }
                if !player.isEmpty && envelope.playerId != player { continue }
                if !name.isEmpty && event?.name != name { continue }
                rows.append([
                    "seq": envelope.sequence ?? 0, "at": ConsoleHTTP.time(envelope.timestamp),
                    "gameId": envelope.gameId ?? "-",
                    "playerId": envelope.playerId ?? "-", "name": event?.name ?? envelope.type.rawValue,
                    "value": event?.value.map(String.init) ?? "",
                ])
                if rows.count == 50 { break }
            }
        }
        let names = await displayNames(rows.compactMap { $0["playerId"] as? String })
        for index in rows.indices {
            rows[index]["playerName"] = (rows[index]["playerId"] as? String).flatMap { names[$0] } ?? ""
        }
        return (
            "events",
            ["game": game, "player": player, "name": name, "head": head, "window": Self.eventWindow, "rows": rows]
        )
    }

    func audit(_ query: [String: String]) async -> (template: String, data: [String: Any]) {
        let type = query["type"] ?? ""
        let player = query["player"] ?? ""
        let auditQuery = AuditQuery(
            before: query["before"].flatMap({ Int64($0) }), limit: 50, type: type.isEmpty ? nil : type,
            playerId: player.isEmpty ? nil : player)
        var data: [String: Any] = ["type": type, "player": player]
        switch await admin(GatewayRequests.audit, auditQuery) {
        case .failure(let error): data["error"] = Self.describe(error)
        case .success(let page):
            let names = await displayNames(page.entries.compactMap(\.playerId))
            data["entries"] = page.entries.map { entry -> [String: Any] in
                [
                    "seq": entry.seq, "at": ConsoleHTTP.time(entry.at), "actor": entry.actor,
                    "transport": entry.transport,
                    "peer": entry.peer ?? "", "type": entry.type, "gameId": entry.gameId ?? "",
                    "playerId": entry.playerId ?? "", "playerName": entry.playerId.flatMap { names[$0] } ?? "",
                    "outcome": entry.outcome, "outcomeClass": entry.outcome == "ok" ? "ok" : "error",
                    "payload": String(decoding: (try? JSONWriter.data(entry.payload)) ?? Data(), as: UTF8.self),
                ]
            }
            data["next"] = page.next.map {
                "/console/audit" + ConsoleHTTP.query([("type", type), ("player", player), ("before", String($0))])
            }
        }
        return ("audit", data)
    }
}

extension ConsoleTemplates {
    static let events = """
        <form method="get" class="filters">
        <label>Game <input name="game" value="{{game}}" list="game-choices"></label>
        <label>Player <input name="player" value="{{player}}"></label>
        <label>Event <input name="name" value="{{name}}"></label>
        <button type="submit">Filter</button>
        </form>
        <p>The latest events of the event log (head {{head}}), newest first; filters apply to the last {{window}}.</p>
        <table id="event-log"><thead><tr><th>seq</th><th>when</th><th>game</th><th>player</th><th>event</th><th>value</th></tr></thead><tbody>
        {{#rows}}<tr><td>{{seq}}</td><td>{{at}}</td><td>{{gameId}}</td><td><a href="/console/players?playerId={{playerId}}">{{#playerName}}{{playerName}} {{/playerName}}<code>{{playerId}}</code></a></td><td>{{name}}</td><td>{{value}}</td></tr>{{/rows}}
        {{^rows}}<tr><td colspan="6">no events</td></tr>{{/rows}}
        </tbody></table>
        """

    static let audit = """
        <form method="get" class="filters">
        <label>Type <input name="type" value="{{type}}"></label>
        <label>Player <input name="player" value="{{player}}"></label>
        <button type="submit">Filter</button>
        </form>
        {{#error}}<p class="flash error">{{error}}</p>{{/error}}
        <table id="audit-log"><thead><tr><th>seq</th><th>when</th><th>who</th><th>from</th><th>what</th><th>player</th><th>outcome</th><th>payload</th></tr></thead><tbody>
        {{#entries}}<tr><td>{{seq}}</td><td>{{at}}</td><td>{{actor}}</td><td>{{transport}} {{peer}}</td><td>{{type}} {{gameId}}</td><td>{{#playerId}}<a href="/console/players?playerId={{playerId}}">{{#playerName}}{{playerName}} {{/playerName}}<code>{{playerId}}</code></a>{{/playerId}}</td><td class="outcome-{{outcomeClass}}">{{outcome}}</td><td><code>{{payload}}</code></td></tr>{{/entries}}
        {{^entries}}<tr><td colspan="8">no entries</td></tr>{{/entries}}
        </tbody></table>
        {{#next}}<p><a href="{{next}}">older entries</a></p>{{/next}}
        """
}
