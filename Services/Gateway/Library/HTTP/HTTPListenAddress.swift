import Foundation
import PodiumRuntime

/// Where the HTTP front listens: `PODIUM_HTTP`, `host:port` (`[::1]:8080` for IPv6), or `off`.
public struct HTTPListenAddress: Sendable, Equatable {
    public var host: String
    /// 0 lets the system choose a free port (the gateway logs the one it got).
    public var port: Int

    public init(host: String, port: Int) {
        self.host = host
        self.port = port
    }

    /// The address `PODIUM_HTTP` names, nil for `off`, or a ``ConfigurationProblem``.
    static func parse(_ text: String) throws -> HTTPListenAddress? {
        let text = text.trimmingCharacters(in: .whitespaces)
        if text.lowercased() == "off" { return nil }
        guard let colon = text.lastIndex(of: ":") else {
            throw ConfigurationProblem("PODIUM_HTTP must be host:port (for example 127.0.0.1:8080) or off")
        }
        var host = String(text[..<colon])
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard !host.isEmpty, let port = Int(text[text.index(after: colon)...]), (0...65535).contains(port) else {
            throw ConfigurationProblem("PODIUM_HTTP must be host:port with a port from 0 to 65535, or off")
        }
        return HTTPListenAddress(host: host, port: port)
    }
}
