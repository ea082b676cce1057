import ArgumentParser
import Foundation
import PodiumMessages

/// `podium admin operators`: operator accounts (docs/PROTOCOL.md 22.11), with the admin key.
struct AdminOperatorsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "operators",
        abstract: "Operator accounts: who may log in to the console, with which role and second factor.",
        subcommands: [
            CreateCommand.self, ListCommand.self, UpdateCommand.self, RemoveCommand.self, TOTPBeginCommand.self,
            TOTPConfirmCommand.self, TOTPRemoveCommand.self,
        ])

    static func text(_ account: OperatorAccount) -> String {
        "\(account.name)  \(account.role.rawValue)  second factor: \(account.totp ? "TOTP" : "none")  "
            + "created \(Timestamp.text(account.createdAt))"
            + (account.lastLoginAt.map { "  last login \(Timestamp.text($0))" } ?? "")
    }

    /// The password from the option or `$PODIUM_OPERATOR_PASSWORD`.
    static func password(_ given: String?) -> String? {
        given ?? ProcessInfo.processInfo.environment["PODIUM_OPERATOR_PASSWORD"]
    }

    struct CreateCommand: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "create", abstract: "Make an operator account (admin.operators.create).")
        @OptionGroup var options: AdminOptions
        @Argument(help: "The name: 3-32 of a-z, 0-9, '.', '_' and '-'.") var name: String
        @Option(help: "viewer, moderator or administrator.") var role: String
        @Option(help: "12-256 characters (default: $PODIUM_OPERATOR_PASSWORD).") var password: String?

        func run() throws {
            guard let role = OperatorRole(rawValue: role) else {
                throw CommandFailure("--role is viewer, moderator or administrator")
            }
            guard let password = AdminOperatorsCommand.password(password) else {
                throw CommandFailure("give --password or $PODIUM_OPERATOR_PASSWORD")
            }
            let account = try options.send(
                GatewayRequests.createOperator, OperatorCreation(name: name, password: password, role: role))
            if !options.json { emit("created " + AdminOperatorsCommand.text(account)) }
        }
    }

    struct ListCommand: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list", abstract: "List the operator accounts (admin.operators.list).")
        @OptionGroup var options: AdminOptions

        func run() throws {
            let list = try options.send(GatewayRequests.listOperators, EmptyPayload())
            if options.json { return }
            emit(
                list.operators.isEmpty
                    ? "no operator accounts" : list.operators.map(AdminOperatorsCommand.text).joined(separator: "\n"))
        }
    }

    struct UpdateCommand: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "update", abstract: "Change an operator's role and/or password (admin.operators.update).")
        @OptionGroup var options: AdminOptions
        @Argument var name: String
        @Option(help: "viewer, moderator or administrator.") var role: String?
        @Option(help: "A new password, 12-256 characters.") var password: String?

        func run() throws {
            let newRole = try role.map { text in
                guard let role = OperatorRole(rawValue: text) else {
                    throw CommandFailure("--role is viewer, moderator or administrator")
                }
                return role
            }
            let account = try options.send(
                GatewayRequests.updateOperator, OperatorUpdate(name: name, password: password, role: newRole))
            if !options.json { emit("updated " + AdminOperatorsCommand.text(account)) }
        }
    }

    struct RemoveCommand: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "remove", abstract: "Remove an operator account (admin.operators.remove).")
        @OptionGroup var options: AdminOptions
        @Argument var name: String

        func run() throws {
            let removal = try options.send(GatewayRequests.removeOperator, OperatorTarget(name: name))
            if !options.json { emit(removal.removed ? "removed \(name)" : "no operator is named \(name)") }
        }
    }

    struct TOTPBeginCommand: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "totp-begin",
            abstract:
                "Set up a second factor (admin.operators.totp-begin): prints the secret for the authenticator app.",
            discussion: "It counts once confirmed with a code: `podium admin operators totp-confirm <name> <code>`.")
        @OptionGroup var options: AdminOptions
        @Argument var name: String

        func run() throws {
            let enrollment = try options.send(GatewayRequests.beginTOTP, OperatorTarget(name: name))
            if options.json { return }
            emit(
                "secret  \(enrollment.secret)\nuri     \(enrollment.uri)\nthen: podium admin operators totp-confirm \(name) <code>"
            )
        }
    }

    struct TOTPConfirmCommand: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "totp-confirm",
            abstract: "Confirm a second factor with a code from the app (admin.operators.totp-confirm).")
        @OptionGroup var options: AdminOptions
        @Argument var name: String
        @Argument var code: String

        func run() throws {
            let account = try options.send(GatewayRequests.confirmTOTP, TOTPConfirmation(name: name, code: code))
            if !options.json { emit("second factor on: " + AdminOperatorsCommand.text(account)) }
        }
    }

    struct TOTPRemoveCommand: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "totp-remove", abstract: "Turn an operator's second factor off (admin.operators.totp-remove).")
        @OptionGroup var options: AdminOptions
        @Argument var name: String

        func run() throws {
            let account = try options.send(GatewayRequests.removeTOTP, OperatorTarget(name: name))
            if !options.json { emit("second factor off: " + AdminOperatorsCommand.text(account)) }
        }
    }
}
