import Foundation
import PodiumKit
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The real stack the integration tests run against (scripts/test-clients starts one):
/// `PODIUM_TEST_HTTP` (the HTTP front), `PODIUM_TEST_WS` (its WebSocket), `PODIUM_TEST_ADMIN_KEY`,
/// `PODIUM_TEST_SERVER_KEY` (game "g") and `PODIUM_TEST_SESSION_TTL_S` (30 there). Without
/// `PODIUM_TEST_HTTP` every test that needs it is skipped.
enum TestStack {
    static let environment = ProcessInfo.processInfo.environment
    static let isAvailable = environment["PODIUM_TEST_HTTP"].map { !$0.isEmpty } ?? false
    static var baseURL: URL { URL(string: environment["PODIUM_TEST_HTTP"] ?? "http://127.0.0.1:9")! }
    static var socketURL: URL? { environment["PODIUM_TEST_WS"].flatMap(URL.init(string:)) }
    static var adminKey: String { environment["PODIUM_TEST_ADMIN_KEY"] ?? "" }
    static var sessionTTL: Duration { .seconds(Int(environment["PODIUM_TEST_SESSION_TTL_S"] ?? "") ?? 30) }

    /// A configuration for one test player: its own in-memory credential store (tests run side
    /// by side, and never write to the home directory), the stack's socket.
    static func configuration(
        game: String = "dash", transport: (any PodiumHTTPTransport)? = nil,
        credentialStore: (any PodiumCredentialStore)? = InMemoryCredentialStore()
    ) -> PodiumConfiguration {
        var configuration = PodiumConfiguration(
            baseURL: baseURL, gameId: game, socketURL: socketURL, credentialStore: credentialStore)
        if let transport { configuration.transport = transport }
        return configuration
    }

    /// A new player, `name` as its display name: a device's player, made by a device login (a
    /// username and password would cost a password hash each, slow on a small machine running
    /// many tests at once; the tests about passwords register their own).
    static func player(
        _ name: String, game: String = "dash", transport: (any PodiumHTTPTransport)? = nil,
        credentialStore: (any PodiumCredentialStore)? = InMemoryCredentialStore()
    ) async throws -> PodiumLocalPlayer {
        let player = PodiumLocalPlayer(
            configuration: configuration(game: game, transport: transport, credentialStore: credentialStore))
        try await player.authenticate(.device(id: "test-\(UUID().uuidString)", displayName: name.capitalized))
        #expect(player.client.currentSession?.created == true)
        return player
    }

    static let password = "a long test password"

    static func uniqueName(_ prefix: String) -> String {
        "\(prefix)-\(UUID().uuidString.prefix(8).lowercased())"
    }

    /// Two new players who are friends (asked and accepted from `game`).
    static func friends(_ first: String, _ second: String, game: String = "dash") async throws
        -> (PodiumLocalPlayer, PodiumLocalPlayer)
    {
        async let one = player(first, game: game)
        async let two = player(second, game: game)
        let (a, b) = try await (one, two)
        try await a.sendFriendRequest(to: b.playerId!)
        try await b.acceptFriendRequest(from: a.playerId!)
        return (a, b)
    }

    /// An operator's request (`X-Podium-Admin-Key`, docs/PROTOCOL.md 22.8): what a test needs
    /// that no player may do (end a challenge, reset a board).
    static func admin(post path: String, body: PodiumJSON = [:]) async throws -> PodiumJSON {
        var request = URLRequest(url: baseURL.appendingPathComponent(path))
        request.httpMethod = "POST"
        request.setValue(adminKey, forHTTPHeaderField: "X-Podium-Admin-Key")
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = try JSONEncoder().encode(body)
        let (data, response) = try await URLSession.shared.data(for: request)
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        guard status == 200 else {
            throw TestFailure("POST \(path): \(status) \(String(decoding: data, as: UTF8.self))")
        }
        return try JSONDecoder().decode(PodiumJSON.self, from: data)
    }
}

extension Trait where Self == ConditionTrait {
    /// Runs the test only against a real stack (`PODIUM_TEST_HTTP`).
    static var stack: Self { .enabled(if: TestStack.isAvailable, "PODIUM_TEST_HTTP is not set") }
}

struct TestFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// `body`'s result, or a failure naming `what` once `timeout` has passed: a test waits for
/// something to arrive, never forever.
func within<Value: Sendable>(
    _ timeout: Duration, _ what: String, _ body: @escaping @Sendable () async throws -> Value
) async throws -> Value {
    try await withThrowingTaskGroup(of: Value.self) { group in
        group.addTask { try await body() }
        group.addTask {
            try await Task.sleep(for: timeout)
            throw TestFailure("\(what) did not happen within \(timeout)")
        }
        defer { group.cancelAll() }
        return try await group.next()!
    }
}

extension PodiumSocket {
    /// The next notification of `kind` (others before it are skipped), within 15 s.
    func next(_ kind: PodiumNotification.Kind, timeout: Duration = .seconds(15)) async throws -> PodiumNotification {
        try await within(timeout, "a \(kind) notification") {
            for try await notification in self.notifications where notification.kind == kind {
                return notification
            }
            throw TestFailure("the notifications ended before a \(kind)")
        }
    }

    /// The next event that `matches`, within `timeout`.
    func nextEvent(
        _ what: String, timeout: Duration = .seconds(15), _ matches: @escaping @Sendable (Event) -> Bool
    ) async throws -> Event {
        try await within(timeout, what) {
            for await event in self.events where matches(event) { return event }
            throw TestFailure("the events ended before \(what)")
        }
    }
}

/// A transport that sends for real and keeps what it saw: each request's method, path,
/// idempotency key and the status it got. `intercept` may answer instead of the server, or after it.
final class RecordingTransport: PodiumHTTPTransport, @unchecked Sendable {
    struct Exchange: Sendable, Equatable {
        var method: String
        var path: String
        var key: String?
        var authorization: String?
        var status: Int?
    }

    /// What to do with one request: send it, answer it without sending, or send it and then fail.
    enum Action: Sendable {
        case send
        case answer(status: Int, body: String)
        case sendThenFail(URLError.Code)
    }

    private let base = URLSessionTransport()
    private let lock = NSLock()
    private var recorded: [Exchange] = []
    private let intercept: @Sendable (URLRequest, Int) -> Action

    /// `intercept` gets each request and how many requests to the same method and path came before it.
    init(intercept: @escaping @Sendable (URLRequest, Int) -> Action = { _, _ in .send }) {
        self.intercept = intercept
    }

    var exchanges: [Exchange] { lock.withLock { recorded } }

    func exchanges(_ method: String, pathSuffix: String) -> [Exchange] {
        exchanges.filter { $0.method == method && $0.path.hasSuffix(pathSuffix) }
    }

    func send(_ request: URLRequest) async throws -> (Data, HTTPURLResponse) {
        let method = request.httpMethod ?? "GET"
        let path = request.url?.path ?? ""
        let earlier = exchanges.filter { $0.method == method && $0.path == path }.count
        var exchange = Exchange(
            method: method, path: path, key: request.value(forHTTPHeaderField: "Idempotency-Key"),
            authorization: request.value(forHTTPHeaderField: "Authorization"))
        defer { lock.withLock { recorded.append(exchange) } }
        switch intercept(request, earlier) {
        case .send:
            let (data, response) = try await base.send(request)
            exchange.status = response.statusCode
            return (data, response)
        case .answer(let status, let body):
            exchange.status = status
            let response = HTTPURLResponse(
                url: request.url!, statusCode: status, httpVersion: "HTTP/1.1",
                headerFields: ["Content-Type": "application/problem+json"])!
            return (Data(body.utf8), response)
        case .sendThenFail(let code):
            let (_, response) = try await base.send(request)
            exchange.status = response.statusCode
            throw URLError(code)
        }
    }
}
