import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One route of the HTTP front (docs/PROTOCOL.md 20.3) with its parameters: what PodiumKit sends.
struct Endpoint: Sendable {
    enum Method: String, Sendable {
        case get = "GET"
        case post = "POST"
        case delete = "DELETE"
    }

    var method: Method
    /// The path's segments after `/v1`, each percent-encoded when the URL is built.
    var path: [String]
    /// Query parameters of a `GET` route; nil values are left out.
    var query: [String: PodiumJSON?] = [:]
    /// The JSON body of a `POST`/`DELETE` route.
    var body: PodiumJSON?
    /// Whether the session token goes along (every route but logging in and refreshing).
    var authenticated = true
    var resend = ResendSafety.safe

    static func get(_ path: String..., query: [String: PodiumJSON?] = [:]) -> Endpoint {
        Endpoint(method: .get, path: path, query: query)
    }

    static func post(_ path: String..., body: PodiumJSON = [:]) -> Endpoint {
        Endpoint(method: .post, path: path, body: body)
    }

    /// `games/<gameId>/…` routes.
    static func game(_ gameId: String, get path: String..., query: [String: PodiumJSON?] = [:]) -> Endpoint {
        Endpoint(method: .get, path: ["games", gameId] + path, query: query)
    }

    static func game(_ gameId: String, post path: String..., body: PodiumJSON = [:]) -> Endpoint {
        Endpoint(method: .post, path: ["games", gameId] + path, body: body)
    }

    /// `POST /v1/call/{type}`: any request type, for those without a route of their own.
    static func call(_ type: String, gameId: String?, payload: PodiumJSON = [:]) -> Endpoint {
        .post("call", type, body: .compact(["gameId": gameId.map(PodiumJSON.string), "payload": payload]))
    }

    func unauthenticated() -> Endpoint {
        var copy = self
        copy.authenticated = false
        return copy
    }

    func resend(_ safety: ResendSafety) -> Endpoint {
        var copy = self
        copy.resend = safety
        return copy
    }

    /// What the path allows unescaped in one segment (no `/`, `?` or `#`).
    private static let segmentCharacters: CharacterSet = {
        var allowed = CharacterSet.urlPathAllowed
        allowed.remove(charactersIn: "/?#;")
        return allowed
    }()

    func url(relativeTo baseURL: URL) -> URL? {
        var base = baseURL.absoluteString
        while base.hasSuffix("/") { base.removeLast() }
        let segments =
            ["v1"] + path.map { $0.addingPercentEncoding(withAllowedCharacters: Self.segmentCharacters) ?? $0 }
        guard var components = URLComponents(string: base + "/" + segments.joined(separator: "/")) else { return nil }
        let items = query.compactMap { name, value -> URLQueryItem? in
            guard let value else { return nil }
            switch value {
            case .string(let text): return URLQueryItem(name: name, value: text)
            case .integer(let number): return URLQueryItem(name: name, value: String(number))
            case .bool(let flag): return URLQueryItem(name: name, value: flag ? "true" : "false")
            case .double(let number): return URLQueryItem(name: name, value: String(number))
            case .null: return nil
            case .array(let values):
                return URLQueryItem(name: name, value: values.compactMap(\.stringValue).joined(separator: ","))
            case .object: return nil
            }
        }
        if !items.isEmpty {
            components.queryItems = items.sorted { $0.name < $1.name }
            // `+` is a space to many servers: always send it escaped.
            components.percentEncodedQuery = components.percentEncodedQuery?.replacingOccurrences(of: "+", with: "%2B")
        }
        return components.url
    }

    /// `METHOD /v1/path`, for messages.
    var summary: String { "\(method.rawValue) /v1/\(path.joined(separator: "/"))" }
}
