import Foundation
import PodiumClient
import PodiumMessages
import PodiumRuntime

/// The console's operators page: every operator's own account (a new password, a second factor
/// by TOTP), and for administrators the accounts of all (create, change a role, reset a second
/// factor, remove). Everything goes through the pipeline as the session's operator, so the
/// roles, the audit log and the "a changed account ends its sessions" rule apply.
extension ConsolePages {
    func operators(session: ConsoleSessions.Session) async -> (template: String, data: [String: Any]) {
        var data: [String: Any] = [:]
        if let person = session.operatorAccount {
            data["me"] = ["name": person.name, "role": person.role.rawValue]
        }
        let administrator = session.operatorAccount.map { $0.role == .administrator } ?? true
        if administrator {
            switch await admin(GatewayRequests.listOperators) {
            case .success(let list):
                data["manages"] = true
                data["operators"] = list.operators.map { account -> [String: Any] in
                    [
                        "name": account.name, "totp": account.totp ? "yes" : "no", "hasTOTP": account.totp,
                        "createdAt": ConsoleHTTP.time(account.createdAt),
                        "lastLoginAt": account.lastLoginAt.map(ConsoleHTTP.time) ?? "never",
                        "self": account.name == session.operatorAccount?.name,
                        "roles": OperatorRole.allCases.map {
                            ["value": $0.rawValue, "selected": $0 == account.role] as [String: Any]
                        },
                    ]
                }
                if let person = session.operatorAccount,
                    let mine = list.operators.first(where: { $0.name == person.name })
                {
                    data["me"] = ["name": person.name, "role": person.role.rawValue, "totp": mine.totp]
                }
            case .failure(let error): data["error"] = Self.describe(error)
            }
        }
        return ("operators", data)
    }

    func createOperator(_ fields: [String: String]) async -> (location: String, flash: String) {
        let creation = OperatorCreation(
            name: fields["name"] ?? "", password: fields["password"] ?? "",
            role: OperatorRole(rawValue: fields["role"] ?? "") ?? .viewer)
        switch await admin(GatewayRequests.createOperator, creation) {
        case .success(let account): return ("/console/operators", "operator \(account.name) created")
        case .failure(let error): return ("/console/operators", Self.describe(error))
        }
    }

    func changeRole(_ fields: [String: String]) async -> (location: String, flash: String) {
        let name = fields["name"] ?? ""
        guard let role = OperatorRole(rawValue: fields["role"] ?? "") else {
            return ("/console/operators", "invalid_field: the role is viewer, moderator or administrator")
        }
        switch await admin(GatewayRequests.updateOperator, OperatorUpdate(name: name, role: role)) {
        case .success(let account):
            return ("/console/operators", "\(account.name) is now \(account.role.rawValue); their sessions ended")
        case .failure(let error): return ("/console/operators", Self.describe(error))
        }
    }

    func removeOperator(_ fields: [String: String]) async -> (location: String, flash: String) {
        let name = fields["name"] ?? ""
        switch await admin(GatewayRequests.removeOperator, OperatorTarget(name: name)) {
        case .success(let receipt):
            return ("/console/operators", receipt.removed ? "operator \(name) removed" : "no operator \(name)")
        case .failure(let error): return ("/console/operators", Self.describe(error))
        }
    }

    /// Removes an operator's second factor (a lost phone; the operator's own, or an administrator's
    /// care of another's).
    func resetTOTP(_ fields: [String: String]) async -> (location: String, flash: String) {
        let name = fields["name"] ?? ""
        switch await admin(GatewayRequests.removeTOTP, OperatorTarget(name: name)) {
        case .success: return ("/console/operators", "\(name) logs in without a code now")
        case .failure(let error): return ("/console/operators", Self.describe(error))
        }
    }

    /// Makes the operator's pending second factor count, with a code from their app.
    func confirmTOTP(_ fields: [String: String]) async -> (changed: Bool, notice: String) {
        guard let person = ConsoleOperator.current else {
            return (false, "forbidden: the admin key has no account to protect")
        }
        let confirmation = TOTPConfirmation(name: person.name, code: fields["code"] ?? "")
        switch await admin(GatewayRequests.confirmTOTP, confirmation) {
        case .success:
            return (true, "second factor on: every login needs a code from the app; your other sessions ended")
        case .failure(let error): return (false, Self.describe(error))
        }
    }
}

extension GatewayConsole {
    /// A new password for the session's own operator account: the current one is asked again
    /// (a wrong one counts against the address like a failed login), the new one twice.
    func changeOwnPassword(session: ConsoleSessions.Session, fields: [String: String], peer: String?) async -> (
        changed: Bool, notice: String
    ) {
        if let refusal = await checkOwnPassword(session: session, fields: fields, peer: peer) {
            return (false, refusal)
        }
        guard let person = session.operatorAccount else { return (false, "forbidden: no operator account") }
        let new = fields["password"] ?? ""
        guard new == fields["repeat"] else {
            return (false, "invalid_field: the new password and its repetition differ")
        }
        let pages = ConsolePages(console: self, context: nil)
        let result = await ConsoleOperator.$current.withValue(person) {
            await pages.admin(GatewayRequests.updateOperator, OperatorUpdate(name: person.name, password: new))
        }
        switch result {
        case .success: return (true, "password changed; your other console sessions ended")
        case .failure(let error): return (false, ConsolePages.describe(error))
        }
    }
}

extension GatewayConsole {
    /// Checks the session operator's current password (form field `current`) before a change to
    /// their own account: nil when right, else why not. A wrong one counts against the address
    /// like a failed login, and past the limit none is checked.
    func checkOwnPassword(session: ConsoleSessions.Session, fields: [String: String], peer: String?) async -> String? {
        guard let person = session.operatorAccount else {
            return "forbidden: the admin key has no account here (it is PODIUM_ADMIN_KEY)"
        }
        let address = peer ?? "-"
        let now = parts.clock.nowMilliseconds
        if parts.loginThrottle.withLock({ $0.retryAfter(address: address, now: now) }) != nil {
            return "rate_limited: too many wrong passwords from this address; try again later"
        }
        let current = fields["current"] ?? ""
        guard (try? await parts.pipeline.operators.verifyPassword(name: person.name, password: current)) == true else {
            parts.loginThrottle.withLock { $0.recordFailure(address: address, now: now) }
            logger.warning(
                "console account change refused: wrong current password",
                metadata: ["operator": "\(person.name)", "peer": "\(address)"])
            return "invalid_credentials: the current password is wrong"
        }
        return nil
    }
}

extension ConsoleTemplates {
    static let operators = """
        {{#error}}<p class="flash error">{{error}}</p>{{/error}}
        {{#me}}<section id="my-account">
        <h2>Your account: {{name}} ({{role}})</h2>
        <p>Changing your password or your second factor ends your other console sessions; this one goes on.</p>
        <form method="post" action="/console/operators/password" class="filters" id="change-password"><input type="hidden" name="csrf" value="{{csrf}}">
        <label>Current password <input type="password" name="current" id="current-password" autocomplete="current-password" required></label>
        <label>New password (12 characters or more) <input type="password" name="password" id="new-password" autocomplete="new-password" minlength="12" maxlength="256" required></label>
        <label>New password again <input type="password" name="repeat" id="repeat-password" autocomplete="new-password" minlength="12" maxlength="256" required></label>
        <button type="submit" id="change-password-submit">Change password</button></form>
        <h3>Second factor</h3>
        {{#enrollment}}<div class="danger-zone" id="enrollment"><p>Add this account to your authenticator app, then type the code it shows. Shown once.</p>
        <p>Secret: <code id="totp-secret">{{secret}}</code></p><p>URI: <code>{{uri}}</code></p>
        <form method="post" action="/console/operators/totp-confirm" class="filters"><input type="hidden" name="csrf" value="{{csrf}}">
        <label>Code <input name="code" id="totp-code" inputmode="numeric" autocomplete="one-time-code" maxlength="6" required></label>
        <button type="submit" id="totp-confirm">Turn on</button></form></div>{{/enrollment}}
        {{^enrollment}}<form method="post" action="/console/operators/totp-begin" class="filters"><input type="hidden" name="csrf" value="{{csrf}}"><label>Current password <input type="password" name="current" id="totp-password" autocomplete="current-password" required></label><button type="submit" id="totp-begin">Set up a code from an authenticator app</button></form>{{/enrollment}}
        </section>{{/me}}
        {{^me}}<p>You logged in with the admin key: it has no account here. Operators with their own accounts are named in the audit log; make them below or with <code>podium admin operators create</code>.</p>{{/me}}
        {{#manages}}
        <h2>Operator accounts</h2>
        <div class="scroll"><table id="operator-list"><thead><tr><th>operator</th><th>role</th><th>second factor</th><th>created</th><th>last login</th><th></th></tr></thead><tbody>
        {{#operators}}<tr><td>{{name}}{{#self}} (you){{/self}}</td><td><form method="post" action="/console/operators/role" class="inline" data-confirm="Change the role of {{name}}? Their console sessions end."><input type="hidden" name="csrf" value="{{csrf}}"><input type="hidden" name="name" value="{{name}}"><select name="role">{{#roles}}<option value="{{value}}"{{#selected}} selected{{/selected}}>{{value}}</option>{{/roles}}</select><button type="submit">Save</button></form></td><td>{{totp}}{{#hasTOTP}} <form method="post" action="/console/operators/reset-totp" class="inline" data-confirm="Remove the second factor of {{name}}? They log in with the password alone until they set one up again."><input type="hidden" name="csrf" value="{{csrf}}"><input type="hidden" name="name" value="{{name}}"><button type="submit">Reset</button></form>{{/hasTOTP}}</td><td>{{createdAt}}</td><td>{{lastLoginAt}}</td><td><form method="post" action="/console/operators/remove" class="inline" data-confirm="Remove the operator {{name}}? Their console sessions end."><input type="hidden" name="csrf" value="{{csrf}}"><input type="hidden" name="name" value="{{name}}"><button type="submit" class="danger">Remove</button></form></td></tr>{{/operators}}
        {{^operators}}<tr><td colspan="6">no operator accounts yet</td></tr>{{/operators}}
        </tbody></table></div>
        <h2>New operator</h2>
        <form method="post" action="/console/operators/create" class="filters" id="create-operator"><input type="hidden" name="csrf" value="{{csrf}}">
        <label>Name <input name="name" id="new-operator-name" required minlength="3" maxlength="32" pattern="[a-z0-9._-]+" autocomplete="off"></label>
        <label>Password (12 characters or more) <input type="password" name="password" id="new-operator-password" minlength="12" maxlength="256" required autocomplete="new-password"></label>
        <label>Role <select name="role" id="new-operator-role"><option value="viewer">viewer: reads only</option><option value="moderator">moderator: acts on players</option><option value="administrator">administrator: everything</option></select></label>
        <button type="submit" id="create-operator-submit">Create</button></form>
        {{/manages}}
        """
}
