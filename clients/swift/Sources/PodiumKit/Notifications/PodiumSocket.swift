import Foundation

/// The player's live connection (`GET /v1/socket`, docs/PROTOCOL.md section 21): notifications as
/// they happen (``notifications``), and requests over the socket (``send(_:gameId:payload:idempotencyKey:)``).
///
/// ```swift
/// let socket = player.makeSocket()
/// try await socket.connect()
/// for try await notification in socket.notifications { … }
/// ```
///
/// Once connected it stays connected until ``disconnect()``:
/// - it says `socket.hello` with the session token for its games;
/// - when the server closes it because the session token expired (close code 4001), it refreshes
///   the session and says hello again at once;
/// - when the connection drops (or the server shuts down, 1001), it connects again after a backoff
///   (``PodiumConfiguration/reconnectBackoff``), then reads what the inbox kept meanwhile and
///   passes it on as notifications (``PodiumNotification/Source/inbox``), each one once;
/// - it stops for good, ending ``notifications`` with the error, when the session was revoked
///   (4003: log in again), the player banned (4004), the account deleted (4005: the stored
///   credential is forgotten), or the hello refused (an unknown game…).
///
/// ``events`` tells of each connection and disconnection.
public actor PodiumSocket {
    /// A change of the connection.
    public enum Event: Sendable, Equatable {
        /// The hello was answered: notifications flow.
        case connected
        /// The connection ended, with the server's close code if it sent one.
        case disconnected(closeCode: Int?, reason: String?, willReconnect: Bool)
    }

    /// The games whose notifications the socket receives.
    public nonisolated let games: [String]
    public nonisolated let notifications: PodiumNotifications
    /// Connections and disconnections (the newest 100 are kept for a slow reader).
    public nonisolated let events: AsyncStream<Event>

    private let client: PodiumClient
    private let connector: any SocketConnector
    private let catchUpFromInbox: Bool
    private let notificationSink: AsyncThrowingStream<PodiumNotification, any Error>.Continuation
    private let eventSink: AsyncStream<Event>.Continuation

    private var runner: Task<Void, Never>?
    private var connection: (any SocketConnection)?
    private var helloAnswered = false
    private var stopped: PodiumError?
    private var isStopped = false
    private var connectWaiters: [CheckedContinuation<Void, any Error>] = []
    private var pending: [String: CheckedContinuation<PodiumJSON, any Error>] = [:]
    private var failures = 0
    /// The session token of the last hello: after a 4001 the session is refreshed only if it is still this one.
    private var helloToken: String?
    /// The highest inbox position read per game, and the inbox ids already passed on.
    private var inboxPositions: [String: Int64] = [:]
    private var passedOn: Set<String> = []
    private var passedOnOrder: [String] = []

    init(
        client: PodiumClient, games: [String], catchUpFromInbox: Bool = true,
        connector: any SocketConnector = SocketConnectors.platform
    ) {
        self.client = client
        self.games = games
        self.catchUpFromInbox = catchUpFromInbox
        self.connector = connector
        let (stream, sink) = AsyncThrowingStream<PodiumNotification, any Error>.makeStream()
        notifications = PodiumNotifications(stream: stream)
        notificationSink = sink
        (events, eventSink) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(100))
    }

    /// Whether the hello was answered and the connection is open.
    public var isConnected: Bool { helloAnswered }

    /// Opens the socket and returns once the hello is answered, so that notifications flow from
    /// then on. Throws the first attempt's error; after a network error the socket goes on
    /// trying in the background, after a refused hello it stops.
    public func connect() async throws {
        if helloAnswered { return }
        if isStopped {
            throw stopped ?? PodiumError(code: .network, message: "the socket was disconnected")
        }
        if runner == nil { runner = Task { await self.run() } }
        try await withCheckedThrowingContinuation { connectWaiters.append($0) }
    }

    /// Closes the socket for good and ends ``notifications``.
    public func disconnect() async {
        guard !isStopped else { return }
        isStopped = true
        helloAnswered = false
        runner?.cancel()
        await connection?.close(code: 1000, reason: "bye")
        finish(throwing: nil)
    }

    /// Sends a request over the socket (the hello's session is its credential) and returns the
    /// reply's payload. Resent with the same idempotency key as ``PodiumConfiguration/retryPolicy`` says.
    public func send(
        _ type: String, gameId: String? = nil, payload: PodiumJSON = [:], idempotencyKey: String? = nil
    ) async throws -> PodiumJSON {
        let key = idempotencyKey ?? PodiumClient.newRequestId()
        let policy = client.configuration.retryPolicy
        var attempt = 0
        while true {
            attempt += 1
            guard helloAnswered, let connection else {
                throw PodiumError(code: .network, message: "the socket is not connected", requestId: key)
            }
            do {
                return try await request(
                    [
                        "type": .string(type), "id": .string(key), "gameId": gameId.map(PodiumJSON.string),
                        "payload": payload,
                    ],
                    on: connection)
            } catch let error as PodiumError {
                guard policy.shouldRetry(error, attempt: attempt, resend: .safe) else { throw error }
                try await Task.sleep(for: policy.delay(afterAttempt: attempt, error: error, jitter: .random(in: 0...1)))
            }
        }
    }

    // MARK: - The run loop

    private func run() async {
        while !Task.isCancelled && !isStopped {
            let action = await runConnection()
            if Task.isCancelled || isStopped { return }
            switch action {
            case .stop(let error):
                if error.code == .accountDeleted { await client.forget() }
                finish(throwing: error)
                return
            case .refreshThenReconnect:
                do {
                    // Unless a request over HTTP has refreshed the session meanwhile.
                    if await client.session?.sessionToken == helloToken { try await client.refresh() }
                } catch let error as PodiumError where Self.transient.contains(error.code) {
                    await backOff()
                } catch {
                    finish(throwing: error as? PodiumError ?? PodiumError(code: .network, message: "\(error)"))
                    return
                }
            case .reconnect:
                await backOff()
            }
        }
    }

    /// A refresh that failed with one of these may work later: connect again after a backoff.
    private static let transient: Set<PodiumErrorCode> = [
        .network, .timeout, .serviceUnavailable, .serviceTimeout, .overloaded, .storageUnavailable,
    ]

    private func backOff() async {
        failures += 1
        let wait = client.configuration.reconnectBackoff.delay(afterFailures: failures, jitter: .random(in: 0...1))
        try? await Task.sleep(for: wait)
    }

    /// One connection, from connecting to its end; what to do next.
    private func runConnection() async -> SocketRules.Action {
        let connection: any SocketConnection
        do {
            connection = try await connector.connect(
                to: client.configuration.socketURL, timeout: client.configuration.requestTimeout)
        } catch {
            let failure = error as? PodiumError ?? PodiumError(code: .network, message: "\(error)")
            failConnectWaiters(failure)
            eventSink.yield(.disconnected(closeCode: nil, reason: failure.message, willReconnect: true))
            return .reconnect
        }
        self.connection = connection
        let hello = Task { await self.sayHello(on: connection) }
        var closeCode: Int?
        var reason: String?
        reading: while true {
            do {
                switch try await connection.receive() {
                case .text(let text):
                    await receive(text)
                case .closed(let code, let why):
                    (closeCode, reason) = (code, why)
                    break reading
                }
            } catch {
                reason = "\(error)"
                break reading
            }
        }
        self.connection = nil
        helloAnswered = false
        // Every request waiting for an answer, the hello's too, is in doubt now.
        for (id, waiter) in pending {
            waiter.resume(
                throwing: PodiumError(code: .network, message: "the socket closed before the reply", requestId: id))
        }
        pending = [:]
        hello.cancel()
        let refused = await hello.value
        let action = refused ?? SocketRules.action(closeCode: closeCode, reason: reason)
        if case .stop(let error) = action { failConnectWaiters(error) }
        if refused == nil, !connectWaiters.isEmpty {
            failConnectWaiters(
                PodiumError(code: .network, message: "the socket closed (\(closeCode.map(String.init) ?? "no code"))"))
        }
        let willReconnect: Bool
        if case .stop = action { willReconnect = false } else { willReconnect = !isStopped }
        eventSink.yield(.disconnected(closeCode: closeCode, reason: reason, willReconnect: willReconnect))
        return action
    }

    /// Says hello; on success notifications flow and the inbox is read for what was missed. Returns
    /// what to do when the hello was refused (the connection is then closed), nil when answered.
    private func sayHello(on connection: any SocketConnection) async -> SocketRules.Action? {
        helloToken = await client.session?.sessionToken
        guard let token = helloToken else {
            await connection.close(code: 4000, reason: "not logged in")
            return .stop(PodiumError(code: .unauthenticated, message: "log in before connecting the socket"))
        }
        do {
            _ = try await request(
                [
                    "type": "socket.hello", "id": .string(PodiumClient.newRequestId()), "token": .string(token),
                    "payload": ["games": .array(games.map(PodiumJSON.string))],
                ], on: connection)
        } catch {
            let failure = error as? PodiumError ?? PodiumError(code: .network, message: "\(error)")
            if Task.isCancelled { return nil }
            failConnectWaiters(failure)
            await connection.close(code: 4000, reason: "hello refused")
            return SocketRules.action(helloError: failure)
        }
        helloAnswered = true
        failures = 0
        for waiter in connectWaiters { waiter.resume() }
        connectWaiters = []
        eventSink.yield(.connected)
        if catchUpFromInbox { await catchUp() }
        return nil
    }

    /// Reads what the inbox kept while the socket was closed (docs/PROTOCOL.md 14.5, 21): the items
    /// after the highest position seen, oldest first, passed on once each. The first time, it
    /// only notes where the inbox is.
    private func catchUp() async {
        for game in games {
            let known = inboxPositions[game]
            var after = known
            while true {
                let query: [String: PodiumJSON?] =
                    after.map { ["after": .integer($0), "limit": 200] } ?? ["limit": 1]
                guard
                    let page = try? await client.send(
                        .game(game, get: "inbox", "items", query: query), as: PodiumInbox.Page.self)
                else { break }
                let newest = page.items.compactMap(\.position).max()
                if known == nil {
                    inboxPositions[game] = newest ?? 0
                    break
                }
                for item in page.items where !passedOn.contains(item.id) {
                    remember(item.id)
                    notificationSink.yield(item.notification(gameId: game, playerId: client.currentSession?.playerId))
                }
                guard let newest, !page.items.isEmpty else { break }
                inboxPositions[game] = max(newest, inboxPositions[game] ?? 0)
                after = newest
            }
        }
    }

    private func receive(_ text: String) async {
        switch SocketRules.classify(text) {
        case .notification(let notification):
            if let inboxId = notification.inboxId {
                if passedOn.contains(inboxId) { return }
                remember(inboxId)
            }
            notificationSink.yield(notification)
        case .reply(let id, let payload):
            pending.removeValue(forKey: id)?.resume(returning: payload)
        case .error(let id?, let error):
            pending.removeValue(forKey: id)?.resume(throwing: error)
        case .error(nil, _), .other:
            break
        }
    }

    private func remember(_ inboxId: String) {
        guard passedOn.insert(inboxId).inserted else { return }
        passedOnOrder.append(inboxId)
        if passedOnOrder.count > 2000 {
            passedOn.subtract(passedOnOrder.prefix(1000))
            passedOnOrder.removeFirst(1000)
        }
    }

    /// Sends one request and waits for its `reply` or `error` (matched by `correlationId == id`).
    private func request(_ members: [String: PodiumJSON?], on connection: any SocketConnection) async throws
        -> PodiumJSON
    {
        let message = PodiumJSON.compact(members)
        let id = message["id"]?.stringValue ?? ""
        let text = String(decoding: try JSONEncoder().encode(message), as: UTF8.self)
        let timeout = client.configuration.requestTimeout
        let timer = Task {
            try await Task.sleep(for: timeout)
            self.expire(id, after: timeout)
        }
        defer { timer.cancel() }
        return try await withCheckedThrowingContinuation { continuation in
            pending.removeValue(forKey: id)?.resume(
                throwing: PodiumError(code: .duplicateRequestID, message: "resent before an answer", requestId: id))
            pending[id] = continuation
            Task {
                do {
                    try await connection.send(text)
                } catch {
                    self.fail(id, PodiumError(code: .network, message: "could not send: \(error)", requestId: id))
                }
            }
        }
    }

    private func expire(_ id: String, after timeout: Duration) {
        fail(id, PodiumError(code: .timeout, message: "no reply within \(timeout)", requestId: id))
    }

    private func fail(_ id: String, _ error: PodiumError) {
        pending.removeValue(forKey: id)?.resume(throwing: error)
    }

    @discardableResult
    private func failConnectWaiters(_ error: PodiumError) -> Int {
        let count = connectWaiters.count
        for waiter in connectWaiters { waiter.resume(throwing: error) }
        connectWaiters = []
        return count
    }

    private func finish(throwing error: PodiumError?) {
        isStopped = true
        stopped = error
        failConnectWaiters(error ?? PodiumError(code: .network, message: "the socket was disconnected"))
        notificationSink.finish(throwing: error)
        eventSink.finish()
    }
}
