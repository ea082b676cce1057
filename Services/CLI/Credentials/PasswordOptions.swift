import ArgumentParser
import Foundation

/// How `register` and `login` get the password: `--password-stdin` (the first line of standard
/// input), `--password P` (visible to other users in the process list: for throwaway test
/// accounts only), or else a prompt on the terminal that does not echo.
struct PasswordOptions: ParsableArguments {
    @Flag(name: .customLong("password-stdin"), help: "Read the password from the first line of standard input.")
    var fromStandardInput = false

    @Option(help: "The password (visible in the process list; prefer --password-stdin or the prompt).")
    var password: String?

    func validate() throws {
        if fromStandardInput && password != nil {
            throw ValidationError("give either --password-stdin or --password, not both")
        }
        if let password, password.isEmpty { throw ValidationError("--password must not be empty") }
    }

    /// The password; `confirm` asks twice when prompting (for a new account).
    func read(confirm: Bool) throws -> String {
        if let password { return password }
        if fromStandardInput {
            guard let line = readLine(strippingNewline: true) else {
                throw CommandFailure("--password-stdin: standard input is empty")
            }
            let password = line.hasSuffix("\r") ? String(line.dropLast()) : line
            guard !password.isEmpty else { throw CommandFailure("--password-stdin: the first line is empty") }
            return password
        }
        guard isatty(STDIN_FILENO) == 1 else {
            throw CommandFailure("standard input is not a terminal: give --password-stdin (or --password)")
        }
        let password = try SilentPrompt.read("Password: ")
        guard !password.isEmpty else { throw CommandFailure("the password is empty") }
        if confirm, try SilentPrompt.read("Password again: ") != password {
            throw CommandFailure("the two passwords differ")
        }
        return password
    }
}
