import Foundation
import Testing

@testable import PodiumKit

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `PodiumSocket` against a scripted server in memory: correlation, 4001, 4005, a refused hello,
/// a dropped connection. (The real gateway's side is in WalkthroughTests and SessionTests.)
@Suite(.timeLimit(.minutes(1))) struct SocketTests {
    @Test func aNotificationWithTheRequestsIdDoesNotAnswerIt() async throws {
        let server = ScriptedServer { connection, message in
            let id = message["id"]?.stringValue ?? ""
            if message["type"] == "socket.hello" {
                connection.push(
                    #"{"correlationId":"\#(id)","id":"h","payload":{"subscriptions":[]},"timestamp":1,"type":"reply","version":1}"#
                )
            } else {
                // The notification the request caused comes first, with the same correlationId.
                connection.push(
                    #"{"correlationId":"\#(id)","gameId":"dash","id":"n","payload":{"details":{"challengeId":"c1","inboxId":"i1","issuerId":"p1","kind":"score"},"kind":"challenge.received","message":"m"},"playerId":"p2","timestamp":2,"type":"notification","version":1}"#
                )
                connection.push(
                    #"{"correlationId":"\#(id)","id":"r","payload":{"challengeId":"c1"},"timestamp":3,"type":"reply","version":1}"#
                )
            }
        }
        let socket = try await server.socket()
        try await socket.connect()
        let reply = try await socket.send("challenge.issue", gameId: "dash", idempotencyKey: "req-1")
        #expect(reply == ["challengeId": "c1"])
        var iterator = socket.notifications.makeAsyncIterator()
        let notification = try await iterator.next()
        #expect(notification?.correlationId == "req-1")
        #expect(notification?.kind == .challengeReceived)
        #expect(server.sent.map { $0["type"]?.stringValue } == ["socket.hello", "challenge.issue"])
        #expect(server.sent.last?["id"] == "req-1")
        #expect(server.sent.last?["token"] == nil)  // the hello's session is the credential
        await socket.disconnect()
        #expect(try await iterator.next() == nil)
    }

    @Test func expiryRefreshesAndSaysHelloAgain() async throws {
        let server = ScriptedServer.answeringHellos()
        let socket = try await server.socket()
        try await socket.connect()
        server.connections[0].serverClose(4001, "session expired: refresh it and say hello again")
        var events = socket.events.makeAsyncIterator()
        #expect(await events.next() == .connected)
        #expect(
            await events.next()
                == .disconnected(
                    closeCode: 4001, reason: "session expired: refresh it and say hello again", willReconnect: true))
        #expect(await events.next() == .connected)
        #expect(server.sent.compactMap { $0["token"]?.stringValue } == ["token-1", "token-2"])
        #expect(server.transport.paths == ["/v1/sessions/device", "/v1/sessions/refresh"])
        await socket.disconnect()
    }

    @Test func aDeletedAccountStopsTheSocketAndForgetsTheSession() async throws {
        let server = ScriptedServer.answeringHellos()
        let socket = try await server.socket()
        try await socket.connect()
        server.connections[0].serverClose(4005, "account deleted")
        let error = await #expect(throws: PodiumError.self) {
            for try await _ in socket.notifications {}
        }
        #expect(error?.code == .accountDeleted)
        #expect(error?.closeCode == 4005)
        #expect(await server.client.session == nil)
        #expect(server.connections.count == 1)
        let again = await #expect(throws: PodiumError.self) { try await socket.connect() }
        #expect(again?.code == .accountDeleted)
    }

    @Test func aRefusedHelloStops() async throws {
        let server = ScriptedServer { connection, message in
            let id = message["id"]?.stringValue ?? ""
            connection.push(
                #"{"correlationId":"\#(id)","id":"e","payload":{"code":"unknown_game","field":"payload.games.0","message":"no game 'nope'"},"timestamp":1,"type":"error","version":1}"#
            )
        }
        let socket = try await server.socket()
        let error = await #expect(throws: PodiumError.self) { try await socket.connect() }
        #expect(error?.code == .unknownGame)
        #expect(error?.field == "payload.games.0")
        let ended = await #expect(throws: PodiumError.self) { for try await _ in socket.notifications {} }
        #expect(ended?.code == .unknownGame)
        #expect(server.connections.count == 1)
    }

    @Test func aDroppedConnectionComesBackAfterABackoff() async throws {
        let server = ScriptedServer.answeringHellos()
        let socket = try await server.socket()
        try await socket.connect()
        server.connections[0].serverClose(nil, nil)
        var events = socket.events.makeAsyncIterator()
        #expect(await events.next() == .connected)
        #expect(await events.next() == .disconnected(closeCode: nil, reason: nil, willReconnect: true))
        #expect(await events.next() == .connected)
        #expect(server.connections.count == 2)
        // No refresh: the session is still good.
        #expect(server.sent.compactMap { $0["token"]?.stringValue } == ["token-1", "token-1"])
        await socket.disconnect()
    }
}

/// A WebSocket server in memory: each message the socket sends goes to `respond`.
final class ScriptedServer: SocketConnector, @unchecked Sendable {
    let respond: @Sendable (ScriptedConnection, PodiumJSON) -> Void
    let transport = GrantingTransport()
    private let state = Locked<(connections: [ScriptedConnection], sent: [PodiumJSON])>(([], []))
    private let clientBox = Locked<PodiumClient?>(nil)

    init(respond: @escaping @Sendable (ScriptedConnection, PodiumJSON) -> Void) { self.respond = respond }

    static func answeringHellos() -> ScriptedServer {
        ScriptedServer { connection, message in
            let id = message["id"]?.stringValue ?? ""
            connection.push(
                #"{"correlationId":"\#(id)","id":"h","payload":{},"timestamp":1,"type":"reply","version":1}"#)
        }
    }

    var connections: [ScriptedConnection] { state.get().connections }
    var sent: [PodiumJSON] { state.get().sent }
    var client: PodiumClient { clientBox.get()! }

    /// A socket of a logged-in player (the grant from `transport`), connecting here.
    func socket() async throws -> PodiumSocket {
        let configuration = PodiumConfiguration(
            baseURL: URL(string: "http://podium.invalid")!, gameId: "dash",
            reconnectBackoff: Backoff(initial: .milliseconds(5), maximum: .milliseconds(10)),
            credentialStore: InMemoryCredentialStore(), transport: transport)
        let player = PodiumLocalPlayer(configuration: configuration)
        try await player.authenticate(.device(id: "device-0001"))
        clientBox.set(player.client)
        return PodiumSocket(client: player.client, games: ["dash"], catchUpFromInbox: false, connector: self)
    }

    func connect(to url: URL, timeout: Duration) async throws -> any SocketConnection {
        #expect(url.absoluteString == "ws://podium.invalid/v1/socket")
        let connection = ScriptedConnection(server: self)
        state.withLock { $0.connections.append(connection) }
        return connection
    }

    fileprivate func received(_ text: String, on connection: ScriptedConnection) {
        let message = (try? JSONDecoder().decode(PodiumJSON.self, from: Data(text.utf8))) ?? .null
        state.withLock { $0.sent.append(message) }
        respond(connection, message)
    }
}

/// `@unchecked Sendable`: the stream's continuation is thread-safe; `iterator` is used by the one
/// task that calls `receive()`.
final class ScriptedConnection: SocketConnection, @unchecked Sendable {
    private let server: ScriptedServer
    private let continuation: AsyncStream<SocketIncoming>.Continuation
    private var iterator: AsyncStream<SocketIncoming>.AsyncIterator

    fileprivate init(server: ScriptedServer) {
        self.server = server
        let (stream, continuation) = AsyncStream<SocketIncoming>.makeStream()
        self.continuation = continuation
        iterator = stream.makeAsyncIterator()
    }

    func push(_ text: String) { continuation.yield(.text(text)) }

    func serverClose(_ code: Int?, _ reason: String?) {
        continuation.yield(.closed(code: code, reason: reason))
        continuation.finish()
    }

    func send(_ text: String) async throws { server.received(text, on: self) }

    func receive() async throws -> SocketIncoming { await iterator.next() ?? .closed(code: nil, reason: nil) }

    func close(code: Int, reason: String) async { serverClose(code, reason) }
}

/// Answers every request with a new session grant (`token-1`, `token-2`, …), as device login and refresh do.
final class GrantingTransport: PodiumHTTPTransport {
    private let requests = Locked<[String]>([])

    var paths: [String] { requests.get() }

    func send(_ request: URLRequest) async throws -> (Data, HTTPURLResponse) {
        let count = requests.withLock {
            $0.append(request.url?.path ?? "")
            return $0.count
        }
        let body = """
            {"created":false,"displayName":"P","playerId":"p1","refreshExpiresAt":4102444800000,\
            "refreshToken":"refresh-\(count)","sessionExpiresAt":4102444800000,"sessionId":"s1",\
            "sessionToken":"token-\(count)"}
            """
        let response = HTTPURLResponse(url: request.url!, statusCode: 200, httpVersion: "HTTP/1.1", headerFields: [:])!
        return (Data(body.utf8), response)
    }
}
