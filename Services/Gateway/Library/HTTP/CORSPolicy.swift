import Foundation
import PodiumRuntime

/// Which browser origins may call the HTTP front (`PODIUM_HTTP_ALLOWED_ORIGINS`), and the CORS
/// headers they get. None by default: a page on another origin cannot read any response.
///
/// Pure: ``headers(origin:)`` and ``preflight(origin:method:)`` decide; the middleware only copies.
struct CORSPolicy: Sendable, Equatable {
    /// Exact origins (`https://game.example.com`, `http://localhost:5173`), compared without
    /// regard to case; `*` allows every origin (for development: any page may then call Podium
    /// with a player's token if it has one).
    let allowedOrigins: Set<String>

    static let none = CORSPolicy(allowedOrigins: [])
    static let methods = "GET, POST, DELETE"
    static let requestHeaders = "Authorization, Content-Type, Idempotency-Key, X-Podium-Server-Key, X-Podium-Admin-Key"
    static let exposedHeaders = "Podium-Request-Id, Retry-After, WWW-Authenticate"
    static let maxAgeSeconds = 600

    /// `PODIUM_HTTP_ALLOWED_ORIGINS`: comma-separated origins, or `*`.
    static func parse(_ text: String) throws -> CORSPolicy {
        var origins: Set<String> = []
        for item in text.split(separator: ",") {
            let origin = item.trimmingCharacters(in: .whitespaces).lowercased()
            if origin.isEmpty { continue }
            if origin == "*" {
                origins.insert(origin)
                continue
            }
            guard let url = URL(string: origin), let scheme = url.scheme, scheme == "http" || scheme == "https",
                url.host != nil, url.path.isEmpty || url.path == "/", url.query == nil
            else {
                throw ConfigurationProblem(
                    "PODIUM_HTTP_ALLOWED_ORIGINS must be origins like https://game.example.com, separated by commas, or *; "
                        + "'\(origin)' is not one")
            }
            origins.insert(origin.hasSuffix("/") ? String(origin.dropLast()) : origin)
        }
        return CORSPolicy(allowedOrigins: origins)
    }

    func allows(_ origin: String) -> Bool {
        allowedOrigins.contains("*") || allowedOrigins.contains(origin.lowercased())
    }

    /// Headers for an actual (non-preflight) response to a request with this `Origin`; empty
    /// when the origin is not allowed (the browser then withholds the response from the page).
    func headers(origin: String?) -> [(String, String)] {
        guard let origin, allows(origin) else { return [] }
        return [
            ("Access-Control-Allow-Origin", origin), ("Vary", "Origin"),
            ("Access-Control-Expose-Headers", Self.exposedHeaders),
        ]
    }

    /// Headers for a preflight (`OPTIONS` with `Access-Control-Request-Method`), or nil when the
    /// origin is not allowed.
    func preflight(origin: String) -> [(String, String)]? {
        guard allows(origin) else { return nil }
        return [
            ("Access-Control-Allow-Origin", origin), ("Vary", "Origin"),
            ("Access-Control-Allow-Methods", Self.methods), ("Access-Control-Allow-Headers", Self.requestHeaders),
            ("Access-Control-Max-Age", String(Self.maxAgeSeconds)),
        ]
    }
}
