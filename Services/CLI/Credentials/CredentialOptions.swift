import ArgumentParser
import Foundation
import PodiumMessages

/// The credential options every request-sending command shares.
///
/// Without any of them the stored session (`podium login`) is sent, refreshed first when its
/// session token has expired. `--token`, `--server-key` (or `$PODIUM_SERVER_KEY`) and
/// `--admin-key` (or `$PODIUM_ADMIN_KEY`) replace it: then the session is not sent.
struct CredentialOptions: ParsableArguments {
    @Option(help: "A player's session token, sent instead of the stored session.")
    var token: String?

    @Option(
        name: .customLong("server-key"),
        help: "A game server's key for --game (default: $PODIUM_SERVER_KEY); replaces the stored session.")
    var serverKey: String?

    @Option(
        name: .customLong("admin-key"),
        help: "The operator's admin key (default: $PODIUM_ADMIN_KEY); replaces the stored session.")
    var adminKey: String?

    @OptionGroup var session: SessionFileOptions

    func validate() throws {
        let given = [("--token", token), ("--server-key", serverKey), ("--admin-key", adminKey)].filter { $0.1 != nil }
        if given.count > 1 {
            throw ValidationError(
                "give only one of \(given.map(\.0).joined(separator: ", ")): a request carries one credential")
        }
        for (flag, value) in given where value?.isEmpty == true {
            throw ValidationError("\(flag) must not be empty")
        }
    }

    /// The key or token given on the command line or in the environment, if any.
    func explicitCredential(environment: [String: String] = ProcessInfo.processInfo.environment) throws -> Credential? {
        if let token { return .token(token) }
        if let serverKey { return .serverKey(serverKey) }
        if let adminKey { return .adminKey(adminKey) }
        let server = environment["PODIUM_SERVER_KEY"].flatMap { $0.isEmpty ? nil : $0 }
        let admin = environment["PODIUM_ADMIN_KEY"].flatMap { $0.isEmpty ? nil : $0 }
        switch (server, admin) {
        case (.some, .some):
            throw CommandFailure(
                "PODIUM_SERVER_KEY and PODIUM_ADMIN_KEY are both set: choose one with --server-key or --admin-key")
        case (.some(let key), nil): return .serverKey(key)
        case (nil, .some(let key)): return .adminKey(key)
        case (nil, nil): return nil
        }
    }

    /// Whether a server or admin key will replace the stored session (decided without I/O).
    func usesKey() throws -> Bool {
        try explicitCredential()?.needsPlayerNamed ?? false
    }

    /// The credential for a request of `type`: the explicit one, else the stored session
    /// (refreshed first if its session token has expired), else none. Public types get the
    /// stored session never.
    func credential(for type: MessageType, connection: GatewayConnection, gateway: GatewayOptions) throws -> Credential
    {
        if let explicit = try explicitCredential() { return explicit }
        guard !PublicRequestTypes.contains(type) else { return .anonymous }
        let file = session.file
        guard let grant = try file.load() else { return .anonymous }
        let renewal = SessionRenewal(file: file, connection: connection, gateway: gateway)
        return .session(try renewal.current(grant), file: file)
    }
}
