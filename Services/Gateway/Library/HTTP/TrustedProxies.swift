import Foundation
import PodiumMessages
import PodiumRuntime

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The proxies whose `X-Forwarded-For` the HTTP front believes (`PODIUM_HTTP_TRUSTED_PROXIES`),
/// and the client address it takes from a request.
///
/// A request that arrives straight from an address not on the list is that address's, whatever
/// its headers say: anyone can write `X-Forwarded-For`. When it arrives from a trusted proxy,
/// the header is read from the right (each proxy appends the address it saw), trusted hops are
/// skipped, and the first address that is not a trusted proxy is the client's. A malformed
/// entry ends the walk at the hop before it. Addresses are compared as bytes, so `::ffff:a.b.c.d`
/// is `a.b.c.d`, and the result is written in its canonical form.
public struct TrustedProxies: Sendable, Equatable {
    struct Network: Sendable, Equatable {
        var bytes: [UInt8]
        var prefixLength: Int

        func contains(_ address: [UInt8]) -> Bool {
            guard address.count == bytes.count else { return false }
            var remaining = prefixLength
            for index in bytes.indices where remaining > 0 {
                let bits = min(8, remaining)
                let mask: UInt8 = bits == 8 ? 0xFF : ~(0xFF >> UInt8(bits))
                if address[index] & mask != bytes[index] & mask { return false }
                remaining -= bits
            }
            return true
        }
    }

    var networks: [Network]

    /// No proxy is trusted: every request is its connection's address.
    public static let none = TrustedProxies(networks: [])

    /// Parses a comma-separated list of addresses and networks (`10.0.0.0/8`, `127.0.0.1`,
    /// `fd00::/8`); empty for none.
    public static func parse(_ text: String) throws(ConfigurationProblem) -> TrustedProxies {
        var networks: [Network] = []
        for item in text.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) where !item.isEmpty {
            let parts = item.split(separator: "/", maxSplits: 1).map(String.init)
            guard let bytes = Self.bytes(parts[0]) else {
                throw ConfigurationProblem("PODIUM_HTTP_TRUSTED_PROXIES: '\(item)' is not an IP address or network")
            }
            var length = bytes.count * 8
            if parts.count == 2 {
                guard let given = Int(parts[1]), (0...bytes.count * 8).contains(given) else {
                    throw ConfigurationProblem(
                        "PODIUM_HTTP_TRUSTED_PROXIES: '\(item)' has a prefix length out of range")
                }
                length = given
            }
            networks.append(Network(bytes: bytes, prefixLength: length))
        }
        return TrustedProxies(networks: networks)
    }

    public var isEmpty: Bool { networks.isEmpty }

    /// The client's address for a request that came from `remote` with these `X-Forwarded-For`
    /// values (each may list several addresses), in canonical form.
    public func clientAddress(remote: String, forwardedFor: [String]) -> String {
        guard let remoteBytes = Self.bytes(remote) else { return remote }
        var current = remoteBytes
        if isTrusted(current) {
            let hops = forwardedFor.flatMap { $0.split(separator: ",") }.map { $0.trimmingCharacters(in: .whitespaces) }
            for hop in hops.reversed() {
                guard let bytes = Self.bytes(PeerAddress.withoutPort(hop)) else { break }
                current = bytes
                if !isTrusted(bytes) { break }
            }
        }
        return Self.text(current) ?? remote
    }

    func isTrusted(_ address: [UInt8]) -> Bool {
        networks.contains { $0.contains(address) }
    }

    /// An address's bytes (4 for IPv4, 16 for IPv6; an IPv4-mapped IPv6 address gives 4).
    static func bytes(_ text: String) -> [UInt8]? {
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 { return withUnsafeBytes(of: &v4) { Array($0) } }
        var v6 = in6_addr()
        guard inet_pton(AF_INET6, text, &v6) == 1 else { return nil }
        let bytes = withUnsafeBytes(of: &v6) { Array($0) }
        if bytes[0..<10].allSatisfy({ $0 == 0 }) && bytes[10] == 0xFF && bytes[11] == 0xFF {
            return Array(bytes[12...])
        }
        return bytes
    }

    static func text(_ bytes: [UInt8]) -> String? {
        var buffer = [CChar](repeating: 0, count: 64)
        let family = bytes.count == 4 ? AF_INET : AF_INET6
        let written = bytes.withUnsafeBytes { raw in
            inet_ntop(family, raw.baseAddress, &buffer, socklen_t(buffer.count))
        }
        guard written != nil else { return nil }
        return String(cString: buffer)
    }
}
