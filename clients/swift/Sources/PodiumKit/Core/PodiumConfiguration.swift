import Foundation

/// Where a game's Podium is and how the client talks to it.
///
/// ```swift
/// let configuration = PodiumConfiguration(baseURL: URL(string: "https://podium.example.com")!, gameId: "dash")
/// ```
///
/// | setting | default |
/// |---|---|
/// | ``baseURL`` | (required) the HTTP front, `http(s)://host:port` |
/// | ``gameId`` | (required) the game every game request is about |
/// | ``socketURL`` | ``baseURL`` with `ws`/`wss` and the path `/v1/socket` |
/// | ``requestTimeout`` | 10 s for one send (a resend gets its own) |
/// | ``retryPolicy`` | 4 sends, 250 ms doubling up to 4 s (``PodiumRetryPolicy``) |
/// | ``reconnectBackoff`` | 0.5 s doubling up to 30 s between WebSocket reconnections |
/// | ``credentialStore`` | ``PodiumCredentials/platformDefault``: the Keychain on Apple platforms, a file (mode 600) under `~/.podium/credentials` elsewhere; nil keeps nothing |
/// | ``credentialAccount`` | the base URL: one stored session per server |
/// | ``transport`` | ``URLSessionTransport`` over `URLSession.shared` |
public struct PodiumConfiguration: Sendable {
    public var baseURL: URL
    public var gameId: String
    public var socketURL: URL
    public var requestTimeout: Duration
    public var retryPolicy: PodiumRetryPolicy
    public var reconnectBackoff: Backoff
    public var credentialStore: (any PodiumCredentialStore)?
    public var credentialAccount: String
    public var transport: any PodiumHTTPTransport

    public init(
        baseURL: URL, gameId: String, socketURL: URL? = nil, requestTimeout: Duration = .seconds(10),
        retryPolicy: PodiumRetryPolicy = PodiumRetryPolicy(),
        reconnectBackoff: Backoff = Backoff(initial: .milliseconds(500), maximum: .seconds(30)),
        credentialStore: (any PodiumCredentialStore)? = PodiumCredentials.platformDefault,
        credentialAccount: String? = nil, transport: any PodiumHTTPTransport = URLSessionTransport()
    ) {
        self.baseURL = baseURL
        self.gameId = gameId
        self.socketURL = socketURL ?? Self.socketURL(for: baseURL)
        self.requestTimeout = requestTimeout
        self.retryPolicy = retryPolicy
        self.reconnectBackoff = reconnectBackoff
        self.credentialStore = credentialStore
        self.credentialAccount = credentialAccount ?? baseURL.absoluteString
        self.transport = transport
    }

    /// `ws://host:port/v1/socket` for `http://host:port`, `wss://…` for `https://…`.
    static func socketURL(for baseURL: URL) -> URL {
        var components = URLComponents(url: baseURL, resolvingAgainstBaseURL: false) ?? URLComponents()
        components.scheme = components.scheme?.lowercased() == "https" ? "wss" : "ws"
        let path = components.path.hasSuffix("/") ? String(components.path.dropLast()) : components.path
        components.path = path + "/v1/socket"
        components.query = nil
        return components.url ?? baseURL
    }
}
