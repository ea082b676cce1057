import ArgumentParser
import Foundation
import ZeroMQ

/// Where the gateway is and how long to wait for it.
struct GatewayOptions: ParsableArguments {
    @Option(help: "The gateway's request endpoint (default: $PODIUM_ENDPOINT or tcp://127.0.0.1:5555).")
    var endpoint: String = ProcessInfo.processInfo.environment["PODIUM_ENDPOINT"] ?? "tcp://127.0.0.1:5555"

    @Option(help: "Seconds to wait for a reply.")
    var timeout: Double = 5

    @Option(
        name: .customLong("server-public-key"),
        help: """
            The gateway's CURVE public key, 40 characters of Z85 (default: $PODIUM_SERVER_PUBLIC_KEY). \
            When given, requests and subscriptions are encrypted with a key pair made for this run.
            """)
    var serverPublicKey: String? = ProcessInfo.processInfo.environment["PODIUM_SERVER_PUBLIC_KEY"]

    var timeoutMilliseconds: Int { max(1, Int(timeout * 1000)) }

    /// How long a request waits for its reply.
    var replyTimeout: Duration { .milliseconds(timeoutMilliseconds) }

    /// The gateway's CURVE key, when one was given (an empty value means none).
    func curveServerKey() throws -> CurveKey? {
        guard let text = serverPublicKey?.trimmingCharacters(in: .whitespaces), !text.isEmpty else { return nil }
        guard let key = CurveKey(z85: text) else {
            throw ValidationError(
                "--server-public-key (or PODIUM_SERVER_PUBLIC_KEY) must be 40 characters of Z85, as `podium keygen` prints"
            )
        }
        guard CurveKeyPair.isAvailable else {
            throw ValidationError("--server-public-key needs CURVE, and this libzmq was built without it")
        }
        return key
    }

    func validate() throws {
        guard timeout > 0 else { throw ValidationError("--timeout must be positive") }
        _ = try curveServerKey()
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
