import ArgumentParser
import ZeroMQ

/// `podium keygen`: a CURVE key pair for the gateway's public endpoints, or (`--bus NAME`) for
/// one process on the bus, as environment lines.
struct KeygenCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keygen",
        abstract: "Make a CURVE key pair for the gateway's public endpoints.",
        discussion: """
            Prints two lines for an env file or the shell (each value single-quoted: Z85 keys contain \
            characters such as &, <, * and $): PODIUM_CURVE_SECRET_KEY for podium-gateway only, and \
            PODIUM_SERVER_PUBLIC_KEY for clients (podium --server-public-key, pyzmq's curve_serverkey). \
            Keep the secret key like a password.

            With --bus NAME: a key pair for one process on the bus (docs/SECURITY.md, "The bus"): \
            PODIUM_BUS_SECRET_KEY for that process, and PODIUM_BUS_PUBLIC_KEY, which goes into the \
            gateway's PODIUM_BUS_ALLOWED_KEYS_FILE as a line `NAME KEY` (for a gateway: to the \
            services as PODIUM_BUS_SERVER_KEY).
            """)

    @Option(
        name: .customLong("bus"), help: "Make a bus key pair for the process called NAME (for example leaderboard-1).")
    var busName: String?

    func validate() throws {
        if let busName, busName.isEmpty || busName.contains(where: { $0.isWhitespace || $0 == "=" || $0 == "," }) {
            throw ValidationError("--bus NAME: a name without spaces, '=' or ','")
        }
    }

    func run() throws {
        let pair: CurveKeyPair
        do {
            pair = try CurveKeyPair.generate()
        } catch {
            throw CommandFailure("cannot make a CURVE key pair: \(error)")
        }
        if let busName {
            emit("# \(busName)'s bus key; this process only, keep it secret")
            emit("PODIUM_BUS_SECRET_KEY=\(Self.shellQuoted(pair.secretKey.z85))")
            emit(
                "# its public key (read by nothing): a line \"\(busName) KEY\" in the gateway's PODIUM_BUS_ALLOWED_KEYS_FILE;"
            )
            emit("# a gateway's goes to every service as PODIUM_BUS_SERVER_KEY")
            emit("PODIUM_BUS_PUBLIC_KEY=\(Self.shellQuoted(pair.publicKey.z85))")
            return
        }
        emit("# podium-gateway only; keep it secret")
        emit("PODIUM_CURVE_SECRET_KEY=\(Self.shellQuoted(pair.secretKey.z85))")
        emit("# for clients: podium --server-public-key, pyzmq curve_serverkey")
        emit("PODIUM_SERVER_PUBLIC_KEY=\(Self.shellQuoted(pair.publicKey.z85))")
    }

    /// Single quotes make every character literal in sh, bash and Compose env files; Z85 has no
    /// single quote, but one is escaped anyway so the function is right for any text.
    static func shellQuoted(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: #"'\''"#) + "'"
    }
}
