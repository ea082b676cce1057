import ArgumentParser
import Foundation

/// Where the gateway is and how long to wait for it.
struct GatewayOptions: ParsableArguments {
    @Option(help: "The gateway's request endpoint (default: $PODIUM_ENDPOINT or tcp://127.0.0.1:5555).")
    var endpoint: String = ProcessInfo.processInfo.environment["PODIUM_ENDPOINT"] ?? "tcp://127.0.0.1:5555"

    @Option(help: "Seconds to wait for a reply.")
    var timeout: Double = 5

    var timeoutMilliseconds: Int { max(1, Int(timeout * 1000)) }

    func validate() throws {
        guard timeout > 0 else { throw ValidationError("--timeout must be positive") }
    }
}

/// Exit statuses shared by the subcommands.
enum ExitStatus {
    /// The gateway answered with an error, a service is not ready, or no answer came in time.
    static let failure = ExitCode(1)
}

/// Writes a line to standard output and flushes it, so that pipes see each line at once.
func emit(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

/// Writes a line to standard error.
func complain(_ line: String) {
    FileHandle.standardError.write(Data((line + "\n").utf8))
}
