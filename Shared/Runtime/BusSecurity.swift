import Configuration
import Foundation
import ZeroMQ

/// CURVE on the bus: every connection to the hub's endpoints is encrypted, and the hub admits
/// only the public keys it is given (its ZAP handler checks each handshake).
///
/// | variable | who | meaning |
/// |---|---|---|
/// | `PODIUM_BUS_SECRET_KEY` or `PODIUM_BUS_SECRET_KEY_FILE` | every process | this process's Z85 secret key (`podium keygen --bus NAME`); its public key is derived |
/// | `PODIUM_BUS_SERVER_KEY` | services | the hub's (gateway's) public key |
/// | `PODIUM_BUS_ALLOWED_KEYS` or `PODIUM_BUS_ALLOWED_KEYS_FILE` | the gateway | public keys admitted to the bus: `name=key` pairs separated by commas, or a file with one `name key` per line (a line starting with `#` is a comment) |
///
/// Without a secret key the bus is plain (the single-box default, on 127.0.0.1). Half a
/// configuration (a key without the other side's) refuses to start.
public struct BusSecurity: Sendable {
    /// The ZAP domain of the hub's bus sockets.
    public static let zapDomain = "podium.bus"

    /// This process's long-term key pair.
    public var keyPair: CurveKeyPair
    /// Services: the hub's public key. Nil on the hub.
    public var hubKey: CurveKey?
    /// The hub: the public keys it admits, with the name each is known by.
    public var admitted: [CurveKey: String]

    public init(keyPair: CurveKeyPair, hubKey: CurveKey? = nil, admitted: [CurveKey: String] = [:]) {
        self.keyPair = keyPair
        self.hubKey = hubKey
        self.admitted = admitted
    }

    /// Options of the hub's bus sockets (set before binding).
    public var hubOptions: [SocketOption] { keyPair.serverOptions + [.zapDomain(Self.zapDomain)] }

    /// Options of a service's bus sockets (set before connecting); empty on the hub.
    public var memberOptions: [SocketOption] {
        guard let hubKey else { return [] }
        return keyPair.clientOptions(server: hubKey)
    }

    /// The hub's answer to one handshake. Only the bus domain is decided here: other server
    /// sockets of the context (the public endpoints) admit every client that knows their key.
    public func verdict(for request: ZAPRequest) -> ZAPVerdict {
        guard request.domain == Self.zapDomain else { return .allow(userID: "") }
        guard let key = request.curveKey else { return .deny(reason: "the bus needs CURVE") }
        guard let name = admitted[key] else { return .deny(reason: "unknown key") }
        return .allow(userID: name)
    }

    /// Reads the variables above; nil when the bus is plain.
    /// - Parameter isHub: the gateway (needs admitted keys) or a service (needs the hub's key).
    public static func read(from podium: ConfigReader, isHub: Bool) throws -> BusSecurity? {
        let inline = podium.string(forKey: ["bus", "secret", "key"], isSecret: true)
        let file = podium.string(forKey: ["bus", "secret", "key", "file"])
        let serverKey = podium.string(forKey: ["bus", "server", "key"])
        let allowedInline = podium.string(forKey: ["bus", "allowed", "keys"])
        let allowedFile = podium.string(forKey: ["bus", "allowed", "keys", "file"])
        let secretText: String?
        switch (inline, file) {
        case (let text?, nil): secretText = text
        case (nil, let path?): secretText = try readFile(path, variable: "PODIUM_BUS_SECRET_KEY_FILE")
        case (nil, nil): secretText = nil
        case (_?, _?): throw ConfigurationProblem("set PODIUM_BUS_SECRET_KEY or PODIUM_BUS_SECRET_KEY_FILE, not both")
        }
        guard let secretText else {
            if serverKey != nil || allowedInline != nil || allowedFile != nil {
                throw ConfigurationProblem(
                    "bus keys are configured but PODIUM_BUS_SECRET_KEY is not: set this process's own bus key too (podium keygen --bus NAME)"
                )
            }
            return nil
        }
        guard let secret = CurveKey(z85: secretText.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw ConfigurationProblem(
                "PODIUM_BUS_SECRET_KEY must be a 40-character Z85 key (podium keygen --bus NAME)")
        }
        let pair: CurveKeyPair
        do {
            pair = try CurveKeyPair(secretKey: secret)
        } catch {
            throw ConfigurationProblem("PODIUM_BUS_SECRET_KEY cannot be used: \(error)")
        }
        if isHub {
            if serverKey != nil {
                throw ConfigurationProblem("PODIUM_BUS_SERVER_KEY is for services; the gateway is the hub")
            }
            var admitted: [CurveKey: String] = [:]
            if let allowedInline {
                for entry in allowedInline.split(separator: ",") {
                    try add(entry.split(separator: "=", maxSplits: 1), to: &admitted, source: "PODIUM_BUS_ALLOWED_KEYS")
                }
            }
            if let allowedFile {
                let text = try readFile(allowedFile, variable: "PODIUM_BUS_ALLOWED_KEYS_FILE")
                for line in text.split(whereSeparator: \.isNewline) {
                    // Z85 has `#` and `=` in its alphabet: a comment is a whole line.
                    let content = line.trimmingCharacters(in: .whitespaces)
                    if content.isEmpty || content.hasPrefix("#") { continue }
                    try add(content.split(whereSeparator: \.isWhitespace), to: &admitted, source: allowedFile)
                }
            }
            guard !admitted.isEmpty else {
                throw ConfigurationProblem(
                    "PODIUM_BUS_SECRET_KEY is set but no service may connect: set PODIUM_BUS_ALLOWED_KEYS or PODIUM_BUS_ALLOWED_KEYS_FILE"
                )
            }
            return BusSecurity(keyPair: pair, admitted: admitted)
        }
        if allowedInline != nil || allowedFile != nil {
            throw ConfigurationProblem("PODIUM_BUS_ALLOWED_KEYS is for the gateway (the hub), not a service")
        }
        guard let serverKey else {
            throw ConfigurationProblem(
                "PODIUM_BUS_SECRET_KEY is set but PODIUM_BUS_SERVER_KEY (the gateway's bus public key) is not")
        }
        guard let hubKey = CurveKey(z85: serverKey.trimmingCharacters(in: .whitespaces)) else {
            throw ConfigurationProblem("PODIUM_BUS_SERVER_KEY must be a 40-character Z85 key")
        }
        return BusSecurity(keyPair: pair, hubKey: hubKey)
    }

    private static func add(_ parts: [Substring], to admitted: inout [CurveKey: String], source: String) throws {
        guard parts.count == 2, !parts[0].isEmpty, let key = CurveKey(z85: String(parts[1])) else {
            throw ConfigurationProblem("\(source): each admitted key is a name and a 40-character Z85 public key")
        }
        if let other = admitted[key] {
            throw ConfigurationProblem("\(source): \(parts[0]) has the same key as \(other)")
        }
        admitted[key] = String(parts[0])
    }

    private static func readFile(_ path: String, variable: String) throws -> String {
        do {
            return try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw ConfigurationProblem("\(variable): cannot read \(path): \(error.localizedDescription)")
        }
    }
}
