import Foundation
import PodiumClient
import PodiumMessages
import PodiumRuntime

/// What each console page shows and what each console form does. Everything goes through the
/// gateway's request pipeline with the admin key (``admin(_:_:game:player:)``), exactly as
/// an operator's own request would, so it is checked, limited and audited the same way; only the
/// overview's numbers and the event log are read from the console's other parts (``ConsoleParts``).
struct ConsolePages: Sendable {
    let console: GatewayConsole
    let context: HTTPFrontContext?
    var parts: ConsoleParts { console.parts }

    /// The console's typed client: requests with the admin key, handed to the gateway's
    /// pipeline in-process as if from this page's HTTP connection.
    var client: PodiumClient {
        let key = context?.connectionKey ?? ClientConnection.Key(transport: .http, id: Data("console".utf8))
        let peer = context?.peer
        let transport = InProcessTransport { [parts] request in
            await parts.pipeline.call(try WireCodec.jsonValue(request), from: key, peer: peer)
        }
        return PodiumClient(
            transport: transport, credential: .adminKey(parts.settings.adminKey ?? ""), idPrefix: "console-",
            randomIDCharacters: 36)
    }

    /// Runs one typed request as the operator: its typed reply, or the error.
    func admin<Payload, Reply>(
        _ definition: RequestDefinition<Payload, Reply>, _ payload: Payload, game: String? = nil, player: String? = nil
    ) async -> Result<Reply, ErrorReply> {
        do {
            return .success(
                try await client.call(
                    definition, payload, gameId: game.flatMap { $0.isEmpty ? nil : $0 },
                    playerId: player.flatMap { $0.isEmpty ? nil : $0 }))
        } catch let error as PodiumClientError where error.kind == .errorReply {
            return .failure(error.errorReply ?? ErrorReply(code: .internalError, message: "unreadable error"))
        } catch {
            return .failure(ErrorReply(code: .internalError, message: "unreadable reply"))
        }
    }

    /// ``admin(_:_:game:player:)`` for a request without payload.
    func admin<Reply>(_ definition: RequestDefinition<EmptyPayload, Reply>, game: String? = nil, player: String? = nil)
        async
        -> Result<Reply, ErrorReply>
    {
        await admin(definition, EmptyPayload(), game: game, player: player)
    }

    private static func describe(_ error: ErrorReply) -> String { "\(error.code.rawValue): \(error.message)" }

    // MARK: - Overview

    /// The live chart's numbers (`/console/api/overview`).
    struct OverviewNumbers: Encodable {
        var time: Int64
        var requests: Int64
        var errors: Int64
        var eventLogHead: Int64
        /// How far each service's stream follower is behind its stream's head, by `service/stream`.
        var lag: [String: Int64]
    }

    func overviewNumbers() async -> OverviewNumbers {
        let health = await parts.pipeline.systemHealth()
        var lag: [String: Int64] = [:]
        for (service, result) in health.services {
            for (stream, status) in result.health?.streams ?? [:] {
                lag["\(service)/\(stream)"] = Int64(status.head) - Int64(min(status.head, status.position))
            }
        }
        return OverviewNumbers(
            time: parts.clock.nowMilliseconds,
            requests: Int64(parts.pipeline.counts.requests.load(ordering: .relaxed)),
            errors: Int64(parts.pipeline.counts.errors.load(ordering: .relaxed)),
            eventLogHead: Int64(parts.eventLog.head), lag: lag)
    }

    func overview(session: ConsoleSessions.Session) async -> (template: String, data: [String: Any]) {
        let health = await parts.pipeline.systemHealth()
        var processes: [[String: Any]] = [
            ["name": "gateway", "ready": health.gateway.ready, "detail": "instance \(health.gateway.instance)"]
        ]
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
        let now = parts.clock.nowMilliseconds
        let sessions = parts.sessions.value.active(now: now).map { other -> [String: Any] in
            [
                "label": other.label, "peer": other.peer ?? "-", "since": ConsoleHTTP.time(other.createdAt),
                "current": other.id == session.id,
            ]
        }
        let size = parts.eventLog.store.files.reduce(0) { $0 + StorageLocation.bytesOnDisk($1) }
        return (
            "overview",
            [
                "processes": processes, "streams": streams, "sessions": sessions,
                "requests": parts.pipeline.counts.requests.load(ordering: .relaxed),
                "errors": parts.pipeline.counts.errors.load(ordering: .relaxed),
                "eventLogHead": parts.eventLog.head,
                "eventLogSize": ByteCountFormatter.string(fromByteCount: Int64(size), countStyle: .file),
            ]
        )
    }

    // MARK: - Games

    func games(_ query: [String: String]) async -> (template: String, data: [String: Any]) {
        let game = query["game"] ?? ""
        var data: [String: Any] = ["game": game]
        guard !game.isEmpty else { return ("games", data) }
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
        data["loaded"] = true
        return ("games", data)
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

    // MARK: - Leaderboards

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
        if let find = query["find"], !find.isEmpty {
            let found = await admin(
                LeaderboardRequests.entry, BoardQuery(boardId: board, scope: .string(scope)), game: game, player: find)
            switch found {
            case .success(let reply):
                if let entry = reply.entry {
                    data["found"] = "\(find) is rank \(entry.rank) with \(entry.value)"
                } else {
                    data["found"] = "\(find) has no entry on this board"
                }
            case .failure(let error): data["found"] = Self.describe(error)
            }
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
            data["total"] = page.total ?? page.entries.count
            data["scopeLabel"] =
                archive.map { "Archive \($0)" } ?? period.map { "Ended period \($0)" } ?? "Current standings (\(scope))"
            data["entries"] = page.entries.map { entry -> [String: Any] in
                [
                    "rank": entry.rank, "playerId": entry.playerId, "displayName": entry.displayName ?? "",
                    "value": entry.value,
                    "submittedAt": ConsoleHTTP.time(entry.submittedAt), "archived": archive != nil || period != nil,
                    "game": game,
                    "board": board,
                ]
            }
            if offset + page.entries.count < (page.total ?? 0) {
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

    // MARK: - Players

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
                var challenges: [[String: Any]] = []
                for (definition, role) in [
                    (ChallengeRequests.received, "received"), (ChallengeRequests.issued, "issued"),
                ] {
                    if case .success(let list) = await admin(
                        definition, ChallengeFilter(), game: game, player: record.playerId)
                    {
                        challenges += list.challenges.map {
                            [
                                "createdAt": ConsoleHTTP.time($0.createdAt), "kind": $0.kind.rawValue, "role": role,
                                "state": $0.state?.rawValue
                                    ?? ($0.receivers.first { $0.playerId == record.playerId }?.state.rawValue ?? "-"),
                            ]
                        }
                    }
                }
                data["challenges"] = challenges
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

    // MARK: - Challenges

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

    /// Players' display names by id (one request for up to 200 of them; unknown ids are left out).
    func displayNames(_ ids: [String]) async -> [String: String] {
        let unique = Array(Set(ids)).sorted().prefix(200)
        guard !unique.isEmpty,
            case .success(let found) = await admin(AuthRequests.players, ProfileLookup(playerIds: Array(unique)))
        else { return [:] }
        return Dictionary(found.players.map { ($0.playerId, $0.displayName) }) { first, _ in first }
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

    // MARK: - Event log and audit log

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
            data["entries"] = page.entries.map { entry -> [String: Any] in
                [
                    "seq": entry.seq, "at": ConsoleHTTP.time(entry.at), "actor": entry.actor,
                    "transport": entry.transport,
                    "peer": entry.peer ?? "", "type": entry.type, "gameId": entry.gameId ?? "",
                    "playerId": entry.playerId ?? "",
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
