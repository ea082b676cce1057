import Foundation
import HTTPTypes
import Hummingbird
import Logging
import Mustache
import NIOCore
import PodiumMessages
import PodiumRuntime

/// The operators' web console at `/console` on the HTTP front (docs/OPERATIONS.md section 5):
/// pages rendered on the server from Mustache templates, a little script for the live chart.
///
/// Operators log in with an operator account (name, password, and a TOTP code once set up) or
/// with the admin key; the console then holds a session cookie (HttpOnly, SameSite=Strict, Secure
/// behind TLS). Every change is a form POST that must carry the session's CSRF token and come
/// from the console's own origin. Everything it reads or changes goes through the gateway's
/// request pipeline with the admin key, as the session's operator (``ConsoleOperator``), so the
/// usual rules, limits, the operator's role and the audit log apply to it as to any operator
/// request.
struct GatewayConsole: Sendable {
    let parts: ConsoleParts
    let library: MustacheLibrary
    let logger: Logger

    init(parts: ConsoleParts, logger: Logger) throws {
        self.parts = parts
        var library = MustacheLibrary()
        for (name, template) in ConsoleTemplates.all { try library.register(template, named: name) }
        self.library = library
        var logger = logger
        logger[metadataKey: "front"] = "console"
        self.logger = logger
    }

    static let pages: [(path: String, label: String)] = [
        ("/console/overview", "Overview"), ("/console/games", "Games"), ("/console/leaderboards", "Leaderboards"),
        ("/console/players", "Players"), ("/console/challenges", "Challenges"), ("/console/events", "Event log"),
        ("/console/audit", "Audit log"), ("/console/operators", "Operators"),
    ]

    func register(on router: Router<HTTPFrontContext>) {
        router.get("/console") { _, _ in ConsoleHTTP.redirect("/console/overview") }
        router.get("/console/static/console.css") { _, _ in
            ConsoleHTTP.asset(ConsoleAssets.css, contentType: "text/css; charset=utf-8")
        }
        router.get("/console/static/console.js") { _, _ in
            ConsoleHTTP.asset(ConsoleAssets.javascript, contentType: "text/javascript; charset=utf-8")
        }
        router.get("/console/login") { _, _ in login(error: nil) }
        router.post("/console/login") { request, context in try await logIn(request, context: context) }
        router.post("/console/logout") { request, context in
            try await form(request, context: context) { session, _ in
                _ = parts.sessions.withLock { $0.revoke(session.id) }
                return ConsoleHTTP.redirect("/console/login", cookie: ConsoleHTTP.clearedCookie(request: request))
            }
        }
        router.get("/console/api/overview") { request, _ in
            guard await session(request) != nil else { return ConsoleHTTP.html("log in first", status: .unauthorized) }
            return ConsoleHTTP.json(
                try WireCodec.encode(await ConsolePages(console: self, context: nil).overviewNumbers()))
        }
        let pages = ConsolePages.self
        page("/console/overview", title: "Overview", on: router) { pages, _, session in
            await pages.overview(session: session)
        }
        page("/console/games", title: "Games", on: router) { pages, query, _ in await pages.games(query) }
        page("/console/leaderboards", title: "Leaderboards", on: router) { pages, query, _ in
            await pages.leaderboards(query)
        }
        page("/console/players", title: "Players", on: router) { pages, query, _ in await pages.players(query) }
        page("/console/challenges", title: "Challenges", on: router) { pages, query, _ in await pages.challenges(query)
        }
        page("/console/events", title: "Event log", on: router) { pages, query, _ in await pages.events(query) }
        page("/console/audit", title: "Audit log", on: router) { pages, query, _ in await pages.audit(query) }
        page("/console/operators", title: "Operators", on: router) { pages, _, session in
            await pages.operators(session: session)
        }
        action("/console/operators/create", on: router) { pages, fields in await pages.createOperator(fields) }
        action("/console/operators/role", on: router) { pages, fields in await pages.changeRole(fields) }
        action("/console/operators/remove", on: router) { pages, fields in await pages.removeOperator(fields) }
        action("/console/operators/reset-totp", on: router) { pages, fields in await pages.resetTOTP(fields) }
        ownAccountChange("/console/operators/totp-confirm", on: router) { session, fields, context in
            await ConsoleOperator.$current.withValue(session.operatorAccount) {
                await ConsolePages(console: self, context: context).confirmTOTP(fields)
            }
        }
        ownAccountChange("/console/operators/password", on: router) { session, fields, context in
            await changeOwnPassword(session: session, fields: fields, peer: context.peer)
        }
        router.post("/console/operators/totp-begin") { request, context in
            // Rendered at once, not redirected: the secret is shown once and never put in a URL.
            try await form(request, context: context) { session, fields in
                let pages = ConsolePages(console: self, context: context)
                var (template, data) = await ConsoleOperator.$current.withValue(session.operatorAccount) {
                    await pages.operators(session: session)
                }
                // The password is asked again: a stolen session cookie alone sets up no second factor.
                if let refusal = await checkOwnPassword(session: session, fields: fields, peer: context.peer) {
                    data["error"] = refusal
                } else if let person = session.operatorAccount {
                    let begun = await ConsoleOperator.$current.withValue(person) {
                        await pages.admin(GatewayRequests.beginTOTP, OperatorTarget(name: person.name))
                    }
                    switch begun {
                    case .success(let enrollment):
                        data["enrollment"] = ["secret": enrollment.secret, "uri": enrollment.uri]
                    case .failure(let error): data["error"] = ConsolePages.describe(error)
                    }
                }
                return await render(
                    template, data, title: "Operators", path: "/console/operators", session: session, pages: pages)
            }
        }
        _ = pages
        action("/console/players/ban", on: router) { pages, fields in await pages.ban(fields) }
        action("/console/players/unban", on: router) { pages, fields in await pages.unban(fields) }
        action("/console/players/revoke-session", on: router) { pages, fields in await pages.revokeSession(fields) }
        action("/console/players/delete", on: router) { pages, fields in await pages.deleteAccount(fields) }
        action("/console/players/unlock", on: router) { pages, fields in await pages.unlock(fields) }
        action("/console/players/unlink-device", on: router) { pages, fields in await pages.unlinkDevice(fields) }
        router.get("/console/players/export") { request, _ in
            guard let session = await session(request) else {
                return ConsoleHTTP.html("log in first", status: .unauthorized)
            }
            let player = ConsoleHTTP.query(of: request)["player"] ?? ""
            let result = await ConsoleOperator.$current.withValue(session.operatorAccount) {
                await ConsolePages(console: self, context: nil).export(player: player)
            }
            switch result {
            case .success(let document):
                var response = ConsoleHTTP.json(try WireCodec.encode(document))
                let name = "podium-export-\(document.playerId).json"
                response.headers[.contentDisposition] = "attachment; filename=\"\(name)\""
                return response
            case .failure(let error):
                return ConsoleHTTP.html("\(error.code.rawValue): \(error.message)", status: .notFound)
            }
        }
        action("/console/games/define-board", on: router) { pages, fields in await pages.defineBoard(fields) }
        action("/console/games/define-achievement", on: router) { pages, fields in
            await pages.defineAchievement(fields)
        }
        action("/console/games/define-challenge", on: router) { pages, fields in await pages.defineChallenge(fields) }
        action("/console/games/remove-challenge", on: router) { pages, fields in await pages.removeChallenge(fields) }
        action("/console/players/notify", on: router) { pages, fields in await pages.notify(fields) }
        action("/console/leaderboards/remove-score", on: router) { pages, fields in await pages.removeScore(fields) }
        action("/console/leaderboards/reset", on: router) { pages, fields in await pages.reset(fields) }
        action("/console/challenges/end", on: router) { pages, fields in await pages.endChallenge(fields) }
        router.post("/console/sessions/revoke") { request, context in
            try await form(request, context: context) { session, fields in
                // Ending another operator's session is an administrator's (or the admin key's).
                if let person = session.operatorAccount, person.role != .administrator {
                    parts.sessions.withLock {
                        $0.leave(notice: "forbidden: only an administrator ends console sessions", for: session.id)
                    }
                    return ConsoleHTTP.redirect("/console/overview")
                }
                let target = fields["session"] ?? ""
                let ended = parts.sessions.withLock { $0.active(now: parts.clock.nowMilliseconds) }
                    .first { $0.id == target || $0.label == target }
                if let ended {
                    let record = ConsoleLoginRecord(session: ended.label, operator: ended.operatorAccount?.name)
                    let entry = AuditEntry(
                        seq: 0, at: parts.clock.nowMilliseconds,
                        actor: session.operatorAccount?.actor ?? "console:\(session.label)", transport: "http",
                        peer: context.peer, type: "console.session-revoke", gameId: nil, playerId: nil,
                        payload: (try? WireCodec.jsonValue(record)) ?? .null, requestId: nil, outcome: "ok")
                    try? await parts.pipeline.audit.append(entry)
                }
                let notice = parts.sessions.withLock {
                    let revoked = $0.revoke(fields["session"] ?? "")
                    let notice = revoked ? "console session revoked" : "no such console session"
                    $0.leave(notice: notice, for: session.id)
                    return notice
                }
                logger.notice(
                    "console session revoke",
                    metadata: ["console.session": "\(fields["session"] ?? "-")", "result": "\(notice)"])
                return ConsoleHTTP.redirect("/console/overview")
            }
        }
    }

    // MARK: - Sessions

    /// The live console session of the request, if any. A session of an operator account whose
    /// role, password or second factor changed since its login (or that was removed) ends here.
    func session(_ request: Request) async -> ConsoleSessions.Session? {
        guard let id = ConsoleHTTP.sessionID(request) else { return nil }
        let now = parts.clock.nowMilliseconds
        guard let session = parts.sessions.withLock({ $0.touch(id, now: now) }) else { return nil }
        if let person = session.operatorAccount, !(await parts.pipeline.operators.isCurrent(person)) {
            _ = parts.sessions.withLock { $0.revoke(id) }
            logger.notice(
                "console session ended: its operator account changed",
                metadata: ["console.session": "\(session.label)", "operator": "\(person.name)"])
            return nil
        }
        return session
    }

    /// A form POST by which operators change their own account: when `change` changed it, the
    /// session goes on renewed (``renewed(_:request:notice:)``); else it stays, with the notice.
    private func ownAccountChange(
        _ path: String, on router: Router<HTTPFrontContext>,
        change:
            @escaping @Sendable (ConsoleSessions.Session, [String: String], HTTPFrontContext) async -> (
                changed: Bool, notice: String
            )
    ) {
        router.post(RouterPath(path)) { request, context in
            try await form(request, context: context) { session, fields in
                let result = await change(session, fields, context)
                guard result.changed else {
                    parts.sessions.withLock { $0.leave(notice: result.notice, for: session.id) }
                    return ConsoleHTTP.redirect("/console/operators")
                }
                return await renewed(session, request: request, notice: result.notice)
            }
        }
    }

    /// After operators changed their own password or second factor: every session of the old
    /// account has ended (``session(_:)`` compares the account's stamp), and the one that made the
    /// change, having just proved the password (and the code), goes on in a new session of the
    /// account as it is now, with the notice.
    private func renewed(_ old: ConsoleSessions.Session, request: Request, notice: String) async -> Response {
        _ = parts.sessions.withLock { $0.revoke(old.id) }
        guard let name = old.operatorAccount?.name, let person = await parts.pipeline.operators.current(name) else {
            return ConsoleHTTP.redirect("/console/login", cookie: ConsoleHTTP.clearedCookie(request: request))
        }
        let session = parts.sessions.withLock {
            let session = $0.create(now: parts.clock.nowMilliseconds, peer: old.peer, operator: person)
            $0.leave(notice: notice, for: session.id)
            return session
        }
        logger.notice(
            "console session renewed after an account change",
            metadata: ["console.session": "\(session.label)", "operator": "\(name)"])
        return ConsoleHTTP.redirect(
            "/console/operators", cookie: ConsoleHTTP.sessionCookie(session.id, request: request))
    }

    private func login(error: String?, status: HTTPResponse.Status = .ok) -> Response {
        ConsoleHTTP.html(
            library.render(error.map { ["error": $0] } ?? [String: String](), withTemplate: "login") ?? "",
            status: status)
    }

    private func logIn(_ request: Request, context: HTTPFrontContext) async throws -> Response {
        guard ConsoleHTTP.isSameOrigin(request) else {
            return refused("a login from another site", request: request, peer: context.peer)
        }
        var request = request
        let fields = ConsoleHTTP.form(try await request.body.collect(upTo: 16 * 1024))
        guard parts.settings.adminKey != nil else {
            return login(
                error: "This gateway has no admin key (PODIUM_ADMIN_KEY): the console is off.", status: .forbidden)
        }
        let address = context.peer ?? "-"
        let now = parts.clock.nowMilliseconds
        // Slowed like a player's login (SECURITY.md 3.4): past a limit the key is not even checked.
        if let wait = parts.loginThrottle.withLock({ $0.retryAfter(address: address, now: now) }) {
            logger.warning(
                "console login refused: too many failed logins",
                metadata: ["peer": "\(address)", "retry_after_ms": "\(wait)"])
            await auditLogin(key: nil, peer: context.peer, outcome: ErrorCode.rateLimited.rawValue, at: now)
            let seconds = (wait + 999) / 1000
            var response = login(
                error: "Too many failed logins from this address: try again in \(seconds) s.", status: .tooManyRequests)
            response.headers[.retryAfter] = String(seconds)
            return response
        }
        if let name = fields["operator"], !name.isEmpty {
            return try await logIn(operator: name, fields: fields, request: request, context: context)
        }
        guard let key = fields["key"], parts.pipeline.sessions.authorizer.isAdminKey(key) else {
            parts.loginThrottle.withLock { $0.recordFailure(address: address, now: now) }
            logger.warning("console login refused: wrong admin key", metadata: ["peer": "\(address)"])
            await auditLogin(key: nil, peer: context.peer, outcome: ErrorCode.invalidCredentials.rawValue, at: now)
            return login(error: "That is not the admin key.", status: .unauthorized)
        }
        parts.loginThrottle.withLock { $0.recordSuccess(address: address, now: now) }
        let session = parts.sessions.withLock { $0.create(now: now, peer: context.peer) }
        logger.notice("console login", metadata: ["console.session": "\(session.label)", "peer": "\(address)"])
        await auditLogin(key: key, peer: context.peer, outcome: "ok", at: now, session: session.label)
        return ConsoleHTTP.redirect(
            "/console/overview", cookie: ConsoleHTTP.sessionCookie(session.id, request: request))
    }

    /// A login with an operator account: its name and password, and the code of its
    /// authenticator app once it has one. Wrong ones count against the address like wrong keys;
    /// the audit entry names the operator only when the name is an account's (a password typed
    /// into the name field is never stored).
    private func logIn(
        operator name: String, fields: [String: String], request: Request, context: HTTPFrontContext
    ) async throws -> Response {
        let address = context.peer ?? "-"
        let now = parts.clock.nowMilliseconds
        let outcome = try await parts.pipeline.operators.logIn(
            name: name, password: fields["password"] ?? "", code: fields["code"])
        switch outcome {
        case .accepted(let person):
            let account = person.name
            parts.loginThrottle.withLock { $0.recordSuccess(address: address, now: now) }
            let session = parts.sessions.withLock { $0.create(now: now, peer: context.peer, operator: person) }
            logger.notice(
                "console login",
                metadata: ["console.session": "\(session.label)", "operator": "\(account)", "peer": "\(address)"])
            await auditLogin(
                actor: person.actor, peer: context.peer, outcome: "ok", at: now, session: session.label,
                operator: account)
            return ConsoleHTTP.redirect(
                "/console/overview", cookie: ConsoleHTTP.sessionCookie(session.id, request: request))
        case .codeNeeded:
            // The password was right: not a failure, but nothing without the code.
            return login(error: "This account needs the code from its authenticator app.", status: .unauthorized)
        case .refused, .wrongCode:
            parts.loginThrottle.withLock { $0.recordFailure(address: address, now: now) }
            let wrongCode = outcome == .wrongCode
            // The name only when it is an account's: a password typed into it is never stored.
            let named = outcome == .refused(knownName: false) ? nil : name
            logger.warning(
                "console login refused",
                metadata: ["peer": "\(address)", "reason": "\(wrongCode ? "wrong code" : "wrong name or password")"])
            await auditLogin(
                actor: "console", peer: context.peer, outcome: ErrorCode.invalidCredentials.rawValue, at: now,
                operator: named)
            return login(
                error: wrongCode ? "That code is wrong or was used already." : "Wrong operator name or password.",
                status: .unauthorized)
        }
    }

    /// A console login with the admin key, right or wrong, in the audit log.
    private func auditLogin(key: String?, peer: String?, outcome: String, at: Int64, session: String? = nil) async {
        await auditLogin(
            actor: key.map(AuditLog.actor(adminKey:)) ?? "console", peer: peer, outcome: outcome, at: at,
            session: session)
    }

    /// A console login, right or wrong, in the audit log (type `console.login`): who (the key's
    /// name or the operator when it was right, else `console`), from where, how it ended, the
    /// operator name given and the session made.
    private func auditLogin(
        actor: String, peer: String?, outcome: String, at: Int64, session: String? = nil, operator name: String? = nil
    ) async {
        let payload =
            (try? WireCodec.jsonValue(
                ConsoleLoginRecord(session: session, operator: name.map { String($0.prefix(64)) })))
            ?? .null
        let entry = AuditEntry(
            seq: 0, at: at, actor: actor, transport: "http", peer: peer,
            type: "console.login", gameId: nil, playerId: nil, payload: payload, requestId: nil, outcome: outcome)
        do {
            try await parts.pipeline.audit.append(entry)
        } catch {
            logger.error("console login not audited", metadata: ["error": "\(error)"])
        }
    }

    private func refused(_ reason: String, request: Request, peer: String?, status: HTTPResponse.Status = .forbidden)
        -> Response
    {
        logger.warning(
            "console request refused",
            metadata: ["reason": "\(reason)", "path": "\(request.uri.path)", "peer": "\(peer ?? "-")"])
        return ConsoleHTTP.html(
            library.render(["reason": "Refused: \(reason)."], withTemplate: "refused") ?? "", status: status)
    }

    // MARK: - Pages and actions

    /// A GET page: the session is required (else to the login page), then the page's body is
    /// rendered into the layout.
    private func page(
        _ path: String, title: String, on router: Router<HTTPFrontContext>,
        body:
            @escaping @Sendable (ConsolePages, [String: String], ConsoleSessions.Session) async -> (
                template: String, data: [String: Any]
            )
    ) {
        router.get(RouterPath(path)) { request, context in
            guard let session = await session(request) else { return ConsoleHTTP.redirect("/console/login") }
            let query = ConsoleHTTP.query(of: request)
            let pages = ConsolePages(console: self, context: context)
            let (template, data) = await ConsoleOperator.$current.withValue(session.operatorAccount) {
                await body(pages, query, session)
            }
            return await render(template, data, title: title, path: path, session: session, pages: pages)
        }
    }

    /// A page's body rendered into the layout (navigation, who is logged in, the notice the last
    /// action left).
    func render(
        _ template: String, _ data: [String: Any], title: String, path: String, session: ConsoleSessions.Session,
        pages: ConsolePages
    ) async -> Response {
        var data = data
        data["csrf"] = session.csrf
        let games = await ConsoleOperator.$current.withValue(session.operatorAccount) { await pages.gameChoices() }
        let inner = library.render(data, withTemplate: template) ?? ""
        var layout: [String: Any] = [
            "title": title, "csrf": session.csrf, "body": inner, "games": games,
            "who": session.operatorAccount.map { "\($0.name) (\($0.role.rawValue))" } ?? "admin key",
            "nav": Self.pages.map {
                ["href": $0.path, "label": $0.label, "current": $0.path == path] as [String: Any]
            },
        ]
        // What the last action did: left in the session by the action, shown once. Never
        // text from the URL (a link could make a genuine-looking notice).
        if let notice = parts.sessions.withLock({ $0.takeNotice(for: session.id) }) { layout["flash"] = notice }
        return ConsoleHTTP.html(library.render(layout, withTemplate: "layout") ?? "")
    }

    /// A form POST that changes something: session, CSRF token and origin checked, then the
    /// action runs and the browser is sent to where it says, with a message.
    private func action(
        _ path: String, on router: Router<HTTPFrontContext>,
        run: @escaping @Sendable (ConsolePages, [String: String]) async -> (location: String, flash: String)
    ) {
        router.post(RouterPath(path)) { request, context in
            try await form(request, context: context) { session, fields in
                let (location, flash) = await ConsoleOperator.$current.withValue(session.operatorAccount) {
                    await run(ConsolePages(console: self, context: context), fields)
                }
                parts.sessions.withLock { $0.leave(notice: flash, for: session.id) }
                return ConsoleHTTP.redirect(location)
            }
        }
    }

    /// Checks a form POST (a live session, the same origin, the session's CSRF token) before `body`.
    private func form(
        _ request: Request, context: HTTPFrontContext,
        _ body: (ConsoleSessions.Session, [String: String]) async throws -> Response
    ) async throws -> Response {
        guard ConsoleHTTP.isSameOrigin(request) else {
            return refused("a form posted from another site", request: request, peer: context.peer)
        }
        guard let session = await session(request) else {
            return refused(
                "no console session (log in again)", request: request, peer: context.peer, status: .unauthorized)
        }
        var request = request
        let fields = ConsoleHTTP.form(try await request.body.collect(upTo: 64 * 1024))
        guard ConsoleSessions.csrfMatches(fields["csrf"], session) else {
            return refused("the form's CSRF token is missing or wrong", request: request, peer: context.peer)
        }
        return try await body(session, fields)
    }
}

/// The payload of a `console.login` audit entry: the console session the login made, if any.
private struct ConsoleLoginRecord: Encodable {
    let session: String?
    /// The operator name given (operator-account logins).
    var `operator`: String? = nil
}
