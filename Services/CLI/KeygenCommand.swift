import ArgumentParser
import ZeroMQ

/// `podium keygen`: a CURVE key pair for the gateway's public endpoints, as environment lines.
struct KeygenCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keygen",
        abstract: "Make a CURVE key pair for the gateway's public endpoints.",
        discussion: """
            Prints two lines for an env file or the shell (each value single-quoted: Z85 keys contain \
            characters such as &, <, * and $): PODIUM_CURVE_SECRET_KEY for podium-gateway only, and \
            PODIUM_SERVER_PUBLIC_KEY for clients (podium --server-public-key, pyzmq's curve_serverkey). \
            Keep the secret key like a password.
            """)

    func run() throws {
        let pair: CurveKeyPair
        do {
            pair = try CurveKeyPair.generate()
        } catch {
            throw CommandFailure("cannot make a CURVE key pair: \(error)")
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
