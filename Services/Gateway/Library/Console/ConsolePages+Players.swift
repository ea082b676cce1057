import Foundation
import PodiumClient
import PodiumMessages
import PodiumRuntime

/// The console's players page and its forms.
extension ConsolePages {
    func players(_ query: [String: String]) async -> (template: String, data: [String: Any]) {
        let game = query["game"] ?? ""
        var data: [String: Any] = [
            "username": query["username"] ?? "", "playerId": query["playerId"] ?? "",
            "deviceId": query["deviceId"] ?? "",
        ]
        if !game.isEmpty { data["game"] = game }
        func given(_ name: String) -> String? { query[name].flatMap { $0.isEmpty ? nil : $0 } }
        // Find players by the start of their username or display name (or their id).
        if let text = given("q") {
            data["q"] = text
            switch await admin(AuthRequests.search, PlayerSearch(query: text, limit: 50)) {
            case .failure(let error):
                data["error"] = Self.describe(error)
            case .success(let found):
                data["searched"] = true
                data["results"] = found.players.map { player -> [String: Any] in
                    [
                        "playerId": player.playerId, "displayName": player.displayName,
                        "username": player.username ?? "-", "createdAt": ConsoleHTTP.time(player.createdAt),
                        "link": "/console/players"
                            + ConsoleHTTP.query(
                                [("playerId", player.playerId)] + (game.isEmpty ? [] : [("game", game)])),
                    ]
                }
            }
        }
        let lookup = PlayerLookup(playerId: given("playerId"), username: given("username"), deviceId: given("deviceId"))
        guard lookup != PlayerLookup() else { return ("players", data) }
        switch await admin(AuthRequests.lookup, lookup) {
        case .failure(let error):
            data["error"] = Self.describe(error)
        case .success(let record):
            var player: [String: Any] = [
                "playerId": record.playerId, "displayName": record.displayName, "username": record.username ?? "-",
                "createdAt": ConsoleHTTP.time(record.createdAt), "friends": record.friends,
                "friendIds": record.friendIds.map { ["id": $0] },
                "devices": record.devices.map {
                    ["deviceId": $0.deviceId, "linkedAt": ConsoleHTTP.time($0.linkedAt), "playerId": record.playerId]
                },
                "sessions": record.sessions.map {
                    [
                        "sessionId": $0.sessionId, "createdAt": ConsoleHTTP.time($0.createdAt),
                        "expiresAt": ConsoleHTTP.time($0.expiresAt),
                        "playerId": record.playerId,
                    ]
                },
            ]
            if let ban = record.ban {
                player["ban"] = [
                    "reason": ban.reason, "bannedAt": ConsoleHTTP.time(ban.bannedAt),
                    "until": ban.until.map { "until \(ConsoleHTTP.time($0))" } ?? "until unbanned",
                ]
            }
            // Friends by name.
            let names = await displayNames(record.friendIds)
            player["friendIds"] = record.friendIds.map { ["id": $0, "name": names[$0] ?? $0] }
            // Failed-login limits this account has reached, to clear.
            if let username = record.username,
                case .success(let list) = await admin(AuthRequests.lockouts, LockoutQuery(username: username))
            {
                player["hasLockouts"] = !list.lockouts.isEmpty
                player["lockouts"] = list.lockouts.map {
                    [
                        "limit": $0.limit, "address": $0.address ?? "any address", "failures": $0.failures,
                        "username": username, "playerId": record.playerId,
                    ] as [String: Any]
                }
            }
            data["player"] = player
            if !game.isEmpty {
                // The player's entry on each of the game's boards.
                if case .success(let boards) = await admin(LeaderboardRequests.boards, game: game) {
                    var scores: [[String: Any]] = []
                    for board in boards.leaderboards {
                        if case .success(let reply) = await admin(
                            LeaderboardRequests.entry, BoardQuery(boardId: board.id), game: game,
                            player: record.playerId),
                            let entry = reply.entry
                        {
                            scores.append([
                                "board": board.title, "boardId": board.id, "value": entry.value, "rank": entry.rank,
                                "at": ConsoleHTTP.time(entry.submittedAt),
                            ])
                        }
                    }
                    data["scores"] = scores
                }
                if case .success(let list) = await admin(AchievementRequests.list, game: game, player: record.playerId)
                {
                    data["achievements"] = list.achievements.map { status -> [String: Any] in
                        [
                            "title": status.title ?? status.id,
                            "percent": status.percentComplete.map { String(format: "%.0f %%", $0) } ?? "-",
                            "earned": status.earned ? (status.earnedAt.map(ConsoleHTTP.time) ?? "yes") : "-",
                        ]
                    }
                }
                var found: [(ChallengeDetail, String)] = []
                for (definition, role) in [
                    (ChallengeRequests.received, "received"), (ChallengeRequests.issued, "issued"),
                ] {
                    if case .success(let list) = await admin(
                        definition, ChallengeFilter(), game: game, player: record.playerId)
                    {
                        // One row per challenge: a time-boxed one the player started is also
                        // among the received ones; it shows once, as issued.
                        for challenge in list.challenges {
                            found.removeAll { $0.0.challengeId == challenge.challengeId }
                            found.append((challenge, role))
                        }
                    }
                }
                // The other side of each challenge, by name.
                let names = await displayNames(found.flatMap { [$0.0.issuerId] + $0.0.receivers.map(\.playerId) })
                data["challenges"] = found.map { challenge, role -> [String: Any] in
                    var others: [String] = []
                    for id in [challenge.issuerId] + challenge.receivers.map(\.playerId)
                    where id != record.playerId && !others.contains(id) {
                        others.append(id)
                    }
                    return [
                        "createdAt": ConsoleHTTP.time(challenge.createdAt), "kind": challenge.kind.rawValue,
                        "role": role, "others": others.map { names[$0] ?? $0 }.joined(separator: ", "),
                        "state": challenge.state?.rawValue
                            ?? (challenge.receivers.first { $0.playerId == record.playerId }?.state.rawValue ?? "-"),
                    ]
                }
            }
        }
        return ("players", data)
    }

    private func playerPage(_ player: String) -> String {
        "/console/players" + ConsoleHTTP.query([("playerId", player)])
    }

    func ban(_ fields: [String: String]) async -> (location: String, flash: String) {
        let player = fields["player"] ?? ""
        var request = BanRequest(playerId: player, reason: fields["reason"] ?? "")
        if let days = fields["days"].flatMap({ Int64($0) }), days > 0 {
            request.until = parts.clock.nowMilliseconds + days * 86_400_000
        }
        switch await admin(AuthRequests.ban, request) {
        case .success(let ban): return (playerPage(player), "banned; \(ban.revokedSessions) session(s) revoked")
        case .failure(let error): return (playerPage(player), Self.describe(error))
        }
    }

    func unban(_ fields: [String: String]) async -> (location: String, flash: String) {
        let player = fields["player"] ?? ""
        switch await admin(AuthRequests.unban, PlayerTarget(playerId: player)) {
        case .success(let receipt): return (playerPage(player), receipt.unbanned ? "unbanned" : "was not banned")
        case .failure(let error): return (playerPage(player), Self.describe(error))
        }
    }

    /// Forgets the failed logins counted against the player's account.
    func unlock(_ fields: [String: String]) async -> (location: String, flash: String) {
        let player = fields["player"] ?? ""
        switch await admin(AuthRequests.unlock, LockoutQuery(username: fields["username"])) {
        case .success(let receipt): return (playerPage(player), "unlocked: \(receipt.cleared) count(s) cleared")
        case .failure(let error): return (playerPage(player), Self.describe(error))
        }
    }

    /// Unlinks one of the player's devices.
    func unlinkDevice(_ fields: [String: String]) async -> (location: String, flash: String) {
        let player = fields["player"] ?? ""
        switch await admin(AuthRequests.unlinkDevice, DeviceTarget(deviceId: fields["device"] ?? "")) {
        case .success(let receipt):
            return (playerPage(player), receipt.playerId == nil ? "no player had that device" : "device unlinked")
        case .failure(let error): return (playerPage(player), Self.describe(error))
        }
    }

    /// Sends the player a notice (`inbox.admin.notify`): an item in their inbox, and a
    /// notification on their live connections.
    func notify(_ fields: [String: String]) async -> (location: String, flash: String) {
        let player = fields["player"] ?? ""
        let game = fields["game"] ?? ""
        let back = "/console/players" + ConsoleHTTP.query([("playerId", player), ("game", game)])
        let notice = OperatorNotice(playerId: player, message: fields["message"] ?? "")
        switch await admin(ChallengeRequests.inboxNotify, notice, game: game, player: player) {
        case .success: return (back, "notice sent to the player's inbox")
        case .failure(let error): return (back, Self.describe(error))
        }
    }

    /// Deletes the player's account; the operator must type DELETE to confirm.
    func deleteAccount(_ fields: [String: String]) async -> (location: String, flash: String) {
        let player = fields["player"] ?? ""
        guard fields["confirm"] == "DELETE" else {
            return (playerPage(player), "not deleted: type DELETE to confirm")
        }
        let reason = fields["reason"].flatMap { $0.isEmpty ? nil : $0 }
        switch await admin(
            AuthRequests.adminDeleteAccount, AccountDeletionOrder(playerId: player, reason: reason, confirm: true))
        {
        case .success(let receipt):
            return (
                "/console/players",
                "account \(receipt.playerId) deleted; \(receipt.revokedSessions) session(s) ended, "
                    + "\(receipt.unlinkedDevices) device(s) unlinked; every service erases its data"
            )
        case .failure(let error): return (playerPage(player), Self.describe(error))
        }
    }

    /// The player's export (`account.export`), as a JSON download.
    func export(player: String) async -> Result<PlayerExport, ErrorReply> {
        await admin(GatewayRequests.exportAccount, ExportRequest(playerId: player))
    }

    func revokeSession(_ fields: [String: String]) async -> (location: String, flash: String) {
        let player = fields["player"] ?? ""
        switch await admin(AuthRequests.revokeSession, SessionTarget(sessionId: fields["session"] ?? "")) {
        case .success(let receipt):
            return (
                playerPage(player), receipt.revokedSessions > 0 ? "session revoked" : "the session had already ended"
            )
        case .failure(let error): return (playerPage(player), Self.describe(error))
        }
    }
}

extension ConsoleTemplates {
    static let players = """
        <form method="get" class="filters" id="find-player">
        <label>Find a player <input name="q" id="q" value="{{q}}" placeholder="username, display name or id" autocomplete="off"></label>
        <label>Game (achievements, challenges) <input name="game" value="{{game}}" list="game-choices"></label>
        <button type="submit" id="find">Find</button>
        </form>
        {{#searched}}<div class="scroll"><table id="player-results"><thead><tr><th>name</th><th>username</th><th>player</th><th>created</th></tr></thead><tbody>
        {{#results}}<tr><td><a href="{{link}}">{{displayName}}</a></td><td>{{username}}</td><td><code>{{playerId}}</code></td><td>{{createdAt}}</td></tr>{{/results}}
        {{^results}}<tr><td colspan="4">no player matches</td></tr>{{/results}}
        </tbody></table></div>{{/searched}}
        <details><summary>Exact look-up by username, id or device</summary>
        <form method="get" class="filters">
        <label>Username <input name="username" value="{{username}}"></label>
        <label>Player id <input name="playerId" value="{{playerId}}"></label>
        <label>Device id <input name="deviceId" value="{{deviceId}}"></label>
        <label>Game (achievements, challenges) <input name="game" value="{{game}}" list="game-choices"></label>
        <button type="submit" id="search">Look up</button>
        </form></details>
        {{#error}}<p class="flash error">{{error}}</p>{{/error}}
        {{#player}}
        <section class="profile">
        <h2>{{displayName}}</h2>
        <dl>
        <dt>player</dt><dd><code id="player-id">{{playerId}}</code></dd>
        <dt>username</dt><dd>{{username}}</dd>
        <dt>created</dt><dd>{{createdAt}}</dd>
        <dt>friends</dt><dd>{{friends}}</dd>
        <dt>ban</dt><dd id="ban-state">{{#ban}}banned since {{bannedAt}} {{until}}: {{reason}}{{/ban}}{{^ban}}not banned{{/ban}}</dd>
        </dl>
        {{#game}}<h3>Scores in {{game}}</h3>
        <table id="player-scores"><thead><tr><th>board</th><th>score</th><th>rank</th><th>submitted</th></tr></thead><tbody>
        {{#scores}}<tr><td><a href="/console/leaderboards?game={{game}}&amp;board={{boardId}}">{{board}}</a></td><td>{{value}}</td><td>{{rank}}</td><td>{{at}}</td></tr>{{/scores}}
        {{^scores}}<tr><td colspan="4">none</td></tr>{{/scores}}
        </tbody></table>
        <h3>Achievements in {{game}}</h3>
        <table id="player-achievements"><thead><tr><th>achievement</th><th>progress</th><th>earned</th></tr></thead><tbody>
        {{#achievements}}<tr><td>{{title}}</td><td>{{percent}}</td><td>{{earned}}</td></tr>{{/achievements}}
        {{^achievements}}<tr><td colspan="3">none</td></tr>{{/achievements}}
        </tbody></table>
        <h3>Challenges in {{game}}</h3>
        <table id="player-challenges"><thead><tr><th>created</th><th>kind</th><th>role</th><th>with</th><th>state</th></tr></thead><tbody>
        {{#challenges}}<tr><td>{{createdAt}}</td><td>{{kind}}</td><td>{{role}}</td><td>{{others}}</td><td>{{state}}</td></tr>{{/challenges}}
        {{^challenges}}<tr><td colspan="5">none</td></tr>{{/challenges}}
        </tbody></table>{{/game}}
        <h3>Friends</h3>
        <ul id="friends">{{#friendIds}}<li><a href="/console/players?playerId={{id}}">{{name}}</a> <code>{{id}}</code></li>{{/friendIds}}{{^friendIds}}<li>none</li>{{/friendIds}}</ul>
        <h3>Devices</h3>
        <ul id="devices">{{#devices}}<li><code>{{deviceId}}</code>, linked {{linkedAt}} <form method="post" action="/console/players/unlink-device" class="inline" data-confirm="Unlink this device? Its next login makes a new account."><input type="hidden" name="csrf" value="{{csrf}}"><input type="hidden" name="player" value="{{playerId}}"><input type="hidden" name="device" value="{{deviceId}}"><button type="submit">Unlink</button></form></li>{{/devices}}{{^devices}}<li>none</li>{{/devices}}</ul>
        {{#hasLockouts}}<h3>Login lockouts</h3>{{/hasLockouts}}
        {{#lockouts}}<form method="post" action="/console/players/unlock" class="inline"><input type="hidden" name="csrf" value="{{csrf}}"><input type="hidden" name="player" value="{{playerId}}"><input type="hidden" name="username" value="{{username}}">{{limit}} from {{address}}: {{failures}} failed logins <button type="submit">Unlock</button></form>{{/lockouts}}
        <h3>Active sessions</h3>
        <table><thead><tr><th>session</th><th>since</th><th>refresh until</th><th></th></tr></thead><tbody>
        {{#sessions}}<tr><td><code>{{sessionId}}</code></td><td>{{createdAt}}</td><td>{{expiresAt}}</td><td><form method="post" action="/console/players/revoke-session" data-confirm="Revoke this session? The game on it is logged out and its WebSockets close."><input type="hidden" name="csrf" value="{{csrf}}"><input type="hidden" name="player" value="{{playerId}}"><input type="hidden" name="session" value="{{sessionId}}"><button type="submit">Revoke</button></form></td></tr>{{/sessions}}
        {{^sessions}}<tr><td colspan="4">none</td></tr>{{/sessions}}
        </tbody></table>
        {{#ban}}<form method="post" action="/console/players/unban"><input type="hidden" name="csrf" value="{{csrf}}"><input type="hidden" name="player" value="{{playerId}}"><button type="submit" id="unban">Unban</button></form>{{/ban}}
        {{^ban}}<form method="post" action="/console/players/ban" class="danger-zone" data-confirm="Ban {{displayName}}? Every session ends at once."><input type="hidden" name="csrf" value="{{csrf}}"><input type="hidden" name="player" value="{{playerId}}">
        <label>Reason <input name="reason" id="ban-reason" maxlength="500" required></label>
        <label>Days (empty: until unbanned) <input name="days" type="number" min="1" max="3650"></label>
        <button type="submit" class="danger" id="ban">Ban</button></form>{{/ban}}
        <p><a href="/console/players/export?player={{playerId}}" id="export" download>Export the player's data (JSON)</a></p>
        <h3>Send a notice</h3>
        <form method="post" action="/console/players/notify" class="filters" id="notify"><input type="hidden" name="csrf" value="{{csrf}}"><input type="hidden" name="player" value="{{playerId}}">
        <label>Game <input name="game" value="{{game}}" list="game-choices" required></label>
        <label>Message <textarea name="message" id="notice-message" required maxlength="512" rows="2"></textarea></label>
        <button type="submit" id="notify-submit">Send to the player's inbox</button></form>
        <form method="post" action="/console/players/delete" class="danger-zone" id="delete-account"><input type="hidden" name="csrf" value="{{csrf}}"><input type="hidden" name="player" value="{{playerId}}">
        <p>Deleting the account ends every session, unlinks devices and erases the player's scores, achievements, challenges, friends and inbox in every game. It cannot be undone.</p>
        <label>Reason (for the audit log) <input name="reason" id="delete-reason" maxlength="500"></label>
        <label>Type DELETE to confirm <input name="confirm" id="delete-confirm" autocomplete="off" required pattern="DELETE"></label>
        <button type="submit" class="danger" id="delete">Delete account</button></form>
        </section>
        {{/player}}
        """
}
