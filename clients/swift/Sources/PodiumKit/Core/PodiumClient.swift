import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The connection to one Podium server for one player: the session and every HTTP request
/// (docs/PROTOCOL.md section 20), with the rules of `clients/js/podium.js`:
///
/// - every request gets a fresh idempotency key (a UUID, in `Idempotency-Key`), and every resend
///   of it the same key, so that a resend of an applied request gets the original answer;
/// - a request that got no answer, or `service_unavailable`/`service_timeout`/…, is resent after
///   a backoff, up to a cap (``PodiumRetryPolicy``);
/// - `token_expired` refreshes the session (one refresh at a time, shared by concurrent
///   requests) and resends the request once, with the same key;
/// - each new session grant is kept in the ``PodiumCredentialStore``, so that a later launch
///   resumes the session (``PodiumLocalPlayer/authenticate(_:)`` with `.storedSession`).
///
/// ``PodiumLocalPlayer`` and the GameKit-shaped types use it; ``call(_:gameId:payload:idempotencyKey:)``
/// sends any request type.
public actor PodiumClient {
    public nonisolated let configuration: PodiumConfiguration
    private var grant: PodiumSession?
    private var refreshing: Task<PodiumSession, any Error>?
    /// The grant as last set, for synchronous reads (``PodiumLocalPlayer/playerId``).
    nonisolated let published = Locked<PodiumSession?>(nil)

    public init(configuration: PodiumConfiguration) {
        self.configuration = configuration
    }

    /// The current session; nil when logged out.
    public var session: PodiumSession? { grant }

    /// The current session, read without waiting for the actor.
    public nonisolated var currentSession: PodiumSession? { published.get() }

    /// A fresh request id: a lowercase UUID, as the protocol asks (docs/PROTOCOL.md 4.2).
    public static func newRequestId() -> String { UUID().uuidString.lowercased() }

    // MARK: - Sessions

    /// Logs in with the endpoint's grant (register, login, device login) and keeps it.
    func authenticate(_ endpoint: Endpoint) async throws -> PodiumSession {
        let fresh: PodiumSession = try await send(endpoint.unauthenticated())
        adopt(fresh)
        return fresh
    }

    /// Trades the refresh token for new tokens (docs/PROTOCOL.md 8.6). Concurrent callers share
    /// one refresh: a refresh token works once, and a second use revokes the session.
    @discardableResult
    public func refresh() async throws -> PodiumSession {
        if let refreshing { return try await refreshing.value }
        guard let grant else { throw PodiumError(code: .unauthenticated, message: "not logged in: nothing to refresh") }
        let task = Task { try await self.performRefresh(refreshToken: grant.refreshToken) }
        refreshing = task
        defer { refreshing = nil }
        return try await task.value
    }

    /// Resumes the session kept in the credential store: a refresh with its refresh token.
    @discardableResult
    public func restoreSession() async throws -> PodiumSession {
        guard let store = configuration.credentialStore,
            let stored = try store.load(account: configuration.credentialAccount)
        else {
            throw PodiumError(
                code: .unauthenticated, message: "no stored session for \(configuration.credentialAccount)")
        }
        if let refreshing { return try await refreshing.value }
        let task = Task { try await self.performRefresh(refreshToken: stored.refreshToken) }
        refreshing = task
        defer { refreshing = nil }
        return try await task.value
    }

    private func performRefresh(refreshToken: String) async throws -> PodiumSession {
        do {
            // Never resent after a lost answer: the refresh may have happened, and the same refresh
            // token again would revoke the session (docs/PROTOCOL.md 8.6).
            let fresh: PodiumSession = try await send(
                Endpoint.post("sessions", "refresh", body: ["refreshToken": .string(refreshToken)])
                    .unauthenticated().resend(.onlyIfNotApplied))
            adopt(fresh)
            return fresh
        } catch let error as PodiumError where Self.endsSession.contains(error.code) {
            forget()
            throw error
        }
    }

    /// Refresh answers after which the session cannot go on: log in again. (`player_banned` is not
    /// one: the refresh token works again once the ban is over.)
    static let endsSession: Set<PodiumErrorCode> = [.sessionRevoked, .invalidToken, .tokenExpired, .accountDeleted]

    /// Ends the session on the server (docs/PROTOCOL.md 8.8) and forgets it here and in the store.
    public func logout() async throws {
        defer { forget() }
        guard grant != nil else { return }
        let _: PodiumJSON = try await send(Endpoint(method: .delete, path: ["sessions", "current"], body: [:]))
    }

    /// Forgets the session here and in the credential store, without asking the server.
    public func forget() {
        grant = nil
        published.set(nil)
        try? configuration.credentialStore?.delete(account: configuration.credentialAccount)
    }

    private func adopt(_ fresh: PodiumSession) {
        grant = fresh
        published.set(fresh)
        // Kept before it is used again: a refresh token works once (docs/PROTOCOL.md 8.6).
        try? configuration.credentialStore?.save(
            PodiumStoredCredential(
                playerId: fresh.playerId, refreshToken: fresh.refreshToken, refreshExpiresAt: fresh.refreshExpiresAt),
            account: configuration.credentialAccount)
    }

    // MARK: - Requests

    /// Sends any request type (`POST /v1/call/{type}`, docs/PROTOCOL.md 20.1) and returns the
    /// reply's payload. `gameId` defaults to none; pass the configuration's for game requests.
    public func call(
        _ type: String, gameId: String? = nil, payload: PodiumJSON = [:], idempotencyKey: String? = nil
    ) async throws -> PodiumJSON {
        try await send(Endpoint.call(type, gameId: gameId, payload: payload), idempotencyKey: idempotencyKey)
    }

    /// One request: sent, resent with the same key as the policy allows, the session refreshed
    /// once on `token_expired`; the reply decoded as `Reply`.
    func send<Reply: Decodable>(
        _ endpoint: Endpoint, as type: Reply.Type = Reply.self, idempotencyKey: String? = nil
    ) async throws -> Reply {
        let (data, requestId) = try await exchange(endpoint, idempotencyKey: idempotencyKey ?? Self.newRequestId())
        do {
            return try JSONDecoder().decode(Reply.self, from: data.isEmpty ? Data("{}".utf8) : data)
        } catch {
            throw PodiumError(
                code: .invalidReply, message: "the reply to \(endpoint.summary) is not what was expected: \(error)",
                requestId: requestId)
        }
    }

    private func exchange(_ endpoint: Endpoint, idempotencyKey key: String) async throws -> (Data, String) {
        let policy = configuration.retryPolicy
        var attempt = 0
        var refreshed = false
        while true {
            attempt += 1
            let token = endpoint.authenticated ? grant?.sessionToken : nil
            if endpoint.authenticated && token == nil {
                throw PodiumError(code: .unauthenticated, message: "log in before \(endpoint.summary)", requestId: key)
            }
            do {
                return (try await sendOnce(endpoint, key: key, token: token), key)
            } catch let error as PodiumError {
                if error.code == .tokenExpired, endpoint.authenticated, !refreshed {
                    refreshed = true
                    // Another request may have refreshed meanwhile: then only resend.
                    if grant?.sessionToken == token { try await refresh() }
                    attempt -= 1
                    continue
                }
                if endpoint.authenticated, error.field == "token",
                    error.code == .sessionRevoked || error.code == .invalidToken, grant?.sessionToken == token
                {
                    // The session is over (logged out elsewhere, revoked): log in again.
                    forget()
                }
                guard policy.shouldRetry(error, attempt: attempt, resend: endpoint.resend) else { throw error }
                try await Task.sleep(for: policy.delay(afterAttempt: attempt, error: error, jitter: .random(in: 0...1)))
            }
        }
    }

    private func sendOnce(_ endpoint: Endpoint, key: String, token: String?) async throws -> Data {
        guard let url = endpoint.url(relativeTo: configuration.baseURL) else {
            throw PodiumError(code: .invalidField, message: "no URL for \(endpoint.summary)", field: "baseURL")
        }
        var request = URLRequest(url: url)
        request.httpMethod = endpoint.method.rawValue
        request.setValue(key, forHTTPHeaderField: "Idempotency-Key")
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        if let body = endpoint.body, endpoint.method != .get {
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            request.httpBody = try JSONEncoder().encode(body)
        }
        let timeout = configuration.requestTimeout
        request.timeoutInterval = Double(timeout.milliseconds) / 1000 + 1
        let (data, response) = try await Self.withTimeout(timeout, requestId: key, summary: endpoint.summary) {
            [transport = configuration.transport, request] in
            do {
                return try await transport.send(request)
            } catch let error as PodiumError {
                throw error
            } catch is CancellationError {
                throw CancellationError()
            } catch let error as URLError where error.code == .timedOut {
                throw PodiumError(code: .timeout, message: "no answer to \(endpoint.summary)", requestId: key)
            } catch {
                throw PodiumError(
                    code: .network, message: "could not reach \(url.host ?? "the server"): \(error)", requestId: key)
            }
        }
        guard (200..<300).contains(response.statusCode) else {
            throw PodiumError.problem(
                status: response.statusCode, body: data,
                requestId: response.value(forHTTPHeaderField: "Podium-Request-Id") ?? key,
                retryAfterHeader: response.value(forHTTPHeaderField: "Retry-After"))
        }
        return data
    }

    /// `body`'s result, or ``PodiumErrorCode/timeout`` once `timeout` has passed (the send is cancelled).
    static func withTimeout<Value: Sendable>(
        _ timeout: Duration, requestId: String, summary: String, _ body: @escaping @Sendable () async throws -> Value
    ) async throws -> Value {
        try await withThrowingTaskGroup(of: Value.self) { group in
            group.addTask { try await body() }
            group.addTask {
                try await Task.sleep(for: timeout)
                throw PodiumError(
                    code: .timeout, message: "no answer to \(summary) within \(timeout)", requestId: requestId)
            }
            defer { group.cancelAll() }
            guard let first = try await group.next() else { throw CancellationError() }
            return first
        }
    }
}
