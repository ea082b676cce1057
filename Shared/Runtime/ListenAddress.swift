import Foundation

/// Where an HTTP listener listens: `host:port` (`[::1]:8080` for IPv6), or `off`. The gateway's
/// HTTP front (`PODIUM_HTTP`) and every process's operations listener (`PODIUM_METRICS`) use it.
public struct ListenAddress: Sendable, Equatable, CustomStringConvertible {
    public var host: String
    /// 0 lets the system choose a free port (the process logs the one it got).
    public var port: Int

    public init(host: String, port: Int) {
        self.host = host
        self.port = port
    }

    public var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }

    /// The address `text` names, nil for `off`, or a ``ConfigurationProblem`` naming `setting`.
    public static func parse(_ text: String, setting: String = "PODIUM_HTTP") throws -> ListenAddress? {
        let text = text.trimmingCharacters(in: .whitespaces)
        if text.lowercased() == "off" { return nil }
        guard let colon = text.lastIndex(of: ":") else {
            throw ConfigurationProblem("\(setting) must be host:port (for example 127.0.0.1:8080) or off")
        }
        var host = String(text[..<colon])
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard !host.isEmpty, let port = Int(text[text.index(after: colon)...]), (0...65535).contains(port) else {
            throw ConfigurationProblem("\(setting) must be host:port with a port from 0 to 65535, or off")
        }
        return ListenAddress(host: host, port: port)
    }
}
