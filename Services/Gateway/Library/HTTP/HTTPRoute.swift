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
    enum Method: String, Sendable { case get = "GET", post = "POST", delete = "DELETE" }
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
            .get("/v1/gateway/health", "gateway.health"),
            // Accounts and sessions.
            .post("/v1/accounts", "auth.register"),
            .post("/v1/sessions", "auth.login"),
            .post("/v1/sessions/device", "auth.device-login"),
            .post("/v1/sessions/refresh", "auth.refresh"),
            .delete("/v1/sessions/current", "auth.logout"),
            .get("/v1/me", "auth.profile"),
            .post("/v1/me/display-name", "auth.display-name"),
            .post("/v1/me/link", "auth.link"),
            // Friends.
            .get("/v1/friends", "auth.friends.list"),
            // Events.
            .post("\(game)/events", "event.publish"),
            // Leaderboards.
            .get("\(game)/leaderboards", "leaderboard.boards"),
            .get("\(game)/leaderboard-sets", "leaderboard.sets"),
            .post("\(board)/scores", "leaderboard.submit"),
            .get(
                "\(board)/top", "leaderboard.top",
                query: [
                    "scope": .string, "limit": .integer, "offset": .integer, "cursor": .string, "friendsOnly": .boolean,
                    "period": .integer, "archive": .integer,
                ]),
            .get("\(board)/around", "leaderboard.around", query: ["scope": .string, "radius": .integer]),
            .get("\(board)/entry", "leaderboard.entry", query: ["scope": .string]),
            .get("\(board)/history", "leaderboard.history"),
            // Achievements.
            .get("\(game)/achievements", "achievement.list"),
            .post("\(game)/achievements/reports", "achievement.report"),
            .post("\(game)/achievements/reset", "achievement.reset"),
            // Challenges.
            .post(challenges, "challenge.issue"),
            .post("\(challenges)/timed", "challenge.start"),
            .get("\(challenges)/received", "challenge.received", query: ["state": .string]),
            .get("\(challenges)/issued", "challenge.issued"),
            .get(
                "\(challenges)/candidates", "challenge.candidates",
                query: ["boardId": .string, "score": .integer, "achievementId": .string]),
            .get("\(challenges)/inbox", "challenge.inbox", query: ["unreadOnly": .boolean, "after": .integer]),
            .post("\(challenges)/inbox/read", "challenge.inbox.read"),
            .get("\(challenges)/:challengeId", "challenge.detail"),
            .post("\(challenges)/:challengeId/decline", "challenge.decline"),
            .post("\(challenges)/:challengeId/rematch", "challenge.rematch"),
            // Notifications: the topic to subscribe to on the notification endpoint.
            .get("\(game)/notifications/subscription", "notifications.subscribe"),
            // Receipts: what became of a request id.
            .get("\(game)/receipts/:id", "receipt.get", query: ["type": .string]),
            .get("\(board)/archives", "leaderboard.archives"),
            // Operators (admin key; docs/PROTOCOL.md section 22).
            .post("/v1/admin/players/:playerId/ban", "auth.admin.ban"),
            .post("/v1/admin/players/:playerId/unban", "auth.admin.unban"),
            .get("/v1/admin/players", "auth.admin.lookup", query: ["playerId": .string, "username": .string, "deviceId": .string]),
            .post("/v1/admin/sessions/:sessionId/revoke", "auth.admin.revoke-session"),
            .delete("\(adminBoard)/scores/:playerId", "leaderboard.admin.remove-score"),
            .post("\(adminBoard)/reset", "leaderboard.admin.reset"),
            .post("\(adminGame)/challenges/:challengeId/end", "challenge.admin.end"),
            .get("\(adminGame)/challenges", "challenge.admin.list", query: ["openOnly": .boolean, "limit": .integer]),
            .get("/v1/admin/audit", "admin.audit", query: ["before": .integer, "limit": .integer, "type": .string, "playerId": .string]),
        ]
        for action in ["request", "accept", "decline", "remove", "block", "unblock"] {
            routes.append(.post("/v1/friends/:playerId/\(action)", MessageType(rawValue: "auth.friends.\(action)")))
        }
        return routes
    }()
}
