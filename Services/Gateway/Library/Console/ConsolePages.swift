import Foundation
import PodiumMessages
import PodiumRuntime

/// What each console page shows and what each console form does. Everything goes through the
/// gateway's request pipeline with the admin key (``admin(_:game:player:payload:)``), exactly as
/// an operator's own request would, so it is checked, limited and audited the same way; only the
/// overview's numbers and the event log are read from the gateway itself.
struct ConsolePages: Sendable {
    let console: GatewayConsole
    let context: HTTPFrontContext?
    var gateway: Gateway { console.gateway }

    /// Runs one request as the operator; the reply's payload, or the error's message.
    func admin(_ type: MessageType, game: String? = nil, player: String? = nil, payload: [String: JSONValue] = [:]) async
        -> Result<RawEnvelope, ErrorReply>
    {
        var request: [String: JSONValue] = [
            "type": .string(type.rawValue), "id": .string("console-" + UUID().uuidString.lowercased()), "payload": .object(payload),
            "adminKey": .string(gateway.settings.adminKey ?? ""),
        ]
        if let game, !game.isEmpty { request["gameId"] = .string(game) }
        if let player, !player.isEmpty { request["playerId"] = .string(player) }
        let key = context?.connectionKey ?? ClientConnection.Key(transport: .http, id: Data("console".utf8))
        let reply = await gateway.call(.object(request), from: key, peer: context?.peer)
        if reply.type == .error {
            return .failure(
                (try? reply.decodePayload(as: ErrorReply.self)) ?? ErrorReply(code: .internalError, message: "unreadable error"))
        }
        return .success(reply)
    }

    private func decode<Value: Decodable>(_ result: Result<RawEnvelope, ErrorReply>, as type: Value.Type) -> Result<Value, ErrorReply> {
        result.flatMap { envelope in
            (try? envelope.decodePayload(as: type)).map { .success($0) }
                ?? .failure(ErrorReply(code: .internalError, message: "unreadable reply"))
        }
    }

    private static func describe(_ error: ErrorReply) -> String { "\(error.code.rawValue): \(error.message)" }

    // MARK: - Overview

    func overviewNumbers() async -> JSONValue {
        let health = await gateway.systemHealth()
        var lag: [String: JSONValue] = [:]
        for (service, result) in health.services {
            for (stream, status) in result.health?.streams ?? [:] {
                lag["\(service)/\(stream)"] = .integer(Int64(status.head) - Int64(min(status.head, status.position)))
            }
        }
        return .object([
            "time": .integer(gateway.clock.nowMilliseconds),
            "requests": .integer(Int64(gateway.consoleCounts.requests.load(ordering: .relaxed))),
            "errors": .integer(Int64(gateway.consoleCounts.errors.load(ordering: .relaxed))),
            "eventLogHead": .integer(Int64(gateway.eventLog.head)), "lag": .object(lag),
        ])
    }

    func overview(session: ConsoleSessions.Session) async -> (template: String, data: [String: Any]) {
        let health = await gateway.systemHealth()
        var processes: [[String: Any]] = [["name": "gateway", "ready": health.gateway.ready, "detail": "instance \(health.gateway.instance)"]]
        var streams: [[String: Any]] = []
        for service in health.services.keys.sorted() {
            let result = health.services[service]!
            processes.append([
                "name": service, "ready": result.ready,
                "detail": result.health.map { "\($0.eventsReceived) bus messages, \($0.gapsDetected) gaps" }
                    ?? result.error.map(Self.describe) ?? "",
            ])
            for (stream, status) in (result.health?.streams ?? [:]).sorted(by: { $0.key < $1.key }) {
                streams.append([
                    "service": service, "stream": stream, "position": status.position, "head": status.head,
                    "lag": status.head - min(status.head, status.position),
                ])
            }
        }
        let now = gateway.clock.nowMilliseconds
        let sessions = gateway.consoleSessions.value.active(now: now).map { other -> [String: Any] in
            ["label": other.label, "peer": other.peer ?? "-", "since": ConsoleHTTP.time(other.createdAt), "current": other.id == session.id]
        }
        let size = gateway.eventLog.store.files.reduce(0) { $0 + StorageLocation.bytesOnDisk($1) }
        return ("overview", [
            "processes": processes, "streams": streams, "sessions": sessions,
            "requests": gateway.consoleCounts.requests.load(ordering: .relaxed),
            "errors": gateway.consoleCounts.errors.load(ordering: .relaxed),
            "eventLogHead": gateway.eventLog.head, "eventLogSize": ByteCountFormatter.string(fromByteCount: Int64(size), countStyle: .file),
        ])
    }

    // MARK: - Games

    func games(_ query: [String: String]) async -> (template: String, data: [String: Any]) {
        let game = query["game"] ?? ""
        var data: [String: Any] = ["game": game]
        guard !game.isEmpty else { return ("games", data) }
        switch await admin(LeaderboardRequests.boards.type, game: game) {
        case .failure(let error):
            data["error"] = Self.describe(error)
            return ("games", data)
        case .success(let envelope):
            let boards = (try? envelope.decodePayload(as: [String: [LeaderboardDefinition]].self))?["leaderboards"] ?? []
            data["boards"] = boards.map { board -> [String: Any] in
                [
                    "id": board.id, "title": board.title, "game": game,
                    "order": board.sortOrder == .higherIsBetter ? "higher is better" : "lower is better",
                    "recurring": board.recurrence.map { "every \($0.durationMilliseconds / 60_000) min from \(ConsoleHTTP.time($0.startsAt))" } ?? "no",
                ]
            }
        }
        // Rarity is the share of the game's players who earned each achievement; the list is
        // asked for a player id that has no progress, so it holds only the catalogue.
        if case .success(let list) = decode(
            await admin(AchievementRequests.list.type, game: game, player: "console-catalogue"), as: AchievementList.self)
        {
            data["achievements"] = list.achievements.map { status -> [String: Any] in
                let percent = status.percentOfPlayersEarned ?? 0
                return [
                    "id": status.id, "title": status.title ?? "(hidden)", "points": status.points.map(String.init) ?? "-",
                    "hidden": status.title == nil ? "yes" : "no", "percent": percent,
                    "percentText": String(format: "%.1f %%", percent),
                ]
            }
        }
        data["loaded"] = true
        return ("games", data)
    }

    // MARK: - Leaderboards

    func leaderboards(_ query: [String: String]) async -> (template: String, data: [String: Any]) {
        let game = query["game"] ?? "", board = query["board"] ?? ""
        let scope = query["scope"].flatMap { $0.isEmpty ? nil : $0 } ?? "allTime"
        let archive = query["archive"].flatMap { Int64($0) }
        let period = query["period"].flatMap { Int64($0) }
        let offset = max(0, query["offset"].flatMap { Int($0) } ?? 0)
        var data: [String: Any] = [
            "game": game, "board": board, "offset": offset, "find": query["find"] ?? "", "period": period.map(String.init) ?? "",
            "scopes": ["allTime", "week", "today"].map { ["value": $0, "selected": $0 == scope] as [String: Any] },
        ]
        guard !game.isEmpty, !board.isEmpty else { return ("leaderboards", data) }
        if case .success(let list) = decode(
            await admin(LeaderboardRequests.archives.type, game: game, payload: ["boardId": .string(board)]), as: LeaderboardArchiveList.self)
        {
            data["archives"] = list.archives.map { item -> [String: Any] in
                ["archive": item.archive, "entries": item.entries, "resetAt": ConsoleHTTP.time(item.resetAt), "selected": item.archive == archive]
            }
        }
        if let find = query["find"], !find.isEmpty {
            let found = await admin(LeaderboardRequests.entry.type, game: game, player: find, payload: ["boardId": .string(board), "scope": .string(scope)])
            switch found {
            case .success(let envelope):
                if let entry = try? envelope.decodePayload(as: [String: LeaderboardEntry?].self)["entry"] ?? nil {
                    data["found"] = "\(find) is rank \(entry.rank) with \(entry.value)"
                } else {
                    data["found"] = "\(find) has no entry on this board"
                }
            case .failure(let error): data["found"] = Self.describe(error)
            }
        }
        var payload: [String: JSONValue] = ["boardId": .string(board), "limit": 50, "offset": .integer(Int64(offset))]
        if let archive {
            payload["archive"] = .integer(archive)
        } else if let period {
            payload["period"] = .integer(period)
        } else {
            payload["scope"] = .string(scope)
        }
        switch decode(await admin(LeaderboardRequests.top.type, game: game, payload: payload), as: LeaderboardPage.self) {
        case .failure(let error):
            data["error"] = Self.describe(error)
        case .success(let page):
            data["loaded"] = true
            data["total"] = page.total ?? page.entries.count
            data["scopeLabel"] = archive.map { "Archive \($0)" } ?? period.map { "Ended period \($0)" } ?? "Current standings (\(scope))"
            data["entries"] = page.entries.map { entry -> [String: Any] in
                [
                    "rank": entry.rank, "playerId": entry.playerId, "displayName": entry.displayName ?? "", "value": entry.value,
                    "submittedAt": ConsoleHTTP.time(entry.submittedAt), "archived": archive != nil || period != nil, "game": game,
                    "board": board,
                ]
            }
            if offset + page.entries.count < (page.total ?? 0) {
                data["next"] = "/console/leaderboards" + ConsoleHTTP.query([
                    ("game", game), ("board", board), ("scope", scope), ("archive", archive.map(String.init)), ("period", period.map(String.init)),
                    ("offset", String(offset + 50)),
                ])
            }
        }
        return ("leaderboards", data)
    }

    func removeScore(_ fields: [String: String]) async -> (location: String, flash: String) {
        let game = fields["game"] ?? "", board = fields["board"] ?? "", player = fields["player"] ?? ""
        let back = "/console/leaderboards" + ConsoleHTTP.query([("game", game), ("board", board)])
        switch decode(
            await admin(LeaderboardRequests.removeScore.type, game: game, payload: ["boardId": .string(board), "playerId": .string(player)]),
            as: ScoreRemovalReceipt.self)
        {
        case .success(let receipt): return (back, receipt.removed ? "removed the score of \(player)" : "\(player) had no score")
        case .failure(let error): return (back, Self.describe(error))
        }
    }

    func reset(_ fields: [String: String]) async -> (location: String, flash: String) {
        let game = fields["game"] ?? "", board = fields["board"] ?? ""
        let back = "/console/leaderboards" + ConsoleHTTP.query([("game", game), ("board", board)])
        guard fields["confirm"] == "yes" else { return (back, "tick the box to confirm the reset") }
        switch decode(await admin(LeaderboardRequests.reset.type, game: game, payload: ["boardId": .string(board)]), as: LeaderboardArchive.self) {
        case .success(let archive):
            return (back + "&archive=\(archive.archive)", "reset: \(archive.entries) entries are archive \(archive.archive)")
        case .failure(let error): return (back, Self.describe(error))
        }
    }

    // MARK: - Players

    func players(_ query: [String: String]) async -> (template: String, data: [String: Any]) {
        let game = query["game"] ?? ""
        var data: [String: Any] = [
            "username": query["username"] ?? "", "playerId": query["playerId"] ?? "", "deviceId": query["deviceId"] ?? "",
        ]
        if !game.isEmpty { data["game"] = game }
        var lookup: [String: JSONValue] = [:]
        for name in ["username", "playerId", "deviceId"] {
            if let value = query[name], !value.isEmpty { lookup[name] = .string(value) }
        }
        guard !lookup.isEmpty else { return ("players", data) }
        switch decode(await admin(AuthRequests.lookup.type, payload: lookup), as: PlayerRecord.self) {
        case .failure(let error):
            data["error"] = Self.describe(error)
        case .success(let record):
            var player: [String: Any] = [
                "playerId": record.playerId, "displayName": record.displayName, "username": record.username ?? "-",
                "createdAt": ConsoleHTTP.time(record.createdAt), "friends": record.friends,
                "friendIds": record.friendIds.map { ["id": $0] },
                "devices": record.devices.map { ["deviceId": $0.deviceId, "linkedAt": ConsoleHTTP.time($0.linkedAt)] },
                "sessions": record.sessions.map {
                    ["sessionId": $0.sessionId, "createdAt": ConsoleHTTP.time($0.createdAt), "expiresAt": ConsoleHTTP.time($0.expiresAt),
                     "playerId": record.playerId]
                },
            ]
            if let ban = record.ban {
                player["ban"] = [
                    "reason": ban.reason, "bannedAt": ConsoleHTTP.time(ban.bannedAt),
                    "until": ban.until.map { "until \(ConsoleHTTP.time($0))" } ?? "until unbanned",
                ]
            }
            data["player"] = player
            if !game.isEmpty {
                if case .success(let list) = decode(await admin(AchievementRequests.list.type, game: game, player: record.playerId), as: AchievementList.self) {
                    data["achievements"] = list.achievements.map { status -> [String: Any] in
                        [
                            "title": status.title ?? status.id, "percent": status.percentComplete.map { String(format: "%.0f %%", $0) } ?? "-",
                            "earned": status.earned ? (status.earnedAt.map(ConsoleHTTP.time) ?? "yes") : "-",
                        ]
                    }
                }
                var challenges: [[String: Any]] = []
                for (type, role) in [(ChallengeRequests.received.type, "received"), (ChallengeRequests.issued.type, "issued")] {
                    if case .success(let envelope) = await admin(type, game: game, player: record.playerId),
                        let list = try? envelope.decodePayload(as: [String: [ChallengeDetail]].self)["challenges"]
                    {
                        challenges += list.map { ["createdAt": ConsoleHTTP.time($0.createdAt), "kind": $0.kind.rawValue, "role": role, "state": $0.state?.rawValue ?? ($0.receivers.first { $0.playerId == record.playerId }?.state.rawValue ?? "-")] }
                    }
                }
                data["challenges"] = challenges
            }
        }
        return ("players", data)
    }

    private func playerPage(_ player: String) -> String { "/console/players" + ConsoleHTTP.query([("playerId", player)]) }

    func ban(_ fields: [String: String]) async -> (location: String, flash: String) {
        let player = fields["player"] ?? ""
        var payload: [String: JSONValue] = ["playerId": .string(player), "reason": .string(fields["reason"] ?? "")]
        if let days = fields["days"].flatMap({ Int64($0) }), days > 0 {
            payload["until"] = .integer(gateway.clock.nowMilliseconds + days * 86_400_000)
        }
        switch decode(await admin(AuthRequests.ban.type, payload: payload), as: PlayerBan.self) {
        case .success(let ban): return (playerPage(player), "banned; \(ban.revokedSessions) session(s) revoked")
        case .failure(let error): return (playerPage(player), Self.describe(error))
        }
    }

    func unban(_ fields: [String: String]) async -> (location: String, flash: String) {
        let player = fields["player"] ?? ""
        switch decode(await admin(AuthRequests.unban.type, payload: ["playerId": .string(player)]), as: UnbanReceipt.self) {
        case .success(let receipt): return (playerPage(player), receipt.unbanned ? "unbanned" : "was not banned")
        case .failure(let error): return (playerPage(player), Self.describe(error))
        }
    }

    func revokeSession(_ fields: [String: String]) async -> (location: String, flash: String) {
        let player = fields["player"] ?? ""
        switch decode(
            await admin(AuthRequests.revokeSession.type, payload: ["sessionId": .string(fields["session"] ?? "")]), as: RevocationReceipt.self)
        {
        case .success(let receipt): return (playerPage(player), receipt.revokedSessions > 0 ? "session revoked" : "the session had already ended")
        case .failure(let error): return (playerPage(player), Self.describe(error))
        }
    }

    // MARK: - Challenges

    func challenges(_ query: [String: String]) async -> (template: String, data: [String: Any]) {
        let openOnly = query["open"] == "1"
        var data: [String: Any] = ["game": query["game"] ?? "", "openOnly": openOnly]
        if let game = query["game"], !game.isEmpty {
            switch await admin(ChallengeRequests.list.type, game: game, payload: ["openOnly": .bool(openOnly), "limit": 100]) {
            case .failure(let error): data["error"] = Self.describe(error)
            case .success(let envelope):
                let list = (try? envelope.decodePayload(as: [String: [ChallengeDetail]].self))?["challenges"] ?? []
                let now = gateway.clock.nowMilliseconds
                data["listed"] = true
                data["list"] = list.map { challenge -> [String: Any] in
                    [
                        "challengeId": challenge.challengeId, "createdAt": ConsoleHTTP.time(challenge.createdAt), "kind": challenge.kind.rawValue,
                        "issuerId": challenge.issuerId, "target": challenge.boardId ?? challenge.achievementId ?? "-",
                        "state": challenge.state?.rawValue
                            ?? challenge.receivers.map { "\($0.state.rawValue)" }.joined(separator: ", "),
                        "endsAt": ConsoleHTTP.time(challenge.endsAt ?? challenge.expiresAt),
                        "endable": challenge.kind == .timed && challenge.state == .running && (challenge.endsAt ?? 0) > now,
                        "game": game,
                    ]
                }
            }
        }
        if let id = query["ended"], !id.isEmpty, let game = query["game"] {
            // Shown after an end: the challenge as the end left it (its detail, read as the issuer).
            if case .success(let list) = decode(
                await admin(ChallengeRequests.detail.type, game: game, player: query["issuer"], payload: ["challengeId": .string(id)]),
                as: ChallengeDetail.self)
            {
                data["ended"] = [
                    "challengeId": list.challengeId, "boardId": list.boardId ?? "-", "endsAt": ConsoleHTTP.time(list.endsAt),
                    "participants": list.receivers.map(\.playerId).joined(separator: ", "),
                ]
            }
        }
        if case .success(let page) = decode(await admin(GatewayRequests.audit.type, payload: ["type": .string(ChallengeRequests.end.type.rawValue), "limit": 20]), as: AuditPage.self) {
            data["recent"] = page.entries.map { ["at": ConsoleHTTP.time($0.at), "type": "\($0.type) (\($0.outcome))", "gameId": $0.gameId ?? "-", "playerId": $0.payload["challengeId"]?.stringValue ?? "-"] }
        }
        return ("challenges", data)
    }

    func endChallenge(_ fields: [String: String]) async -> (location: String, flash: String) {
        let game = fields["game"] ?? "", id = fields["challenge"] ?? ""
        switch decode(await admin(ChallengeRequests.end.type, game: game, payload: ["challengeId": .string(id)]), as: ChallengeDetail.self) {
        case .success(let detail):
            return (
                "/console/challenges" + ConsoleHTTP.query([("game", game), ("ended", id), ("issuer", detail.issuerId)]),
                "ended at \(ConsoleHTTP.time(detail.endsAt)); the participants get the standings")
        case .failure(let error): return ("/console/challenges" + ConsoleHTTP.query([("game", game)]), Self.describe(error))
        }
    }

    // MARK: - Event log and audit log

    static let eventWindow = 1000

    func events(_ query: [String: String]) async -> (template: String, data: [String: Any]) {
        let game = query["game"] ?? "", player = query["player"] ?? "", name = query["name"] ?? ""
        let head = gateway.eventLog.head
        var rows: [[String: Any]] = []
        if let page = try? await gateway.eventLog.page(after: head > UInt64(Self.eventWindow) ? head - UInt64(Self.eventWindow) : 0, limit: Self.eventWindow) {
            for message in page.messages.reversed() {
                let envelope = message.envelope
                let event = try? envelope.decodePayload(as: GameEvent.self)
                if !game.isEmpty && envelope.gameId != game { continue }
                if !player.isEmpty && envelope.playerId != player { continue }
                if !name.isEmpty && event?.name != name { continue }
                rows.append([
                    "seq": envelope.sequence ?? 0, "at": ConsoleHTTP.time(envelope.timestamp), "gameId": envelope.gameId ?? "-",
                    "playerId": envelope.playerId ?? "-", "name": event?.name ?? envelope.type.rawValue,
                    "value": event?.value.map(String.init) ?? "",
                ])
                if rows.count == 50 { break }
            }
        }
        return ("events", ["game": game, "player": player, "name": name, "head": head, "window": Self.eventWindow, "rows": rows])
    }

    func audit(_ query: [String: String]) async -> (template: String, data: [String: Any]) {
        let type = query["type"] ?? "", player = query["player"] ?? ""
        var payload: [String: JSONValue] = ["limit": 50]
        if !type.isEmpty { payload["type"] = .string(type) }
        if !player.isEmpty { payload["playerId"] = .string(player) }
        if let before = query["before"].flatMap({ Int64($0) }) { payload["before"] = .integer(before) }
        var data: [String: Any] = ["type": type, "player": player]
        switch decode(await admin(GatewayRequests.audit.type, payload: payload), as: AuditPage.self) {
        case .failure(let error): data["error"] = Self.describe(error)
        case .success(let page):
            data["entries"] = page.entries.map { entry -> [String: Any] in
                [
                    "seq": entry.seq, "at": ConsoleHTTP.time(entry.at), "actor": entry.actor, "transport": entry.transport,
                    "peer": entry.peer ?? "", "type": entry.type, "gameId": entry.gameId ?? "", "playerId": entry.playerId ?? "",
                    "outcome": entry.outcome, "outcomeClass": entry.outcome == "ok" ? "ok" : "error",
                    "payload": String(decoding: (try? JSONWriter.data(entry.payload)) ?? Data(), as: UTF8.self),
                ]
            }
            data["next"] = page.next.map { "/console/audit" + ConsoleHTTP.query([("type", type), ("player", player), ("before", String($0))]) }
        }
        return ("audit", data)
    }
}
