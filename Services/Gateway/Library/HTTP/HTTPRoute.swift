import Foundation
import PodiumMessages

/// One route of the HTTP front: which request type a method and path stand for, and where the
/// request's parts come from. Every route is a request of the protocol (docs/PROTOCOL.md): the
/// HTTP front builds that request and runs it through the same pipeline as the ZeroMQ front.
///
/// - `:gameId` in the path is the request's `gameId`; every other path parameter becomes a
///   payload member of the same name.
/// - `query` names the query parameters copied into the payload, with their JSON type. The query
///   parameter `playerId` is the request's `playerId` on every route (a game server or the
///   operator names the player it acts for).
/// - With `body == .payload`, the JSON body (an object; empty means `{}`) is the payload, merged
///   with the path parameters. With `.request` (only `/v1/call/{type}`), the body holds the
///   request's `gameId`, `playerId`, `version` and `payload`.
struct HTTPRoute: Sendable {
    enum Method: String, Sendable {
        case get = "GET"
        case post = "POST"
        case delete = "DELETE"
    }
    enum Body: Sendable { case none, payload, request }
    enum ValueKind: Sendable { case string, integer, boolean }

    let method: Method
    let path: String
    /// The request type; nil for `/v1/call/:type`, whose type is the path's.
    let type: MessageType?
    var query: [String: ValueKind] = [:]
    var body: Body = .none
    /// Payload members every request of this route has.
    var fixed: [String: JSONValue] = [:]

    static func get(_ path: String, _ type: MessageType, query: [String: ValueKind] = [:]) -> HTTPRoute {
        HTTPRoute(method: .get, path: path, type: type, query: query)
    }

    static func post(_ path: String, _ type: MessageType, fixed: [String: JSONValue] = [:]) -> HTTPRoute {
        HTTPRoute(method: .post, path: path, type: type, body: .payload, fixed: fixed)
    }

    static func delete(_ path: String, _ type: MessageType) -> HTTPRoute {
        HTTPRoute(method: .delete, path: path, type: type, body: .payload)
    }
}

extension HTTPRoute {
    /// Every route of the HTTP front, all under `/v1`. docs/PROTOCOL.md section 20 lists them.
    static let all: [HTTPRoute] = {
        let game = "/v1/games/:gameId"
        let board = "\(game)/leaderboards/:boardId"
        let challenges = "\(game)/challenges"
        let adminGame = "/v1/admin/games/:gameId"
        let adminBoard = "\(adminGame)/leaderboards/:boardId"
        var routes: [HTTPRoute] = [
            HTTPRoute(method: .post, path: "/v1/call/:type", type: nil, body: .request),
            .get("/v1/health", "health"),
            .get("/v1/gateway/health", GatewayRequests.gatewayHealth.type),
            // Accounts and sessions.
            .post("/v1/accounts", AuthRequests.register.type),
            .post("/v1/sessions", AuthRequests.login.type),
            .post("/v1/sessions/device", AuthRequests.deviceLogin.type),
            .post("/v1/sessions/refresh", AuthRequests.refresh.type),
            .delete("/v1/sessions/current", AuthRequests.logout.type),
            .get("/v1/me", AuthRequests.profile.type),
            .post("/v1/me/display-name", AuthRequests.displayName.type),
            .post("/v1/me/link", AuthRequests.link.type),
            .post("/v1/me/delete", AuthRequests.deleteAccount.type),
            .get("/v1/me/export", GatewayRequests.exportAccount.type),
            // Friends.
            .get("/v1/friends", AuthRequests.friendList.type),
            // Invite codes (docs/PROTOCOL.md 9.5).
            .post("/v1/invites", AuthRequests.createInvite.type),
            .get("/v1/invites", AuthRequests.listInvites.type),
            .post("/v1/invites/redeem", AuthRequests.redeemInvite.type),
            .post("/v1/invites/revoke", AuthRequests.revokeInvite.type),
            // Events.
            .post("\(game)/events", GatewayRequests.publish.type),
            // Leaderboards.
            .get("\(game)/leaderboards", LeaderboardRequests.boards.type),
            .get("\(game)/leaderboard-sets", LeaderboardRequests.sets.type),
            .post("\(board)/scores", LeaderboardRequests.submit.type),
            .get(
                "\(board)/top", LeaderboardRequests.top.type,
                query: [
                    "scope": .string, "limit": .integer, "offset": .integer, "cursor": .string, "friendsOnly": .boolean,
                    "period": .integer, "archive": .integer,
                ]),
            .get("\(board)/around", LeaderboardRequests.around.type, query: ["scope": .string, "radius": .integer]),
            .get("\(board)/entry", LeaderboardRequests.entry.type, query: ["scope": .string]),
            .get("\(board)/history", LeaderboardRequests.history.type),
            // Achievements.
            .get("\(game)/achievements", AchievementRequests.list.type),
            .post("\(game)/achievements/reports", AchievementRequests.report.type),
            .post("\(game)/achievements/reset", AchievementRequests.reset.type),
            // Challenges.
            .post(challenges, ChallengeRequests.issue.type),
            .post("\(challenges)/timed", ChallengeRequests.start.type),
            .get("\(challenges)/received", ChallengeRequests.received.type, query: ["state": .string]),
            .get("\(challenges)/issued", ChallengeRequests.issued.type),
            .get(
                "\(challenges)/candidates", ChallengeRequests.candidates.type,
                query: ["boardId": .string, "score": .integer, "achievementId": .string]),
            .get(
                "\(challenges)/inbox", ChallengeRequests.inbox.type, query: ["unreadOnly": .boolean, "after": .integer]),
            .post("\(challenges)/inbox/read", ChallengeRequests.inboxRead.type),
            // The notification inbox of every kind (docs/PROTOCOL.md 14.5).
            .get(
                "\(game)/inbox/items", ChallengeRequests.inboxList.type,
                query: [
                    "after": .integer, "before": .integer, "unreadOnly": .boolean, "limit": .integer, "kinds": .string,
                ]),
            .get("\(game)/inbox/unread", ChallengeRequests.inboxUnread.type),
            .post("\(game)/inbox/read", ChallengeRequests.inboxMarkRead.type),
            .post("\(game)/inbox/delete", ChallengeRequests.inboxDelete.type),
            .get("\(challenges)/definitions", ChallengeRequests.definitions.type),
            .get("\(challenges)/:challengeId/standings", ChallengeRequests.standings.type),
            .post("\(challenges)/join", ChallengeRequests.join.type),
            .post("\(challenges)/:challengeId/invites", ChallengeRequests.invite.type),
            .get("\(challenges)/:challengeId", ChallengeRequests.detail.type),
            .post("\(challenges)/:challengeId/decline", ChallengeRequests.decline.type),
            .post("\(challenges)/:challengeId/rematch", ChallengeRequests.rematch.type),
            // Notifications: the topic to subscribe to on the notification endpoint.
            .get("\(game)/notifications/subscription", GatewayRequests.subscribe.type),
            // Receipts: what became of a request id.
            .get("\(game)/receipts/:id", GatewayRequests.receipt.type, query: ["type": .string]),
            .get("\(board)/archives", LeaderboardRequests.archives.type),
            // Operators (admin key; docs/PROTOCOL.md section 22).
            .post("/v1/admin/players/:playerId/ban", AuthRequests.ban.type),
            .post("/v1/admin/players/:playerId/unban", AuthRequests.unban.type),
            .post("/v1/admin/players/:playerId/delete", AuthRequests.adminDeleteAccount.type),
            .get("/v1/admin/players/:playerId/export", GatewayRequests.exportAccount.type),
            .get("/v1/admin/operators", GatewayRequests.listOperators.type),
            .post("/v1/admin/operators", GatewayRequests.createOperator.type),
            .post("/v1/admin/operators/:name", GatewayRequests.updateOperator.type),
            .delete("/v1/admin/operators/:name", GatewayRequests.removeOperator.type),
            .post("/v1/admin/operators/:name/totp", GatewayRequests.beginTOTP.type),
            .post("/v1/admin/operators/:name/totp/confirm", GatewayRequests.confirmTOTP.type),
            .delete("/v1/admin/operators/:name/totp", GatewayRequests.removeTOTP.type),
            .get("/v1/admin/players/search", AuthRequests.search.type, query: ["query": .string, "limit": .integer]),
            .get(
                "/v1/admin/players", AuthRequests.lookup.type,
                query: ["playerId": .string, "username": .string, "deviceId": .string]),
            .post("/v1/admin/sessions/:sessionId/revoke", AuthRequests.revokeSession.type),
            .post("/v1/admin/devices/:deviceId/unlink", AuthRequests.unlinkDevice.type),
            .get("/v1/admin/lockouts", AuthRequests.lockouts.type, query: ["username": .string, "address": .string]),
            .post("/v1/admin/lockouts/clear", AuthRequests.unlock.type),
            .get("/v1/admin/games", LeaderboardRequests.games.type),
            .delete("\(adminBoard)/scores/:playerId", LeaderboardRequests.removeScore.type),
            .post("\(adminBoard)/reset", LeaderboardRequests.reset.type),
            .post("\(adminGame)/challenges/:challengeId/end", ChallengeRequests.end.type),
            .post("\(adminGame)/challenges/definitions", ChallengeRequests.define.type),
            .post("\(adminGame)/challenges/definitions/:definitionId/remove", ChallengeRequests.remove.type),
            .post("\(adminGame)/players/:playerId/notices", ChallengeRequests.inboxNotify.type),
            .get(
                "\(adminGame)/challenges", ChallengeRequests.list.type,
                query: ["openOnly": .boolean, "limit": .integer]),
            .get(
                "/v1/admin/audit", GatewayRequests.audit.type,
                query: ["before": .integer, "limit": .integer, "type": .string, "playerId": .string]),
        ]
        for action in ["request", "accept", "decline", "remove", "block", "unblock"] {
            routes.append(.post("/v1/friends/:playerId/\(action)", MessageType(rawValue: "auth.friends.\(action)")))
            // The same from a game: a request or accept it makes goes to that game's inbox (PROTOCOL.md 14.5).
            routes.append(
                .post("/v1/games/:gameId/friends/:playerId/\(action)", MessageType(rawValue: "auth.friends.\(action)")))
        }
        routes.append(.post("/v1/games/:gameId/invites/redeem", AuthRequests.redeemInvite.type))
        return routes
    }()
}
